import { Injectable, Logger } from '@nestjs/common';
import {
  Actor,
  BUDGET_BYTES_PER_VALUE,
  DomainError,
  DomainErrorKind,
  Message,
  MessageFilter,
  MessageMetadata,
  MessageRepository,
  MessageSummary,
  OperationRepository,
  ReplayFacts,
} from '@dockbridge/audit';
import { checkCanonicalMessageInTurns, organisationScopeProblems } from '@dockbridge/mapping';
import { organisationsOf, PartnerRepository } from '@dockbridge/partners';
import { MessageQueues, translateJobOf } from '../message-queues';
import { inspectJson, JSON_BODY_LIMITS } from '../json-in-turns';
import { CANONICAL_CONTENT_TYPE, WEBHOOK_CONTENT_TYPE } from '../translate/translators';

export type ReplayMode = ReplayFacts['mode'];

/** What a replay sends: text, or (`payloadFile`, with empty text) the stored file the original was. */
interface ReplayPayload {
  rawPayload: string;
  contentType: string;
  payloadFile?: string;
  /** An edited JSON payload's values (inspectJson), recorded as the replay's `jsonValues`. */
  jsonValues?: number;
}

export interface ReplayRequest {
  /**
   * `rerun`: the whole raw payload translated again (EDI with today's partner settings; webhooks with
   * the mapping version of `mapping`); `failed-only`: only the operations that failed.
   */
  mode: ReplayMode;
  /** Edit-and-replay: this payload instead of the original (same content type). */
  payload?: string;
  actor: Actor;
  reason?: string;
  /** Webhooks: map with the version the original used (default) or today's. */
  mapping?: 'original' | 'current';
  /**
   * Deliver operations on organisations the partner's profile does not name (an operator's explicit
   * decision, recorded on the replay with who and why); otherwise such a replay is refused.
   */
  overrideOrganisations?: boolean;
  /**
   * Deliver even over newer writes to the same targets: the replay then orders as a message arriving
   * now. Without it a replay orders as its original, so a newer delivered write supersedes it.
   */
  force?: boolean;
}

export class ReplayError extends DomainError {
  readonly kind: DomainErrorKind;
  constructor(
    readonly code: 'not-found' | 'nothing-to-retry' | 'not-replayable' | 'invalid-payload',
    message: string,
    /** What is wrong with an edited payload, each problem by path. */
    details: string[] = [],
  ) {
    super(message);
    this.details = details;
    this.kind = code === 'not-found' ? 'not-found' : code === 'invalid-payload' ? 'invalid' : 'unprocessable';
    if (code === 'invalid-payload') {
      this.summary = message;
    }
  }
}

/**
 * The most messages one bulk replay (or its dry run) looks at, oldest first; `limitReached` says when
 * more matched. Narrow the filter (e.g. by --from/--to) and run again for the rest.
 */
export const BULK_REPLAY_LIMIT = 10_000;

/** What bulk replay takes: the options of one replay but an edited payload or an organisation override. */
export type BulkReplayRequest = Omit<ReplayRequest, 'payload' | 'overrideOrganisations'> & {
  /** Also replay messages whose latest replay was delivered (skipped by default: a second booking.create would book twice). */
  includeReplayed?: boolean;
};

/** What bulk replay did with one message: replayed it (as `replayId`; the original's own id in a dry run), or skipped it and why. */
export type BulkReplayOutcome = { id: string; replayId: string } | { id: string; skipped: string };

/**
 * Replays are new messages linked to the original by `replay_of`: the original's rows, operations
 * and attempts are never rewritten, so the audit trail keeps every try.
 */
@Injectable()
export class ReplayMessage {
  private readonly logger = new Logger('Replay');

  constructor(
    private readonly messages: MessageRepository,
    private readonly operations: OperationRepository,
    private readonly queues: MessageQueues,
    private readonly partners: PartnerRepository,
  ) {}

  async replay(messageId: string, request: ReplayRequest): Promise<Message> {
    const original = await this.messages.findById(messageId);
    if (!original) {
      throw new ReplayError('not-found', `message ${messageId} does not exist`);
    }
    return this.replayOf(original, request);
  }

  /** What a replay of `original` would send, or the ReplayError that refuses it; nothing recorded. */
  private async prepare(original: Message, request: ReplayRequest): Promise<ReplayPayload> {
    if (original.metadata?.refusedAtIngress) {
      throw new ReplayError(
        'not-replayable',
        `message ${original.id} was refused at ingress (${original.statusReason ?? 'not verified'}): it was never accepted, so it cannot be replayed`,
      );
    }
    if (original.channel === 'export') {
      throw new ReplayError(
        'not-replayable',
        `message ${original.id} is a bookings export (a file dockbridge wrote, not one a partner sent): run the export again instead`,
      );
    }
    const prepared = await this.payloadFor(original, request);
    if (!resendsAsIs(request) && JSON_CONTENT_TYPES.has(prepared.contentType)) {
      // An edited or rebuilt payload: held to the limits of any JSON body, weighed anew for admission.
      const { values, problem } = await inspectJson(prepared.rawPayload);
      if (problem) {
        throw new ReplayError('invalid-payload', 'the edited payload is refused', [problem.reason]);
      }
      prepared.jsonValues = values;
    }
    if (request.payload !== undefined && prepared.contentType === CANONICAL_CONTENT_TYPE) {
      await this.checkEdited(original, prepared.rawPayload, request.overrideOrganisations === true);
    }
    return prepared;
  }

  private async replayOf(original: Message, request: ReplayRequest, runId?: string): Promise<Message> {
    const { rawPayload, contentType, payloadFile, jsonValues } = await this.prepare(original, request);
    // The original's count is the replay's when it resends the same payload; another was counted anew.
    const { jsonValues: originalValues, ...facts } = ownFactsOnly(original.metadata);
    const values = resendsAsIs(request) ? originalValues : jsonValues;
    const replay = await this.messages.record({
      partnerId: original.partnerId,
      channel: 'replay',
      rawPayload,
      // The same stored file, so the same bytes.
      ...(payloadFile && { sha256: original.sha256 }),
      contentType,
      replayOf: original.id,
      metadata: {
        ...facts,
        ...(values !== undefined && { jsonValues: values }),
        ...(payloadFile && { payloadFile }),
        ...(request.mapping === 'current' && { mappingVersion: 'current' }),
        ...(!request.force && { orderArrival: await this.messages.orderArrivalOf(original.id) }),
        replay: {
          mode: request.mode,
          edited: request.payload !== undefined,
          by: request.actor,
          reason: request.reason ?? null,
          mapping: request.mapping ?? 'original',
          ...(request.overrideOrganisations && { organisationOverride: true }),
          ...(request.force && { force: true }),
          // The bulk replay run that made it: an interrupted run finds what it already replayed.
          ...(runId && { run: runId }),
        },
      },
      actor: request.actor,
    });
    if (request.overrideOrganisations) {
      this.logger.warn({
        msg: "replay may act outside the partner's organisations (operator override)",
        messageId: replay.id,
        replayOf: original.id,
        partnerId: original.partnerId,
        by: request.actor,
        reason: request.reason ?? null,
      });
    }
    await this.queues.tryEnqueueTranslate([translateJobOf(replay.id)]);
    return replay;
  }

  /**
   * The dry run of a bulk replay: every message the filter matches (at most BULK_REPLAY_LIMIT;
   * `limitReached` says when more matched), decided as the real run decides (`replayEach`), nothing
   * recorded. Its `replayable` are the messages the real run would replay.
   */
  async dryRun(
    filter: MessageFilter,
    request: BulkReplayRequest,
  ): Promise<{ replayable: string[]; skipped: { id: string; reason: string }[]; limitReached: boolean }> {
    const replayable: string[] = [];
    const skipped: { id: string; reason: string }[] = [];
    let cursor: string | null = null;
    do {
      const room = BULK_REPLAY_LIMIT - replayable.length - skipped.length;
      const page = await this.messages.search({ ...filter, limit: Math.min(500, room), cursor, oldestFirst: true });
      for (const outcome of await this.replayEach(page.items, request, { dryRun: true })) {
        if ('skipped' in outcome) {
          skipped.push({ id: outcome.id, reason: outcome.skipped });
        } else {
          replayable.push(outcome.id);
        }
      }
      if (page.nextCursor && page.items.length === room) {
        return { replayable, skipped, limitReached: true };
      }
      cursor = page.nextCursor;
    } while (cursor);
    return { replayable, skipped, limitReached: false };
  }

  /**
   * Replays these messages one by one, skipping with the reason those that cannot be replayed and
   * those whose latest replay was delivered (a second booking.create would book twice) unless
   * `includeReplayed`. A dry run makes every same decision and records nothing. `runId` is recorded
   * on each replay (`metadata.replay.run`).
   */
  async replayEach(
    items: readonly Pick<MessageSummary, 'id'>[],
    request: BulkReplayRequest,
    options: { dryRun?: boolean; runId?: string } = {},
  ): Promise<BulkReplayOutcome[]> {
    const latest = request.includeReplayed ? new Map() : await this.messages.latestReplays(items.map((m) => m.id));
    const outcomes: BulkReplayOutcome[] = [];
    for (const { id } of items) {
      const done = latest.get(id);
      if (done?.status === 'delivered') {
        outcomes.push({
          id,
          skipped: `already replayed: replay ${done.id} was delivered (includeReplayed: true replays it again)`,
        });
        continue;
      }
      try {
        const original = await this.messages.findById(id);
        if (!original) {
          throw new ReplayError('not-found', `message ${id} no longer exists (retention removed it)`);
        }
        if (options.dryRun) {
          await this.prepare(original, request);
        }
        outcomes.push({
          id,
          replayId: options.dryRun ? id : (await this.replayOf(original, request, options.runId)).id,
        });
      } catch (error) {
        if (!(error instanceof ReplayError)) {
          throw error;
        }
        outcomes.push({ id, skipped: error.message });
      }
    }
    return outcomes;
  }

  /** An edited canonical payload is held to what `POST /v1/messages` accepts: refused here, nothing recorded. */
  private async checkEdited(original: Message, rawPayload: string, overrideOrganisations: boolean): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawPayload);
    } catch (error) {
      throw new ReplayError('invalid-payload', 'the edited payload is not JSON', [(error as Error).message]);
    }
    const check = await checkCanonicalMessageInTurns(parsed, undefined, rawPayload);
    if (!check.ok) {
      throw new ReplayError('invalid-payload', 'the edited payload is not a valid message', check.problems);
    }
    if (overrideOrganisations) {
      return;
    }
    const partner = await this.partners.findById(original.partnerId);
    const outside = partner
      ? organisationScopeProblems(check.operations, organisationsOf(partner))
      : [`partner ${original.partnerId} does not exist`];
    if (outside.length) {
      throw new ReplayError(
        'invalid-payload',
        `the edited payload acts outside the organisations partner ${original.partnerId} may act on (overrideOrganisations: true delivers it anyway, recorded)`,
        outside,
      );
    }
  }

  private async payloadFor(original: Message, request: ReplayRequest): Promise<ReplayPayload> {
    if (request.payload !== undefined) {
      return { rawPayload: request.payload, contentType: original.contentType };
    }
    if (request.mode === 'rerun') {
      // An upload's payload is its stored file: the replay points at it too, never a copy.
      const payloadFile = original.metadata?.payloadFile;
      return {
        rawPayload: original.rawPayload,
        contentType: original.contentType,
        ...(payloadFile && { payloadFile }),
      };
    }
    // Weighed as they are read, and read no further past what one replay may carry: the failed
    // operations of a 100 MiB file are ~1 GB of objects parsed.
    const failed = await this.operations.failedOperationsJson(original.id, MAX_REPLAY_WEIGHT);
    if ('over' in failed) {
      throw new ReplayError(
        'not-replayable',
        `message ${original.id} has ${failed.failed} failed operations, more than one replay may carry ` +
          `(over ${mib(MAX_REPLAY_WEIGHT)} MiB of payload): rerun it (mode rerun), or replay an edited payload of some of them`,
      );
    }
    // A refused EDI set has no operation to retry: the file itself must be re-run once the cause is fixed.
    if (failed.count === 0) {
      throw new ReplayError(
        'nothing-to-retry',
        `message ${original.id} has no failed operations to retry${original.contentType === CANONICAL_CONTENT_TYPE ? '' : ' (refused EDI sets are replayed with mode rerun)'}`,
      );
    }
    // Built from the stored texts, none parsed: it is checked (inspectJson) and counted like any body.
    return { rawPayload: `{"operations":${failed.json}}`, contentType: CANONICAL_CONTENT_TYPE };
  }
}

/**
 * What the failed operations a replay retries may weigh (parsedWeightOf): a message of the most
 * values a body may hold (JSON_BODY_LIMITS), weighed as the worker's payload budget weighs it.
 */
export const MAX_REPLAY_WEIGHT = JSON_BODY_LIMITS.maxValues * BUDGET_BYTES_PER_VALUE;

const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

const JSON_CONTENT_TYPES = new Set([CANONICAL_CONTENT_TYPE, WEBHOOK_CONTENT_TYPE]);

/** A rerun without an edit sends the original's payload (its bytes, its count); the others build or take a new one. */
const resendsAsIs = (request: ReplayRequest) => request.payload === undefined && request.mode === 'rerun';

/**
 * The original's metadata without what belonged to its receipt alone: its idempotency key (a replay
 * is not the partner's request again), its ingress job, its interchanges (the replay's own
 * translation records those it carries; an edited payload may carry none), and what an earlier
 * replay decided (its operator's choices and place in arrival order), its operations' counts and how
 * its translation went (a replay is translated, and verified, anew); its
 * payload file is the replay's only when the replay resends it unchanged (`payloadFor`).
 */
function ownFactsOnly({
  idempotencyKey: _key,
  payloadFile: _file,
  ingressJob: _job,
  interchanges: _interchanges,
  replay: _replay,
  orderArrival: _order,
  operationCounts: _counts,
  translationRun: _run,
  translationRequeues: _requeues,
  deliveredWhileTranslating: _delivering,
  operationsThrough: _through,
  abandoning: _abandoning,
  ...metadata
}: MessageMetadata): MessageMetadata {
  return metadata;
}
