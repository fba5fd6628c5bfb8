import { Controller, Get, HttpCode, HttpException, NotFoundException, Param, ParseUUIDPipe, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { MessageRepository } from '@dockbridge/audit';
import { checkCanonicalMessage, organisationScopeProblems } from '@dockbridge/mapping';
import { organisationsOf, type PartnerProfile } from '@dockbridge/partners';
import { AcceptMessage, CANONICAL_CONTENT_TYPE } from '@dockbridge/pipeline';
import { CurrentPartner, PartnerApiKeyGuard } from '../auth/partner-api-key.guard';
import { BadInput, ErrorBody } from '../http-error.filter';

/** Canonical JSON ingress: a partner posts a list of operations; dockbridge records, then delivers them. */
@ApiTags('messages')
@ApiHeader({ name: 'X-API-Key', description: 'The partner API key (or Authorization: Bearer <key>)' })
@Controller('v1/messages')
@UseGuards(PartnerApiKeyGuard)
export class MessagesController {
  constructor(
    private readonly accept: AcceptMessage,
    private readonly messages: MessageRepository,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Submit operations (document upserts and deletes, booking changes) for delivery' })
  @ApiBody({ schema: { example: { operations: [{ kind: 'document.upsert', organisationId: '<location uuid>', document: { id: 'PO-1', direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } } }] } } })
  @ApiResponse({ status: 202, description: 'Recorded durably; delivery follows. Body: {messageId, status}' })
  @ApiResponse({ status: 400, description: "Invalid body, or an operation on an organisation outside the partner's profile; `details` names each offending field or operation. Nothing is accepted." })
  @ApiResponse({ status: 415, description: 'The body is not sent as application/json' })
  async submit(@CurrentPartner() partner: PartnerProfile, @Req() request: FastifyRequest & { rawBody?: Buffer }) {
    // X12 and form types are parsed too (for other routes): say what is wrong instead of judging their bytes as operations.
    const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      throw new HttpException({ statusCode: 415, error: 'Unsupported media type', details: [`content-type must be application/json (got ${type || 'none'})`] } satisfies ErrorBody, 415);
    }
    const raw = request.rawBody?.toString('utf8') ?? JSON.stringify(request.body ?? null);
    const check = checkCanonicalMessage(request.body);
    if (!check.ok) throw new BadInput('Invalid message', check.problems);
    const allowed = organisationsOf(partner);
    const outside = organisationScopeProblems(check.operations, allowed);
    if (outside.length) throw new BadInput('Operations outside the organisations this partner may act on', [...outside, `partner ${partner.id} may act on: ${[...allowed].join(', ')}`]);
    const accepted = await this.accept.execute({
      partnerId: partner.id,
      channel: 'api',
      rawPayload: raw,
      contentType: CANONICAL_CONTENT_TYPE,
      metadata: { operations: check.operations.length, platformAccount: partner.platformAccount },
    });
    return { messageId: accepted.messageId, status: 'received' };
  }

  @Get(':id')
  @ApiOperation({ summary: "A partner's own message: its status and each operation's outcome" })
  async status(@CurrentPartner() partner: PartnerProfile, @Param('id', new ParseUUIDPipe()) id: string) {
    const detail = await this.messages.findDetail(id);
    if (!detail || detail.message.partnerId !== partner.id) throw new NotFoundException(`message ${id} does not exist`);
    const { message, operations } = detail;
    return {
      messageId: message.id,
      status: message.status,
      reason: message.statusReason,
      receivedAt: message.receivedAt,
      operations: operations.map((op) => ({ seq: op.seq, kind: op.kind, target: op.targetId, status: op.status, error: op.lastError, attempts: op.attemptCount })),
    };
  }
}
