import { createApiClient, type Schemas } from '@dockbridge/api-client';

export type { Schemas };
export type Me = Schemas['OperatorMeSchema'];
export type Role = Me['role'];
export type MappingTestResult = Schemas['MappingTrialSchema'];

const TOKEN_KEY = 'dockbridge.console.token';

/** Kept for this tab only (session storage), never in a URL. */
export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

export const api = createApiClient({ baseUrl: window.location.origin });

api.use({
  onRequest({ request }) {
    const token = tokenStore.get();
    if (token) {
      request.headers.set('authorization', `Bearer ${token}`);
    }
    return request;
  },
});

/** An answer that is not 2xx, with what the gateway said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a 2xx answer, or an ApiError naming what the gateway refused and why. */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) {
    return data as T;
  }
  const body = (error ?? {}) as { error?: string; message?: string | string[]; details?: string[] };
  const details = body.details ?? (Array.isArray(body.message) ? body.message : body.message ? [body.message] : []);
  throw new ApiError(response.status, body.error ?? response.statusText ?? `HTTP ${response.status}`, details);
}

export const describeError = (error: unknown): string =>
  error instanceof ApiError
    ? `${error.status} ${error.message}${error.details.length ? `: ${error.details.join('; ')}` : ''}`
    : error instanceof Error
      ? error.message
      : String(error);
