/** An error the sandbox answers with: REST `{"error", "details"}` with `status`, or a GraphQL error with `code`. */
export type GraphqlErrorCode = 'UNAUTHENTICATED' | 'FORBIDDEN' | 'BAD_USER_INPUT' | 'NOT_FOUND';

const CODE_BY_STATUS: Record<number, GraphqlErrorCode> = {
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'BAD_USER_INPUT',
};

export class PlatformError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413,
    readonly summary: string,
    readonly details: string[] = [],
  ) {
    super(details.length ? `${summary}: ${details.join('; ')}` : summary);
  }

  get code(): GraphqlErrorCode {
    return CODE_BY_STATUS[this.status] ?? 'BAD_USER_INPUT';
  }

  static badRequest(summary: string, details: string[] = []) {
    return new PlatformError(400, summary, details);
  }
  static unauthenticated(detail: string) {
    return new PlatformError(401, 'Unauthorized', [detail]);
  }
  static forbidden(detail: string) {
    return new PlatformError(403, 'Forbidden', [detail]);
  }
  static notFound(detail: string) {
    return new PlatformError(404, 'Not found', [detail]);
  }
  static conflict(detail: string) {
    return new PlatformError(409, 'Conflict', [detail]);
  }
}
