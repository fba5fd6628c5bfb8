import { Body, Controller, Get, HttpCode, NotFoundException, Param, ParseUUIDPipe, Post, Query, UnprocessableEntityException, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MessageRepository } from '@dockbridge/audit';
import { PartnerFileRepository } from '@dockbridge/partners';
import { BULK_REPLAY_LIMIT, ReplayError, ReplayMessage } from '@dockbridge/pipeline';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { BadInput } from '../http-error.filter';
import { BulkReplayDto, MessageSearchDto, parse, ReplayDto, toFilter } from './admin.dto';

/** Operators find, inspect and replay messages. Replays are new messages linked by replay_of; nothing is rewritten. */
@ApiTags('admin')
@ApiBearerAuth()
@Controller('v1/admin/messages')
@UseGuards(AdminTokenGuard)
export class AdminMessagesController {
  constructor(
    private readonly messages: MessageRepository,
    private readonly replays: ReplayMessage,
    private readonly files: PartnerFileRepository,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Search messages: status and channel (comma lists), partner, from/to (ISO 8601), documentId, fileName (of an upload or export, exact), interchange (ISA13); keyset paging with cursor',
  })
  async search(@Query() query: Record<string, unknown>) {
    const dto = parse(MessageSearchDto, query, 'search');
    return this.messages.search({ ...toFilter(dto), limit: dto.limit, cursor: dto.cursor });
  }

  @Get(':id')
  @ApiOperation({
    summary: "A message with its raw payload, operations, attempts and events, its files (the upload it came from, the 997/TA1 written for it; removedAt: the partner fetched and removed it), and its replays with their outcome",
  })
  async detail(@Param('id', new ParseUUIDPipe()) id: string) {
    const [detail, files, replays] = await Promise.all([this.messages.findDetail(id), this.files.listByMessage(id), this.messages.replaysOf(id)]);
    if (!detail) throw new NotFoundException(`message ${id} does not exist`);
    return { ...detail, files, replays };
  }

  @Post(':id/replay')
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Replay one message: rerun (from raw), failed-only, or edit-and-replay with a corrected payload. A replay orders as its original: a newer write to the same target that was delivered supersedes it, unless force is true',
  })
  async replay(@Param('id', new ParseUUIDPipe()) id: string, @Body() body: unknown) {
    const dto = parse(ReplayDto, body, 'replay request');
    const payload = dto.payload === undefined ? undefined : typeof dto.payload === 'string' ? dto.payload : JSON.stringify(dto.payload);
    try {
      const replay = await this.replays.replay(id, {
        mode: dto.mode ?? 'rerun',
        payload,
        mapping: dto.mapping,
        actor: `operator:${dto.operator ?? 'admin'}`,
        reason: dto.reason,
        overrideOrganisations: dto.overrideOrganisations,
        force: dto.force,
      });
      return { messageId: replay.id, replayOf: id, status: replay.status };
    } catch (error) {
      if (!(error instanceof ReplayError)) throw error;
      if (error.code === 'not-found') throw new NotFoundException(error.message);
      if (error.code === 'invalid-payload') throw new BadInput(error.message, error.details);
      throw new UnprocessableEntityException(error.message);
    }
  }

  @Post('replay')
  @HttpCode(200)
  @ApiOperation({
    summary: `Bulk replay by filter; dryRun (default true) makes the same decisions and records nothing. Skips, with the reason, messages that cannot be replayed and those whose latest replay was delivered (includeReplayed: true replays them too). At most ${BULK_REPLAY_LIMIT} messages a request: limitReached says when more matched`,
  })
  async replayMany(@Body() body: unknown) {
    const dto = parse(BulkReplayDto, body, 'bulk replay request');
    const filter = toFilter(dto);
    const request = { mode: dto.mode ?? 'rerun', mapping: dto.mapping, actor: `operator:${dto.operator ?? 'admin'}`, reason: dto.reason, force: dto.force, includeReplayed: dto.includeReplayed } as const;
    const dryRun = dto.dryRun !== false;
    const result = await this.replays.replayMany(filter, request, dryRun);
    const limit = result.limitReached ? { limitReached: BULK_REPLAY_LIMIT } : {};
    // A dry run counts exactly what the real run would replay, and says what it would skip and why.
    if (dryRun) return { dryRun: true, matching: result.replayed.length, skipped: result.skipped, ...limit };
    return { dryRun: false, replayed: result.replayed.length, messageIds: result.replayed, skipped: result.skipped, ...limit };
  }
}
