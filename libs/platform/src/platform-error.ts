/**
 * The one error taxonomy of every platform call:
 * - `retryable`: 5xx (502 above all), 408, 429 (with Retry-After), timeouts, connection resets;
 * - `permanent`: other 4xx and GraphQL BAD_USER_INPUT / NOT_FOUND / validation errors, with the platform's reason;
 * - `auth`: 401, 403, UNAUTHENTICATED, FORBIDDEN (the token or its permissions need attention).
 */
export type PlatformErrorClass = 'retryable' | 'permanent' | 'auth';

const REASON_LIMIT = 2000;

export class PlatformCallError extends Error {
  override readonly name = 'PlatformCallError';

  constructor(
    readonly errorClass: PlatformErrorClass,
    /** The operation that failed, e.g. `PUT document` or `graphql updateBookingStatus`. */
    readonly operation: string,
    /** The platform's own reason (error body, GraphQL message) or the transport failure. */
    readonly reason: string,
    readonly status?: number,
    /** For 429 / 503 with Retry-After: how long the platform asked us to wait. */
    readonly retryAfterMs?: number,
    readonly graphqlCode?: string,
  ) {
    super(
      `${operation} failed (${errorClass}${status ? `, HTTP ${status}` : ''}${graphqlCode ? `, ${graphqlCode}` : ''}): ${reason}`,
    );
  }

  get retryable(): boolean {
    return this.errorClass === 'retryable';
  }
}

export function classifyStatus(status: number): PlatformErrorClass {
  if (status === 401 || status === 403) {
    return 'auth';
  }
  if (status >= 500 || status === 408 || status === 429) {
    return 'retryable';
  }
  return 'permanent';
}

// A Map, not an object: a code the platform sends (`constructor`, `toString`) must not find an inherited member.
const GRAPHQL_CLASSES = new Map<string, PlatformErrorClass>([
  ['UNAUTHENTICATED', 'auth'],
  ['FORBIDDEN', 'auth'],
  ['BAD_USER_INPUT', 'permanent'],
  ['NOT_FOUND', 'permanent'],
  ['GRAPHQL_PARSE_FAILED', 'permanent'],
  ['GRAPHQL_VALIDATION_FAILED', 'permanent'],
  ['INTERNAL_SERVER_ERROR', 'retryable'],
]);

/** An unknown code is permanent: retrying what the platform refused for a reason we don't know only delays the answer. */
export const classifyGraphqlCode = (code: string | undefined): PlatformErrorClass =>
  (code === undefined ? undefined : GRAPHQL_CLASSES.get(code)) ?? 'permanent';

const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** A failure below HTTP (timeout, reset, refused connection) as a PlatformCallError: always retryable. */
export function fromTransportFailure(operation: string, error: unknown, timeoutMs: number): PlatformCallError {
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return new PlatformCallError('retryable', operation, `no answer within ${timeoutMs} ms`);
  }
  const code = err?.cause?.code ?? err?.code;
  const detail = err?.cause?.message ?? err?.message ?? String(error);
  const known = code && RETRYABLE_NETWORK_CODES.has(code);
  return new PlatformCallError('retryable', operation, `${known ? `${code}: ` : ''}${detail}`);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) {
    return undefined;
  }
  if (/^\d+$/.test(value.trim())) {
    return Number(value.trim()) * 1000;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The platform's reason from an error body: `{"error", "details"}` when it is one, else the text itself. */
export function reasonFromBody(text: string): string {
  let reason = text.trim();
  try {
    const body = JSON.parse(text) as { error?: unknown; details?: unknown };
    // Stryker disable next-line OptionalChaining: equivalent, the TypeError a JSON null throws is caught: text kept
    if (typeof body?.error === 'string') {
      const details = Array.isArray(body.details) ? body.details.filter((d) => typeof d === 'string') : [];
      reason = details.length ? `${body.error}: ${details.join('; ')}` : body.error;
    }
  } catch {
    // not JSON: keep the text
  }
  return truncate(reason || '(empty response body)');
}

export const truncate = (text: string, limit = REASON_LIMIT) =>
  text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
