import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { DomainError, DomainErrorKind, MessageRepository } from '@dockbridge/audit';
import {
  boundedJsonata,
  DEFAULT_WEBHOOK_BODY_BYTES,
  PartnerWebhookSettings,
  verifyWebhook,
} from '@dockbridge/partners';
import { inspectJson, parseJsonInTurns } from '../json-in-turns';
import { WEBHOOK_CONTENT_TYPE } from '../translate/translators';
import { AcceptMessage } from './accept-message';
import { RefusalLog, secretHeadersOf } from './refusal-log';
import { WebhookEndpoints } from './webhook-endpoints';

/** Longest a partner's idempotency path may run (it runs on the request path; a path takes microseconds). */
const IDEMPOTENCY_PATH_TIMEOUT_MS = 50;

/** A webhook not taken: no endpoint, too large, not verified, not text. Refusals of a known partner are recorded first. */
export class WebhookRefused extends DomainError {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    summary?: string,
    details?: string[],
  ) {
    super(message);
    this.summary = summary;
    this.details = details ?? [];
  }
}

export const webhookBodyLimit = (settings: PartnerWebhookSettings): number =>
  settings.maxBodyBytes ?? DEFAULT_WEBHOOK_BODY_BYTES;

/**
 * The 413 for a webhook body over `limit`, recorded as a rejected request (without its body) when
 * `refusals` is given (null: a partner without an endpoint, nothing to record it under).
 * `atLeast`: the size is what was read before stopping, not the whole body's.
 */
export async function oversizedWebhook(
  refusals: RefusalLog | null,
  partnerId: string,
  size: number,
  limit: number,
  atLeast = false,
): Promise<WebhookRefused> {
  const reason = `body of ${atLeast ? 'at least ' : ''}${size} bytes exceeds ${refusals ? "the partner's limit" : 'the limit'} of ${limit} bytes`;
  await refusals?.record({ partnerId, kind: 'too large', reason, body: null, metadata: { size } });
  return new WebhookRefused('too-large', reason, 'Payload too large');
}

/** What a webhook became: a new message, or a repeat of an earlier one (recorded as a duplicate). */
export type ReceivedWebhook = { messageId: string; duplicate: false } | { messageId: string; duplicate: true };

/**
 * The webhook use case: the exact bytes are verified (Standard Webhooks, HMAC or API key, any
 * active secret), deduplicated by idempotency key, recorded, then queued. Refusals are recorded too,
 * with the reason (never a secret; beyond a per-minute budget counted in a summary), and never
 * processed.
 */
@Injectable()
export class ReceiveWebhook {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly messages: MessageRepository,
    private readonly accept: AcceptMessage,
    private readonly refusals: RefusalLog,
  ) {}

  async execute(partnerId: string, body: Buffer, headers: IncomingHttpHeaders): Promise<ReceivedWebhook> {
    let endpoint = await this.endpoints.get(partnerId);
    const { partner } = endpoint;
    const settings = partner?.settings.webhook;
    if (!partner || !partner.enabled || !settings) {
      throw new WebhookRefused('not-found', `no webhook endpoint for partner ${partnerId}`);
    }
    // Bodies declared too large were refused before reading (the gateway's body limit); this catches the undeclared.
    const limit = webhookBodyLimit(settings);
    if (body.length > limit) {
      throw await oversizedWebhook(this.refusals, partnerId, body.length, limit);
    }
    let verification = verifyWebhook(settings, WebhookEndpoints.usable(endpoint), body, headers);
    if (!verification.ok) {
      // Perhaps a secret added a moment ago: read afresh before refusing.
      endpoint = await this.endpoints.get(partnerId, true);
      verification = verifyWebhook(settings, WebhookEndpoints.usable(endpoint), body, headers);
    }
    const refusal = {
      partnerId,
      body,
      headers,
      secretHeaders: secretHeadersOf(settings),
      metadata: { verification: settings.verification },
    };
    if (!verification.ok) {
      // Kept for the audit, never processed: refusedAtIngress makes replay refuse it too.
      await this.refusals.record({
        ...refusal,
        kind: 'verification failed',
        reason: `verification failed: ${verification.reason}`,
      });
      throw new WebhookRefused('unauthenticated', `webhook verification failed: ${verification.reason}`);
    }
    if (!isUtf8(body)) {
      // Signed, but its text would have to be changed to be stored or mapped: refused, saying why.
      await this.refusals.record({ ...refusal, kind: 'not utf-8', reason: 'the body is not valid UTF-8 text' });
      throw new WebhookRefused('invalid', 'the body is not valid UTF-8 text', 'Webhook body is not UTF-8', [
        'the body is not valid UTF-8: webhook bodies are JSON, which is UTF-8 text',
      ]);
    }
    const nul = body.indexOf(0);
    if (nul !== -1) {
      // Valid UTF-8, but no JSON (a NUL in a value is written \u0000), and stored it would have to be changed.
      const reason = `the body holds a NUL byte at offset ${nul}: JSON text has none (a NUL in a value is written \\u0000)`;
      await this.refusals.record({ ...refusal, kind: 'invalid', reason });
      throw new WebhookRefused('invalid', reason, 'Webhook body refused', [reason]);
    }
    // Valid UTF-8 without a NUL: stored as it is (storableText would find nothing to change).
    const text = body.toString('utf8');
    const { values, problem: shape } = await inspectJson(text);
    if (shape) {
      // Signed and within its bytes, but more values, nesting or width than a worker maps (docs/security.md).
      await this.refusals.record({ ...refusal, kind: shape.tooLarge ? 'too large' : 'invalid', reason: shape.reason });
      throw new WebhookRefused(
        shape.tooLarge ? 'too-large' : 'invalid',
        shape.reason,
        shape.tooLarge ? 'Payload too large' : 'Webhook body refused',
        [shape.reason],
      );
    }
    const key = await idempotencyKey(settings, headers, text);
    const accepted = await this.accept.execute({
      partnerId,
      channel: 'webhook',
      contentType: WEBHOOK_CONTENT_TYPE,
      rawPayload: text,
      metadata: {
        mappingVersion: endpoint.mappingVersion,
        webhookId: header(headers, 'webhook-id') ?? null,
        size: body.length,
        jsonValues: values,
      },
      idempotencyKey: key,
    });
    if (!accepted.existing) {
      return { messageId: accepted.messageId, duplicate: false };
    }
    await this.messages.record({
      partnerId,
      channel: 'webhook',
      contentType: WEBHOOK_CONTENT_TYPE,
      actor: 'gateway',
      rawPayload: text,
      status: 'duplicate',
      statusReason: `repeat of message ${accepted.messageId} (idempotency key ${key})`,
      metadata: { duplicateOf: accepted.messageId, size: body.length },
    });
    return { messageId: accepted.messageId, duplicate: true };
  }
}

async function idempotencyKey(
  settings: PartnerWebhookSettings,
  headers: IncomingHttpHeaders,
  text: string,
): Promise<string | undefined> {
  if (settings.idempotencyPath) {
    try {
      // In turns: a partner's limit may be raised to 64 MiB, whose JSON.parse alone held the loop ~0.5 s.
      const value = await boundedJsonata(settings.idempotencyPath, IDEMPOTENCY_PATH_TIMEOUT_MS).evaluate(
        await parseJsonInTurns(text),
      );
      return value === undefined || value === null ? undefined : String(value);
    } catch {
      return undefined;
    }
  }
  return header(headers, settings.idempotencyHeader ?? 'webhook-id');
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
