import { Transform } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { MAX_WEBHOOK_BODY_BYTES, PartnerWebhookSettings, verifyWebhookHeaders } from '@dockbridge/partners';
import {
  oversizedWebhook,
  RefusalLog,
  secretHeadersOf,
  WebhookEndpoint,
  WebhookEndpoints,
  webhookBodyLimit,
  WebhookRefused,
} from '@dockbridge/pipeline';

/** The webhook route as Fastify names it. */
export const WEBHOOK_ROUTE = '/v1/webhooks/:partner';

/**
 * What a webhook's headers decide before its body is read: a webhook to an unknown (or disabled)
 * partner is answered 404, one whose headers already fail verification 401 (recorded), and one
 * whose declared length is over its partner's limit 413 (recorded); one without a declared length
 * is read only up to that limit. The route itself admits the largest limit a partner may set.
 */
export function applyWebhookBodyLimits(app: NestFastifyApplication, gatewayLimit: number): void {
  const fastify = app.getHttpAdapter().getInstance();
  const endpoints = app.get(WebhookEndpoints);
  const refusals = app.get(RefusalLog);
  fastify.addHook('onRoute', (route) => {
    if (route.url === WEBHOOK_ROUTE) {
      route.bodyLimit = Math.max(gatewayLimit, MAX_WEBHOOK_BODY_BYTES);
    }
  });
  fastify.addHook('preParsing', async (request, reply, payload) => {
    if (request.routeOptions.url !== WEBHOOK_ROUTE) {
      return payload;
    }
    const partnerId = (request.params as { partner: string }).partner;
    const endpoint = await endpoints.get(partnerId);
    const settings = endpoint.partner?.enabled ? endpoint.partner.settings.webhook : undefined;
    if (!settings) {
      // No endpoint: answered before a byte of the body is read, and the connection goes with the answer.
      void reply
        .header('connection', 'close')
        .status(404)
        .send({ statusCode: 404, error: 'Not Found', details: [`no webhook endpoint for partner ${partnerId}`] });
      return reply;
    }
    const unverified = await refusalFromHeaders(endpoints, endpoint, settings, partnerId, request.headers);
    if (unverified) {
      // Refused unread (recorded with the headers' diagnosis): an unsigned flood costs no body reads.
      await refusals.record({
        partnerId,
        kind: 'verification failed',
        reason: `verification failed: ${unverified}`,
        body: null,
        headers: request.headers,
        secretHeaders: secretHeadersOf(settings),
        metadata: { verification: settings.verification },
      });
      void reply
        .header('connection', 'close')
        .status(401)
        .send({ statusCode: 401, error: 'Unauthorized', details: [`webhook verification failed: ${unverified}`] });
      return reply;
    }
    const limit = webhookBodyLimit(settings);
    const refuse = (size: number, atLeast = false) => oversizedWebhook(refusals, partnerId, size, limit, atLeast);
    const declared = Number(request.headers['content-length']);
    if (!Number.isSafeInteger(declared)) {
      return payload.pipe(capped(limit, refuse));
    }
    if (declared <= limit) {
      return payload;
    }
    const refusal = await refuse(declared);
    // The connection is closed after this answer: the unread body is never consumed.
    void reply
      .header('connection', 'close')
      .status(413)
      .send({ statusCode: 413, error: refusal.summary, details: [refusal.message] });
    return reply;
  });
}

/**
 * Why the headers alone fail verification (missing signature headers, a stale timestamp, a wrong
 * API key), or null when only the body can tell. A refusal that depends on the secrets reads them
 * afresh first, as the controller does: a secret added a moment ago works at once.
 */
async function refusalFromHeaders(
  endpoints: WebhookEndpoints,
  endpoint: WebhookEndpoint,
  settings: PartnerWebhookSettings,
  partnerId: string,
  headers: IncomingHttpHeaders,
): Promise<string | null> {
  let verification = verifyWebhookHeaders(settings, WebhookEndpoints.usable(endpoint), headers);
  if (!verification.ok && verification.bySecret) {
    verification = verifyWebhookHeaders(
      settings,
      WebhookEndpoints.usable(await endpoints.get(partnerId, true)),
      headers,
    );
  }
  return verification.ok ? null : verification.reason;
}

/**
 * A body without a declared length, read only up to `limit` bytes: past it the stream fails with
 * the refusal (recorded by `refuse`), which Fastify answers with its status, 413.
 */
function capped(limit: number, refuse: (size: number, atLeast: boolean) => Promise<WebhookRefused>): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size <= limit) {
        return callback(null, chunk);
      }
      // Only the bytes read so far are known: the reason says "at least".
      refuse(size, true).then(
        (refusal) => callback(Object.assign(new Error(refusal.message), { statusCode: 413 })),
        (error: Error) => callback(error),
      );
    },
  });
}
