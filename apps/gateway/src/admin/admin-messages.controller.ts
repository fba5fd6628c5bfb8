import {
  Body,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import {
  BULK_REPLAY_LIMIT,
  BulkReplays,
  BulkReplayView,
  EndedMessageView,
  EndMessage,
  MessageDetailView,
  MessagePageView,
  MessageQueries,
  REPLAY_RUN_SKIPS_KEPT,
  ReplayMessage,
  ReplayResultView,
  ReplayRunView,
  actorOf,
} from '@dockbridge/pipeline';
import type { OperatorIdentity } from '@dockbridge/audit';
import { CurrentOperator, OperatorRoleGuard, RequiresRole } from '../auth/operator-role.guard';
import { Records } from './activity';
import { BadInput } from '../http-error.filter';
import { operationPage } from './operation-page';
import {
  BulkReplayDto,
  EndMessageDto,
  MessageFilterDto,
  MessageSearchDto,
  parse,
  ReplayDto,
  toFilter,
} from './admin.dto';
import { ApiErrors } from '../openapi/error.schemas';
import {
  BulkReplayDryRunSchema,
  BulkReplayStartedSchema,
  EndedMessageSchema,
  MessageCountsSchema,
  MessageDetailSchema,
  MessagePageSchema,
  ReplayResultSchema,
  ReplayRunListSchema,
  ReplayRunSchema,
} from '../openapi/message.schemas';

/**
 * Who a replay is recorded as: a named token's holder; with the shared bootstrap token, the name the
 * request gives (`operator`), as before operator accounts.
 */
const replayActor = (operator: OperatorIdentity, claimed: string | undefined) =>
  operator.tokenId === null && claimed ? (`operator:${claimed}` as const) : actorOf(operator);

/** Where a bulk replay run is read. */
const runPath = (runId: string) => `/v1/admin/replays/${runId}`;

/**
 * Operators find, inspect and replay messages. Replays are new messages linked by replay_of; nothing
 * is rewritten. A bulk replay runs as a job (`replay_run`, queue `replay`), read at /v1/admin/replays.
 */
@ApiTags('admin')
@ApiBearerAuth()
@ApiErrors([401, 'Missing or wrong admin token'], [403, "The token's role does not allow this"])
@Controller('v1/admin')
@UseGuards(OperatorRoleGuard)
export class AdminMessagesController {
  constructor(
    private readonly queries: MessageQueries,
    private readonly replays: ReplayMessage,
    private readonly bulk: BulkReplays,
    private readonly ending: EndMessage,
  ) {}

  @Get('messages')
  @ApiOperation({
    summary:
      'Search messages: status and channel (comma lists), partner, from/to (ISO 8601), documentId, fileName (of an upload or export, exact), interchange (ISA13); keyset paging with cursor',
  })
  @ApiQuery({ type: MessageSearchDto })
  @ApiOkResponse({ type: MessagePageSchema })
  @ApiErrors([400, 'A filter, limit or cursor is invalid; `details` names each'])
  async search(@Query() query: Record<string, unknown>): Promise<MessagePageView> {
    const dto = parse(MessageSearchDto, query, 'search');
    return this.queries.search({ ...toFilter(dto), limit: dto.limit, cursor: dto.cursor });
  }

  @Get('messages/counts')
  @ApiOperation({
    summary:
      'How many messages match a filter, by status (the same filters as the search; its status is left out). Give a time range (from/to) on a large store',
  })
  @ApiQuery({ type: MessageFilterDto })
  @ApiOkResponse({ type: MessageCountsSchema })
  @ApiErrors([400, 'A filter is invalid; `details` names each'])
  async counts(@Query() query: Record<string, unknown>): Promise<MessageCountsSchema> {
    const dto = parse(MessageFilterDto, query, 'message counts');
    return { byStatus: await this.queries.countByStatus(toFilter(dto)) };
  }

  @Get('messages/:id')
  @ApiOperation({
    summary:
      'A message with the first 256 KiB of its raw payload (payloadTruncated; the whole at /payload), its operations counted by status and one page of them with their attempts (operationsLimit 1–1000, default 50; operationsAfter = nextOperationsAfter for the next page), its events, its files (the upload it came from, the 997/TA1 written for it; removedAt: the partner fetched and removed it), and its replays with their outcome',
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The message' })
  @ApiQuery({
    name: 'operationsAfter',
    required: false,
    type: 'integer',
    description: 'The nextOperationsAfter of the previous page (an operation seq, from 0)',
  })
  @ApiQuery({
    name: 'operationsLimit',
    required: false,
    type: 'integer',
    description: 'Operations per page, 1–1000 (default 50)',
  })
  @ApiOkResponse({ type: MessageDetailSchema })
  @ApiErrors([400, 'The id is not a UUID, or the page of operations is invalid'], [404, 'No such message'])
  async detail(
    @Param('id', new ParseUUIDPipe()) id: string,
    @Query('operationsAfter') after?: string,
    @Query('operationsLimit') limit?: string,
  ): Promise<MessageDetailView> {
    const detail = await this.queries.detail(id, operationPage(after, limit, 'operations'));
    if (!detail) {
      throw new NotFoundException(`message ${id} does not exist`);
    }
    return detail;
  }

  @Get('messages/:id/payload')
  @ApiOperation({
    summary:
      "A message's payload exactly as received (the detail shows its first 256 KiB: payloadTruncated), streamed with its content type",
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The message' })
  @ApiOkResponse({
    description: 'The payload bytes, with the content type they were received with and their content-length',
    content: {
      'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
      'application/json': { schema: { type: 'string', format: 'binary' } },
      'application/edi-x12': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiErrors([400, 'The id is not a UUID'], [404, 'No such message'])
  async payload(@Param('id', new ParseUUIDPipe()) id: string, @Res() reply: FastifyReply): Promise<void> {
    const payload = await this.queries.payload(id);
    if (!payload) {
      throw new NotFoundException(`message ${id} does not exist`);
    }
    await reply.type(payload.contentType).header('content-length', payload.bytes).send(Readable.from(payload.slices));
  }

  @Post('messages/:id/replay')
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Replay one message: rerun (from raw), failed-only, or edit-and-replay with a corrected payload. A replay orders as its original: a newer write to the same target that was delivered supersedes it, unless force is true',
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The message to replay' })
  @ApiBody({ type: ReplayDto, required: false })
  @ApiResponse({ status: 202, type: ReplayResultSchema, description: 'The replay is recorded; delivery follows' })
  @ApiErrors(
    [400, 'Invalid request, or an edited payload that is not a valid message (`details` by path)'],
    [404, 'No such message'],
    [422, 'Not replayable: nothing to retry (failed-only), refused at ingress, organisations outside the profile, ...'],
  )
  @RequiresRole('operator')
  @Records('message.replay', ({ params, body, result }) => ({
    target: `message:${params.id}`,
    summary: `replayed as ${result.messageId} (${(body as { mode?: string } | undefined)?.mode ?? 'rerun'}${(body as { payload?: unknown } | undefined)?.payload === undefined ? '' : ', edited payload'})`,
  }))
  async replay(
    @Param('id', new ParseUUIDPipe()) id: string,
    @Body() body: unknown,
    @CurrentOperator() operator: OperatorIdentity,
  ): Promise<ReplayResultView> {
    const dto = parse(ReplayDto, body, 'replay request');
    const payload =
      dto.payload === undefined
        ? undefined
        : typeof dto.payload === 'string'
          ? dto.payload
          : JSON.stringify(dto.payload);
    const replay = await this.replays.replay(id, {
      mode: dto.mode ?? 'rerun',
      payload,
      mapping: dto.mapping,
      actor: replayActor(operator, dto.operator),
      reason: dto.reason,
      overrideOrganisations: dto.overrideOrganisations,
      force: dto.force,
    });
    return { messageId: replay.id, replayOf: id, status: replay.status };
  }

  @Post('messages/:id/end')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "End a message's delivery: its unsettled operations (pending, retrying) end failed with the reason, and the message settles (failed, or partially_failed beside what was delivered). Newer writes its operations held back (newest write wins) then go; the message can be replayed like any failed one. Refused (409) while a platform call or job holds any of its operations, and for a message not being delivered",
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The message' })
  @ApiBody({ type: EndMessageDto })
  @ApiOkResponse({ type: EndedMessageSchema })
  @ApiErrors(
    [400, 'Invalid request: the reason is required'],
    [404, 'No such message'],
    [409, 'Not being delivered (`status`), or operations being sent (`inFlight`, `inFlightUntil`): nothing was ended'],
  )
  @RequiresRole('operator')
  @Records('message.end', ({ params, body, result }) => ({
    target: `message:${params.id}`,
    summary: `ended ${result.ended} operation(s), now ${result.status}: ${(body as { reason?: string }).reason}`,
  }))
  async end(
    @Param('id', new ParseUUIDPipe()) id: string,
    @Body() body: unknown,
    @CurrentOperator() operator: OperatorIdentity,
  ): Promise<EndedMessageView> {
    const dto = parse(EndMessageDto, body, 'end request');
    return this.ending.end(id, { actor: replayActor(operator, dto.operator), reason: dto.reason });
  }

  @Post('messages/replay')
  @HttpCode(200)
  @ApiOperation({
    summary: `Bulk replay by filter, oldest first (replays are recorded in their originals' order, so forced ones leave each document on its newest message's write), at most ${BULK_REPLAY_LIMIT.toLocaleString('en')} messages (BULK_REPLAY_LIMIT): limitReached says when more matched; narrow the filter (from/to) for the rest. dryRun (default true) answers 200 at once with the exact count and records nothing. A real run (dryRun: false) is a job: 202 with its runId and a Location to read its progress and result (GET /v1/admin/replays/{runId}); it sees the messages received before it was asked for, and resumes after a crash without replaying a message twice. Both skip, with the reason, messages that cannot be replayed and those whose latest replay was delivered (includeReplayed: true replays them too)`,
  })
  @ApiBody({ type: BulkReplayDto, required: false })
  @ApiResponse({
    status: 200,
    type: BulkReplayDryRunSchema,
    description: 'Dry run: {dryRun: true, matching, skipped: [{id, reason}], limitReached?: the cap}',
  })
  @ApiResponse({
    status: 202,
    type: BulkReplayStartedSchema,
    description:
      'Real run queued: {dryRun: false, runId, status: queued, limit, location}; Location header: /v1/admin/replays/{runId}',
    headers: {
      Location: { description: 'Where the run is read: /v1/admin/replays/{runId}', schema: { type: 'string' } },
    },
  })
  @ApiErrors(
    [400, 'Invalid filter or options; `details` names each'],
    [503, 'The run could not be queued (Redis away); it is recorded failed with the reason'],
  )
  @RequiresRole('operator')
  @Records('message.bulk-replay', ({ result }) =>
    result.dryRun ? null : { target: `replay-run:${result.runId}`, summary: `started bulk replay run ${result.runId}` },
  )
  async replayMany(
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
    @CurrentOperator() operator: OperatorIdentity,
  ): Promise<BulkReplayView> {
    const dto = parse(BulkReplayDto, body, 'bulk replay request');
    const filter = toFilter(dto);
    const options = {
      mode: dto.mode ?? 'rerun',
      mapping: dto.mapping,
      force: dto.force,
      includeReplayed: dto.includeReplayed,
    } as const;
    const actor = replayActor(operator, dto.operator);
    if (dto.dryRun !== false) {
      // A dry run counts exactly what the real run would replay, and says what it would skip and why.
      const result = await this.replays.dryRun(filter, { ...options, actor, reason: dto.reason });
      return {
        dryRun: true,
        matching: result.replayable.length,
        skipped: result.skipped,
        ...(result.limitReached && { limitReached: BULK_REPLAY_LIMIT }),
      };
    }
    const run = await this.bulk.start(filter, options, actor, dto.reason);
    reply.status(202).header('location', runPath(run.id));
    return { dryRun: false, runId: run.id, status: run.status, limit: BULK_REPLAY_LIMIT, location: runPath(run.id) };
  }

  @Get('replays')
  @ApiOperation({ summary: 'Bulk replay runs, newest first (limit 1–100, default 20), each with its progress' })
  @ApiQuery({
    name: 'limit',
    required: false,
    type: 'integer',
    description: 'Runs to list, 1–100 (default 20)',
  })
  @ApiOkResponse({ type: ReplayRunListSchema })
  @ApiErrors([400, 'limit is not a whole number from 1 to 100'])
  async listRuns(@Query('limit') limit?: string): Promise<{ items: ReplayRunView[] }> {
    const n = limit === undefined ? 20 : Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 100) {
      throw new BadInput('Invalid replay run list', ['limit must be a whole number from 1 to 100']);
    }
    return { items: await this.queries.replayRuns(n) };
  }

  @Get('replays/:runId')
  @ApiOperation({
    summary: `One bulk replay run: status (queued, running, completed, failed), total (null until it starts; exact once over), done, replayed, skipped (the first ${REPLAY_RUN_SKIPS_KEPT} with their reason in skips), limit and limitReached (more matched than the cap of ${BULK_REPLAY_LIMIT.toLocaleString('en')}), error, times. Its replays carry metadata.replay.run = runId`,
  })
  @ApiParam({ name: 'runId', format: 'uuid', description: 'The runId the bulk replay answered' })
  @ApiOkResponse({ type: ReplayRunSchema })
  @ApiErrors([400, 'The runId is not a UUID'], [404, 'No such run'])
  async run(@Param('runId', new ParseUUIDPipe()) runId: string): Promise<ReplayRunView> {
    const run = await this.queries.replayRun(runId);
    if (!run) {
      throw new NotFoundException(`replay run ${runId} does not exist`);
    }
    return run;
  }
}
