import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ReceiveWebhook } from '@dockbridge/pipeline';
import { ApiErrors } from '../openapi/error.schemas';
import { WebhookReceivedSchema } from '../openapi/message.schemas';

/**
 * Partner webhooks: the exact bytes go to ReceiveWebhook (verify, deduplicate, record, queue);
 * its refusals answer 404/401/400/413 through the error filter.
 */
@ApiTags('webhooks')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: ReceiveWebhook) {}

  @Post(':partner')
  @HttpCode(202)
  @ApiOperation({
    summary: "Receive a partner's webhook (verified, deduplicated, recorded, then mapped with its JSONata mapping)",
  })
  @ApiParam({ name: 'partner', description: "The partner's id", example: 'fast-freight' })
  @ApiHeader({
    name: 'webhook-id',
    required: false,
    description:
      "Standard Webhooks: the message id, signed, and the idempotency key (a repeat answers 200); or the header the partner's settings.webhook.idempotencyHeader names",
  })
  @ApiHeader({
    name: 'webhook-timestamp',
    required: false,
    description: 'Standard Webhooks: seconds since the epoch, signed; within settings.webhook.toleranceSeconds (300)',
  })
  @ApiHeader({
    name: 'webhook-signature',
    required: false,
    description:
      'Standard Webhooks: space-separated v1,<base64 HMAC-SHA256 of "id.timestamp.body"> with one of the partner\'s secrets',
  })
  @ApiHeader({
    name: 'X-Signature',
    required: false,
    description:
      "hmac verification: the HMAC of the body with one of the partner's secrets, in the header its settings.webhook.signatureHeader names (e.g. x-tms-signature; algorithm, encoding and prefix as set there)",
  })
  @ApiHeader({
    name: 'X-Webhook-Key',
    required: false,
    description:
      "api-key verification: one of the partner's secrets, in the header its settings.webhook.apiKeyHeader names",
  })
  @ApiBody({
    description:
      'Any JSON: its exact bytes are verified and recorded, then mapped with the partner’s JSONata mapping (a body that is not JSON is recorded and rejected with the reason)',
    schema: { type: 'object', additionalProperties: true },
  })
  @ApiResponse({ status: 202, type: WebhookReceivedSchema, description: 'Recorded; {messageId, status: received}' })
  @ApiResponse({
    status: 200,
    type: WebhookReceivedSchema,
    description:
      'A repeat of an earlier webhook-id: {messageId} of the original, {duplicate: true}, not processed again',
  })
  @ApiErrors(
    [
      400,
      'Verified, but the body is not UTF-8 text, holds a NUL byte, or is shaped past the limits (recorded with the reason)',
    ],
    [401, 'Verification failed (recorded with the reason)'],
    [404, 'No such partner, disabled, or without settings.webhook'],
    [413, 'Body over the partner limit (recorded as a rejected request)'],
  )
  async receive(
    @Param('partner') partnerId: string,
    @Req() request: FastifyRequest & { rawBody?: Buffer },
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const body =
      request.rawBody ??
      Buffer.from(typeof request.body === 'string' ? request.body : JSON.stringify(request.body ?? null));
    const received = await this.webhooks.execute(partnerId, body, request.headers);
    if (!received.duplicate) {
      return { messageId: received.messageId, status: 'received' };
    }
    void reply.status(200);
    return { messageId: received.messageId, duplicate: true };
  }
}
