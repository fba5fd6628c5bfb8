import {
  Controller,
  Get,
  HttpCode,
  HttpException,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PartnerProfile } from '@dockbridge/partners';
import { MessageQueries, ReceiveApiMessage } from '@dockbridge/pipeline';
import { CurrentPartner, PartnerApiKeyGuard } from '../auth/partner-api-key.guard';
import { operationPage } from '../admin/operation-page';
import { BadInput, ErrorBody } from '../http-error.filter';
import { jsonTextOf, jsonValuesOf } from '../json-body';
import { ApiErrors } from '../openapi/error.schemas';
import { CanonicalMessageSchema, CanonicalOperationSchema } from '../openapi/ingress.schemas';
import { AcceptedSchema, PartnerMessageStatusSchema } from '../openapi/message.schemas';

/** Idempotency keys a client may choose: visible ASCII, as HTTP headers carry it. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
/** A partner's status page lists outcomes, not documents: 200 at a time unless told (as it always did). */
const STATUS_OPERATIONS_DEFAULT = 200;

/** Canonical JSON ingress: a partner posts a list of operations; dockbridge records, then delivers them. */
@ApiTags('messages')
@ApiHeader({ name: 'X-API-Key', description: 'The partner API key (or Authorization: Bearer <key>)' })
@ApiExtraModels(CanonicalOperationSchema)
@ApiErrors([401, 'Missing, unknown, expired or revoked API key (the connection is closed)'])
@Controller('v1/messages')
@UseGuards(PartnerApiKeyGuard)
export class MessagesController {
  constructor(
    private readonly receive: ReceiveApiMessage,
    private readonly queries: MessageQueries,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Submit operations (document upserts and deletes, booking changes) for delivery' })
  @ApiBody({ type: CanonicalMessageSchema })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Makes a retry safe: a repeat with the same key and the same body is answered 200 with the original messageId and records nothing; the same key with another body is 422. 1–255 visible ASCII characters, unique per partner.',
  })
  @ApiResponse({
    status: 202,
    type: AcceptedSchema,
    description: 'Recorded durably; delivery follows. Body: {messageId, status}',
  })
  @ApiResponse({
    status: 200,
    type: AcceptedSchema,
    description:
      'A repeat of an Idempotency-Key with the same body: nothing new recorded. Body: {messageId, status: current status, repeat: true}',
  })
  @ApiErrors(
    [422, 'The Idempotency-Key was used before with a different body'],
    [
      400,
      "Invalid body, or an operation on an organisation outside the partner's profile; `details` names each offending field or operation. Nothing is accepted.",
    ],
    [413, 'Body over gateway.bodyLimitBytes'],
    [415, 'The body is not sent as application/json'],
  )
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
    const raw = jsonTextOf(request) ?? request.rawBody?.toString('utf8') ?? JSON.stringify(request.body ?? null);
    const received = await this.receive.execute(
      partner,
      request.body,
      raw,
      idempotencyKeyOf(request),
      jsonValuesOf(request),
    );
    if (received.repeat) {
      reply.status(200);
    }
    return received;
  }

  @Get(':id')
  @ApiOperation({
    summary:
      "A partner's own message: its status, its operations counted by status, and one page of them with each one's outcome (`retrying` with nextAttemptAt and the last error while a retryable failure waits for its next try); limit 1–1000 (default 200), after = nextAfter for the next page",
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The messageId the submission answered' })
  @ApiQuery({
    name: 'after',
    required: false,
    type: 'integer',
    description: 'The nextAfter of the previous page (an operation seq, from 0)',
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    type: 'integer',
    description: 'Operations per page, 1–1000 (default 200)',
  })
  @ApiOkResponse({ type: PartnerMessageStatusSchema })
  @ApiErrors([400, 'The id is not a UUID, or the page is invalid'], [404, 'No such message of this partner'])
  async status(
    @CurrentPartner() partner: PartnerProfile,
    @Param('id', new ParseUUIDPipe()) id: string,
    @Query('after') after?: string,
    @Query('limit') limit?: string,
  ) {
    const status = await this.queries.ofPartner(
      partner.id,
      id,
      operationPage(after, limit, undefined, STATUS_OPERATIONS_DEFAULT),
    );
    if (!status) {
      throw new NotFoundException(`message ${id} does not exist`);
    }
    return status;
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
