import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ReceiveWebhook } from '@dockbridge/pipeline';

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
