import { isUtf8 } from 'node:buffer';
import { Controller, HttpCode, NotFoundException, Param, Post, Req, Res, UnauthorizedException } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MessageRepository, storableText } from '@dockbridge/audit';
import { boundedJsonata, verifyWebhook } from '@dockbridge/partners';
import { AcceptMessage, WEBHOOK_CONTENT_TYPE } from '@dockbridge/pipeline';
import { BadInput } from '../http-error.filter';
import { refuseOversizedWebhook, webhookBodyLimit } from './webhook-body-limit';
import { RefusalLog, secretHeadersOf } from './refusal-log';
import { WebhookEndpoints } from './webhook-endpoints';

/** Longest a partner's idempotency path may run (it runs on the request path; a path takes microseconds). */
const IDEMPOTENCY_PATH_TIMEOUT_MS = 50;

/**
 * Partner webhooks: the exact bytes are verified (Standard Webhooks, HMAC or API key, any active
 * secret), deduplicated by idempotency key, recorded, then queued. Refusals are recorded too, with
 * the reason (never a secret; beyond a per-minute limit counted in a summary), and never processed.
 */
@ApiTags('webhooks')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly messages: MessageRepository,
    private readonly accept: AcceptMessage,
    private readonly refusals: RefusalLog,
  ) {}

  @Post(':partner')
  @HttpCode(202)
  @ApiOperation({
    summary: "Receive a partner's webhook (verified, deduplicated, recorded, then mapped with its JSONata mapping)",
  })
  @ApiResponse({ status: 202, description: 'Recorded; {messageId}' })
  @ApiResponse({
    status: 200,
    description: 'A repeat of an earlier webhook-id: {messageId} of the original, not processed again',
  })
  @ApiResponse({ status: 400, description: 'Verified, but the body is not UTF-8 text (recorded with the reason)' })
  @ApiResponse({ status: 401, description: 'Verification failed (recorded with the reason)' })
  @ApiResponse({ status: 413, description: 'Body over the partner limit (recorded as a rejected request)' })
  async receive(
    @Param('partner') partnerId: string,
    @Req() request: FastifyRequest & { rawBody?: Buffer },
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    let endpoint = await this.endpoints.get(partnerId);
    const { partner } = endpoint;
    const settings = partner?.settings.webhook;
    if (!partner || !partner.enabled || !settings) {
      throw new NotFoundException(`no webhook endpoint for partner ${partnerId}`);
    }
    const body =
      request.rawBody ??
      Buffer.from(typeof request.body === 'string' ? request.body : JSON.stringify(request.body ?? null));
    const text = storableText(body.toString('utf8'));
    const base = {
      partnerId,
      channel: 'webhook' as const,
      contentType: WEBHOOK_CONTENT_TYPE,
      actor: 'gateway' as const,
    };

    // Bodies declared too large were refused before reading (webhook-body-limit.ts); this catches the undeclared.
    const limit = webhookBodyLimit(settings);
    if (body.length > limit) {
      throw await refuseOversizedWebhook(this.refusals, partnerId, body.length, limit);
    }
    let verification = verifyWebhook(settings, WebhookEndpoints.usable(endpoint), body, request.headers);
    if (!verification.ok) {
      // Perhaps a secret added a moment ago: read afresh before refusing.
      endpoint = await this.endpoints.get(partnerId, true);
      verification = verifyWebhook(settings, WebhookEndpoints.usable(endpoint), body, request.headers);
    }
    if (!verification.ok) {
      // Kept for the audit, never processed: refusedAtIngress makes replay refuse it too.
      await this.refusals.record({
        partnerId,
        kind: 'verification failed',
        reason: `verification failed: ${verification.reason}`,
        body,
        headers: request.headers,
        secretHeaders: secretHeadersOf(settings),
        metadata: { verification: settings.verification },
      });
      throw new UnauthorizedException(`webhook verification failed: ${verification.reason}`);
    }

    if (!isUtf8(body)) {
      // Signed, but its text would have to be changed to be stored or mapped: refused, saying why.
      await this.refusals.record({
        partnerId,
        kind: 'not utf-8',
        reason: 'the body is not valid UTF-8 text',
        body,
        headers: request.headers,
        secretHeaders: secretHeadersOf(settings),
        metadata: { verification: settings.verification },
      });
      throw new BadInput('Webhook body is not UTF-8', [
        'the body is not valid UTF-8: webhook bodies are JSON, which is UTF-8 text',
      ]);
    }
    const metadata = {
      mappingVersion: endpoint.mappingVersion,
      webhookId: header(request, 'webhook-id') ?? null,
      size: body.length,
    };
    const key = await this.idempotencyKey(settings, request, text);
    const accepted = await this.accept.execute({
      partnerId,
      channel: 'webhook',
      contentType: WEBHOOK_CONTENT_TYPE,
      rawPayload: text,
      metadata,
      idempotencyKey: key,
    });
    if (!accepted.existing) {
      return { messageId: accepted.messageId, status: 'received' };
    }
    const id = accepted.messageId;
    await this.messages.record({
      ...base,
      rawPayload: text,
      status: 'duplicate',
      statusReason: `repeat of message ${id} (idempotency key ${key})`,
      metadata: { duplicateOf: id, size: body.length },
    });
    void reply.status(200);
    return { messageId: id, duplicate: true };
  }

  private async idempotencyKey(
    settings: { verification: string; idempotencyHeader?: string; idempotencyPath?: string },
    request: FastifyRequest,
    text: string,
  ): Promise<string | undefined> {
    if (settings.idempotencyPath) {
      try {
        const value = await boundedJsonata(settings.idempotencyPath, IDEMPOTENCY_PATH_TIMEOUT_MS).evaluate(
          JSON.parse(text),
        );
        return value === undefined || value === null ? undefined : String(value);
      } catch {
        return undefined;
      }
    }
    return header(request, settings.idempotencyHeader ?? 'webhook-id');
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
