import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/**
 * The request headers a request log line may show. An allowlist, not a redact list: partners name
 * their own signature and API-key headers, and none of those may reach a log.
 */
export const LOGGED_REQUEST_HEADERS = [
  'content-type',
  'content-length',
  'user-agent',
  'x-request-id',
  'webhook-id',
  'webhook-timestamp',
];

/** Health and metrics scrapes would drown the log. */
const UNLOGGED = /^\/(health|metrics)(\/|\?|$)/;

/**
 * The URL as a log line may show it: the path, and a query's names with their values redacted
 * (`?fileName=…&token=…`: a partner may put anything in a query, credentials included).
 */
export function urlForLog(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) {
    return url;
  }
  const names = url
    .slice(at + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => `${pair.split('=')[0].slice(0, 64)}=…`);
  return `${url.slice(0, at)}?${names.join('&')}`;
}

/**
 * What a request log line says of the request: what was asked, by whom (address), never
 * credentials. Flat fields: `req`/`res` would go through pino-http's serializers, made for Node's
 * own request objects.
 */
export function requestForLog(request: Pick<FastifyRequest, 'id' | 'method' | 'url' | 'ip' | 'headers'>) {
  const headers = Object.fromEntries(
    LOGGED_REQUEST_HEADERS.filter((name) => request.headers[name] !== undefined).map((name) => [
      name,
      request.headers[name],
    ]),
  );
  return { reqId: request.id, method: request.method, url: urlForLog(request.url), remoteAddress: request.ip, headers };
}

/**
 * One `request completed` line per answered request, at info (method, URL, status, time, safe
 * headers). Nothing is hooked when info is off: ingest pays nothing for lines nobody keeps.
 */
export function logRequests(fastify: FastifyInstance, logger: Logger): void {
  if (!logger.isLevelEnabled('info')) {
    return;
  }
  fastify.addHook('onResponse', (request, reply, done) => {
    if (!UNLOGGED.test(request.url)) {
      logger.info(
        { ...requestForLog(request), statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime) },
        'request completed',
      );
    }
    done();
  });
}
