import {
  Controller,
  Get,
  HttpCode,
  HttpException,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Req,
  Res,
  UnprocessableEntityException,
  UseGuards,
} from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MessageRepository } from '@dockbridge/audit';
import { checkCanonicalMessage, organisationScopeProblems } from '@dockbridge/mapping';
import { organisationsOf, type PartnerProfile } from '@dockbridge/partners';
import { AcceptMessage, CANONICAL_CONTENT_TYPE } from '@dockbridge/pipeline';
import { CurrentPartner, PartnerApiKeyGuard } from '../auth/partner-api-key.guard';
import { BadInput, ErrorBody } from '../http-error.filter';

/** Idempotency keys a client may choose: visible ASCII, as HTTP headers carry it. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

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
  @ApiBody({
    schema: {
      example: {
        operations: [
          {
            kind: 'document.upsert',
            organisationId: '<location uuid>',
            document: { id: 'PO-1', direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
          },
        ],
      },
    },
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Makes a retry safe: a repeat with the same key and the same body is answered 200 with the original messageId and records nothing; the same key with another body is 422. 1–255 visible ASCII characters, unique per partner.',
  })
  @ApiResponse({ status: 202, description: 'Recorded durably; delivery follows. Body: {messageId, status}' })
  @ApiResponse({
    status: 200,
    description:
      'A repeat of an Idempotency-Key with the same body: nothing new recorded. Body: {messageId, status: current status, repeat: true}',
  })
  @ApiResponse({ status: 422, description: 'The Idempotency-Key was used before with a different body' })
  @ApiResponse({
    status: 400,
    description:
      "Invalid body, or an operation on an organisation outside the partner's profile; `details` names each offending field or operation. Nothing is accepted.",
  })
  @ApiResponse({ status: 415, description: 'The body is not sent as application/json' })
  async submit(
    @CurrentPartner() partner: PartnerProfile,
    @Req() request: FastifyRequest & { rawBody?: Buffer },
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    // X12 and form types are parsed too (for other routes): say what is wrong instead of judging their bytes as operations.
    const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      throw new HttpException(
        {
          statusCode: 415,
          error: 'Unsupported media type',
          details: [`content-type must be application/json (got ${type || 'none'})`],
        } satisfies ErrorBody,
        415,
      );
    }
    const key = idempotencyKeyOf(request);
    const raw = request.rawBody?.toString('utf8') ?? JSON.stringify(request.body ?? null);
    const check = checkCanonicalMessage(request.body);
    if (!check.ok) {
      throw new BadInput('Invalid message', check.problems);
    }
    const allowed = organisationsOf(partner);
    const outside = organisationScopeProblems(check.operations, allowed);
    if (outside.length) {
      throw new BadInput('Operations outside the organisations this partner may act on', [
        ...outside,
        `partner ${partner.id} may act on: ${[...allowed].join(', ')}`,
      ]);
    }
    const accepted = await this.accept.execute({
      partnerId: partner.id,
      channel: 'api',
      rawPayload: raw,
      contentType: CANONICAL_CONTENT_TYPE,
      metadata: { operations: check.operations.length, platformAccount: partner.platformAccount },
      // Its own namespace: a partner's webhook ids (the same column) cannot collide with its API keys.
      idempotencyKey: key === undefined ? undefined : `api:${key}`,
    });
    if (!accepted.existing) {
      return { messageId: accepted.messageId, status: 'received' };
    }
    if (!accepted.samePayload) {
      throw new UnprocessableEntityException(
        `Idempotency-Key ${key} was used for a different body (message ${accepted.messageId}); use a new key for a new message`,
      );
    }
    reply.status(200);
    const earlier = await this.messages.findById(accepted.messageId);
    return { messageId: accepted.messageId, status: earlier?.status ?? 'received', repeat: true };
  }

  @Get(':id')
  @ApiOperation({
    summary:
      "A partner's own message: its status and each operation's outcome (`retrying` with nextAttemptAt and the last error while a retryable failure waits for its next try)",
  })
  async status(@CurrentPartner() partner: PartnerProfile, @Param('id', new ParseUUIDPipe()) id: string) {
    const detail = await this.messages.findDetail(id);
    if (!detail || detail.message.partnerId !== partner.id) {
      throw new NotFoundException(`message ${id} does not exist`);
    }
    const { message, operations } = detail;
    // Waiting for a next try after a retryable failure: `retrying`, with when and why.
    const retrying = (op: (typeof operations)[number]) => op.status === 'delivering' && op.nextAttemptAt !== null;
    return {
      messageId: message.id,
      status: message.status === 'delivering' && operations.some(retrying) ? 'retrying' : message.status,
      reason: message.statusReason,
      receivedAt: message.receivedAt,
      operations: operations.map((op) => ({
        seq: op.seq,
        kind: op.kind,
        target: op.targetId,
        status: retrying(op) ? 'retrying' : op.status,
        error: op.lastError,
        attempts: op.attemptCount,
        ...(retrying(op) && { nextAttemptAt: op.nextAttemptAt }),
      })),
    };
  }
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) {
    throw new BadInput('Invalid Idempotency-Key', [
      'Idempotency-Key must be one header of 1 to 255 visible ASCII characters',
    ]);
  }
  return value;
}
