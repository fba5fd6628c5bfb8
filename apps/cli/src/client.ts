import { createApiClient, type ApiClient } from '@dockbridge/api-client';

/** A non-2xx answer: the gateway's ErrorBody ({statusCode, error, details}) or what a proxy sent instead. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly details: string[],
  ) {
    super(`${error} (HTTP ${status})`);
  }
}

/** The gateway could not be reached at all (refused, DNS, timeout). */
export class ConnectionError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach the gateway at ${url}: ${reason}`);
  }
}

export interface ClientOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` (admin API). */
  adminToken?: string;
  /** Sent as `X-API-Key` (partner endpoints such as /v1/edi/preview). */
  apiKey?: string;
  timeoutMs?: number;
  fetch?: (request: Request) => Promise<Response>;
  /** Called once per request with a line that never contains a header (so never a secret). */
  trace?: (line: string) => void;
}

/** The base URL as it may be printed: no user:password part. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

const reasonOf = (error: unknown): string => {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') {
    return 'no answer in time';
  }
  return e?.cause?.message ?? e?.cause?.code ?? e?.message ?? String(error);
};

/** Reads an error answer; a body that is not the gateway's ErrorBody is shown as an excerpt. */
async function errorOf(response: Response): Promise<GatewayError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown; details?: unknown; message?: unknown };
    const details = Array.isArray(body.details)
      ? body.details.map(String)
      : typeof body.message === 'string'
        ? [body.message]
        : [];
    if (typeof body.error === 'string') {
      return new GatewayError(response.status, body.error, details);
    }
  } catch {
    // not JSON: fall through
  }
  const excerpt = text.trim().replace(/\s+/g, ' ').slice(0, 200);
  return new GatewayError(response.status, response.statusText || 'Error', excerpt ? [excerpt] : []);
}

/** A query as URLSearchParams writes it; a list is one comma list (`status=failed%2Crejected`). */
function queryOf(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) {
      search.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
  }
  return search.toString();
}

/**
 * The gateway's client: openapi-fetch typed by the OpenAPI document (@dockbridge/api-client), so paths,
 * parameters, bodies and answers are the document's. Underneath, one error type per failure kind: a
 * non-2xx answer is thrown as GatewayError, no answer at all as ConnectionError.
 */
export function gatewayClient(options: ClientOptions): ApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? fetch;
  const failed = (method: string, url: string, started: number, error: unknown) => {
    options.trace?.(`${method} ${displayUrl(url)} failed after ${Date.now() - started} ms`);
    // fetch names the whole URL in some errors (one with user:password in it, say): never print its credentials.
    return new ConnectionError(displayUrl(baseUrl), reasonOf(error).split(url).join(displayUrl(url)));
  };
  return createApiClient({
    baseUrl,
    headers: {
      accept: 'application/json',
      authorization: options.adminToken ? `Bearer ${options.adminToken}` : undefined,
      'x-api-key': options.apiKey || undefined,
    },
    querySerializer: queryOf,
    // A text body (X12, a JSON file as written) goes as it is, an object as JSON.
    bodySerializer: (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body)),
    // The request itself refuses some URLs (one with user:password): said as fetch's own refusals are.
    Request: class extends Request {
      constructor(url: string, init: RequestInit) {
        const started = Date.now();
        try {
          super(url, init);
        } catch (error) {
          throw failed(init.method ?? 'GET', url, started, error);
        }
      }
    },
    fetch: async (request: Request) => {
      const started = Date.now();
      let response: Response;
      try {
        response = await send(new Request(request, { signal: AbortSignal.timeout(options.timeoutMs ?? 60_000) }));
      } catch (error) {
        throw failed(request.method, request.url, started, error);
      }
      options.trace?.(
        `${request.method} ${displayUrl(request.url)} -> ${response.status} (${Date.now() - started} ms)`,
      );
      if (!response.ok) {
        throw await errorOf(response);
      }
      return response;
    },
  });
}

/** The data of an answer (a refusal never gets here: the client threw it as a GatewayError). */
export async function answer<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T;
}
