import type { GatewayRequest } from './requests';

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
  fetch?: typeof fetch;
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

/** A thin fetch wrapper: JSON in and out, one error type per failure kind. */
export class GatewayClient {
  private readonly baseUrl: string;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async send<T = unknown>(request: GatewayRequest): Promise<T> {
    const headers: Record<string, string> = { accept: request.raw ? '*/*' : 'application/json' };
    if (this.options.adminToken) {
      headers.authorization = `Bearer ${this.options.adminToken}`;
    }
    if (this.options.apiKey) {
      headers['x-api-key'] = this.options.apiKey;
    }
    let body: string | undefined;
    if (request.body !== undefined) {
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
      headers['content-type'] = request.contentType ?? 'application/json';
    }
    const url = this.baseUrl + request.path;
    const started = Date.now();
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(url, {
        method: request.method,
        headers,
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
      });
    } catch (error) {
      this.options.trace?.(`${request.method} ${displayUrl(url)} failed after ${Date.now() - started} ms`);
      // fetch names the whole URL in some errors (one with user:password in it, say): never print its credentials.
      throw new ConnectionError(displayUrl(this.baseUrl), reasonOf(error).split(url).join(displayUrl(url)));
    }
    this.options.trace?.(`${request.method} ${displayUrl(url)} -> ${response.status} (${Date.now() - started} ms)`);
    if (!response.ok) {
      throw await errorOf(response);
    }
    const text = await response.text();
    if (request.raw) {
      return text as T;
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
