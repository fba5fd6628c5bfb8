import {
  InterchangeRepository,
  isUnsettled,
  Message,
  MessageMetadata,
  MessageRepository,
  type MessageSummary,
  OperationRepository,
  type PlanEntry,
  StreamedWriteTakenOverError,
} from '@dockbridge/audit';
import { orderKeyOf, organisationScopeProblems, targetOf } from '@dockbridge/mapping';
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  organisationsOf,
  PartnerMappingRepository,
  type PartnerProfile,
  PartnerRepository,
} from '@dockbridge/partners';
import { MessageQueues } from '../message-queues';
import { ACKNOWLEDGMENT_OUTBOX, TRANSLATE_OPTIONS } from '../pipeline.options';
import { batchJobId, deliverJobId, QUEUES } from '../queues';
import { DeliveryPlan, DeliveryPlanner, dropSupersededWrites } from './delivery-plan';
import { PipelineMetrics } from '../pipeline-metrics';
import { MessagePayloads } from './message-payloads';
import { Slots } from './slots';
import { PayloadBudget, textBudgetOf } from '../payload-budget';
import { STREAM_BATCH, STREAM_BATCH_WEIGHT, StoredOperations } from './stored-operations';
import {
  Acknowledgment,
  AcknowledgmentDraft,
  NoteList,
  OperationSink,
  StreamedTranslation,
  streamX12,
  Translation,
  TranslationContext,
  TRANSLATORS,
  X12_CONTENT_TYPE,
} from './translators';

export interface TranslateOptions {
  batchThreshold: number;
  batchSize: number;
  /** Body bytes a batch job stays under (default: delivery.batchMaxBytes' default). */
  batchMaxBytes?: number;
  /** Stored files over LARGE_FILE_BYTES this process translates at once (worker.largeFilesAtOnce). */
  largeFilesAtOnce?: number;
  /** X12 payloads over this many bytes are verified by a first read, then delivered as they are translated (default LARGE_FILE_BYTES). */
  deliverWhileTranslatingOver?: number;
}

/** Where acknowledgments go: the partner's outbound folder. */
export interface AcknowledgmentOutbox {
  /** Makes each acknowledgment a file: its text, or the chunks stored for it by a draft. */
  deliver(partnerId: string, messageId: string, acknowledgments: readonly Acknowledgment[]): Promise<void>;
  /** Storage for a 997 too large to hold, written as the sets are read. */
  draft(): AcknowledgmentDraft;
}

/** Messages of one translate job translated at once (each waits on the database most of its time). */
const TRANSLATE_PARALLEL = 4;
/**
 * Default of TranslateOptions.largeFilesAtOnce: each large file translated holds a slice of its file,
 * two batches of operations and a chunk of its 997. Four 100 MiB files took the worker to 219 MiB one at a time,
 * 227 two at a time, for the same time to delivery (the platform's jobs set the pace).
 */
const LARGE_FILES_AT_ONCE = 1;
const LARGE_FILE_BYTES = 16 * 1024 * 1024;
/** Whether a translation refuses its message or any interchange of it (nothing of those is delivered). */
const refusesAny = (translation: StreamedTranslation): boolean =>
  Boolean(translation.rejection) || translation.interchanges.some((i) => i.refused);

/** A verifying read yields no sets. */
const NO_SETS: OperationSink = {
  operation: async () => undefined,
  refusedSet: async () => undefined,
  discardInterchange: async () => undefined,
};

/** Where the acknowledgments of a verifying read go: nowhere (the translation writes them). */
const DISCARDED_ACKNOWLEDGMENT: AcknowledgmentDraft = {
  write: async () => undefined,
  finish: async () => ({ id: '', size: 0, sha256: '' }),
  discard: async () => undefined,
};

const FINAL = new Set(['delivered', 'partially_failed', 'failed', 'rejected', 'duplicate', 'superseded']);

/**
 * Turns a recorded message into operation rows and queues their delivery: translate, acknowledge
 * (997/TA1 to the partner's outbound folder), drop interchanges already received, store one row per
 * operation (and a failed row per refused EDI set), plan and queue. Idempotent: a retried
 * translation finds the rows already stored and queues them again under the same job ids.
 */
@Injectable()
export class TranslateMessage {
  constructor(
    private readonly messages: MessageRepository,
    private readonly operations: OperationRepository,
    private readonly interchanges: InterchangeRepository,
    private readonly partners: PartnerRepository,
    private readonly mappings: PartnerMappingRepository,
    private readonly queues: MessageQueues,
    @Optional() @Inject(ACKNOWLEDGMENT_OUTBOX) private readonly outbox: AcknowledgmentOutbox | null,
    @Inject(TRANSLATE_OPTIONS) private readonly options: TranslateOptions,
    private readonly payloads: MessagePayloads,
    private readonly texts: PayloadBudget,
    @Optional() private readonly metrics?: PipelineMetrics,
  ) {
    this.largeFiles = new Slots(options.largeFilesAtOnce ?? LARGE_FILES_AT_ONCE);
  }

  private readonly largeFiles: Slots;

  /**
   * Translates the messages of one job, TRANSLATE_PARALLEL at a time. One message failing (the
   * database away, say) does not stop the others: the ids that failed come back with the first
   * error, for the job to keep and retry.
   */
  async executeMany(messageIds: readonly string[]): Promise<{ failed: string[]; error?: unknown }> {
    const failed = new Set<string>();
    let error: unknown;
    let next = 0;
    const lane = async () => {
      while (next < messageIds.length) {
        const id = messageIds[next++];
        try {
          await this.execute(id);
        } catch (e) {
          // Another run of it took over (or finished it): that one goes on, this job has nothing to retry.
          if (e instanceof StreamedWriteTakenOverError) {
            continue;
          }
          failed.add(id);
          error ??= e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(TRANSLATE_PARALLEL, messageIds.length) }, lane));
    return { failed: messageIds.filter((id) => failed.has(id)), error };
  }

  /**
   * The last try of a job failed: its messages still waiting to be translated end `failed` with the
   * error, where engineers find and replay them (left `translating`, the sweeper would queue them
   * again for ever).
   */
  async giveUp(messageIds: readonly string[], error: unknown, tries: number): Promise<void> {
    const reason = `translation failed on each of ${tries} tries: ${error instanceof Error ? error.message : String(error)}`;
    for (const id of messageIds) {
      await this.abandon(id, 'worker', reason);
    }
  }

  /**
   * Ends a message whose translation will not finish `failed` (if it is still received or
   * translating), and forgets the interchanges it claimed: the partner's resend of the file is then
   * translated, not taken for a duplicate of this one (a large file delivered while translated claims
   * them before its first set is stored).
   */
  async abandon(messageId: string, actor: 'worker' | 'sweeper', reason: string): Promise<void> {
    const failed = await this.messages.giveUpTranslation(messageId, actor, reason);
    if (failed) {
      await this.cleanUpAbandoned(failed, actor, reason);
    }
  }

  /**
   * What a given-up translation left: its interchange receipts, and the operations it stored that
   * nothing holds (never queued, they would wait for ever and hold the partner's later writes to
   * their documents), ended; those a call or a chunk's job holds settle. The message stays marked
   * `abandoning` until this is done: cut short (the database failed half-way), the sweeper runs it
   * again (each step may run twice).
   */
  async cleanUpAbandoned(
    message: Pick<MessageSummary, 'id' | 'metadata'>,
    actor: 'worker' | 'sweeper',
    reason: string,
  ): Promise<void> {
    await this.interchanges.release(message.id);
    await this.operations.endUnsettled(message.id, `its translation was given up: ${reason}`, true);
    if (message.metadata?.deliveredWhileTranslating) {
      await this.messages.settleMessage(message.id, actor);
    }
    await this.messages.unmark(message.id, 'abandoning');
  }

  /** Translates one message, timed by content type and outcome (PipelineMetrics). */
  async execute(messageId: string): Promise<'queued' | 'rejected' | 'duplicate' | 'skipped'> {
    const release = await this.admit(messageId);
    // Timed from admission: the wait for it is not translation.
    const started = Date.now();
    let contentType = 'unknown';
    const observe = (outcome: string) =>
      this.metrics?.translations.observe({ content_type: contentType, outcome }, (Date.now() - started) / 1000);
    try {
      const outcome = await this.translateOne(messageId, (type) => (contentType = type));
      observe(outcome);
      return outcome;
    } catch (error) {
      observe('failed');
      throw error;
    } finally {
      release();
    }
  }

  /**
   * Waits until this process may hold what translating the message reads: a stored X12 file over
   * LARGE_FILE_BYTES takes one of largeFilesAtOnce (it is streamed: ~10 MiB each), a payload read
   * whole takes its weight of the worker's PayloadBudget; a smaller stored X12 file is streamed and waits for
   * nothing, and so does a message with nothing left to translate (settled, or delivering: a retry
   * only queues what is stored).
   */
  private async admit(messageId: string): Promise<() => void> {
    const size = await this.messages.payloadSize(messageId);
    if (!size || size.status === 'delivering' || FINAL.has(size.status)) {
      return () => undefined;
    }
    if (size.fileBytes !== null && size.contentType === X12_CONTENT_TYPE) {
      return size.fileBytes > LARGE_FILE_BYTES ? this.largeFiles.take() : () => undefined;
    }
    return this.texts.take(textBudgetOf(size));
  }

  private async translateOne(
    messageId: string,
    seen: (contentType: string) => void,
  ): Promise<'queued' | 'rejected' | 'duplicate' | 'skipped'> {
    const found = await this.messages.findById(messageId);
    if (!found || FINAL.has(found.status)) {
      return 'skipped';
    }
    let message = found;
    seen(message.contentType);
    if (message.status === 'received') {
      await this.messages.transition(messageId, 'translating', 'worker');
    }

    if (message.status === 'delivering') {
      // A retry after the rows were written and the message moved on: only the queueing may be missing.
      await this.enqueueStored(message);
      if (!(await this.operations.hasUnsettled(messageId))) {
        await this.messages.settleMessage(messageId, 'worker');
      }
      return 'queued';
    }

    const partner = await this.partners.findById(message.partnerId);
    const context: TranslationContext = {
      partner,
      mapping: (version) =>
        version === 'current'
          ? this.mappings.current(message.partnerId)
          : this.mappings.get(message.partnerId, version),
      nextControlNumber: () => this.interchanges.nextControlNumber(),
      now: new Date(),
      text: () => this.payloads.textOf(message),
      ...(this.outbox && { draftAcknowledgment: () => this.outbox!.draft() }),
    };
    if (message.contentType === X12_CONTENT_TYPE) {
      return this.translateX12(message, partner, context);
    }
    // A stored upload is read as a stream (X12); the other translators take their text whole.
    if (message.metadata?.payloadFile) {
      message = await this.payloads.withText(message);
    }
    const translate = TRANSLATORS[message.contentType];
    const translation: Translation = translate
      ? await translate(message, context)
      : {
          operations: [],
          refused: [],
          acknowledgments: [],
          interchanges: [],
          rejection: `no translator for content type ${message.contentType}`,
        };

    await this.acknowledgeAndRecord(message, translation);
    const scope = organisationScope(message, partner, scopeProblemsOf(partner, translation));
    const rejection = translation.rejection ?? scope.rejection;
    if (rejection) {
      await this.messages.transition(messageId, 'rejected', 'worker', rejection);
      return 'rejected';
    }

    // A replay re-sends an interchange on purpose: it is not a duplicate of its original.
    const keys = message.replayOf ? [] : translation.interchanges.filter((i) => !i.refused).map((i) => i.key);
    const duplicates = await this.interchanges.claim(
      message.partnerId,
      keys,
      messageId,
      translation.duplicateWindowDays ?? 30,
    );
    const { kept: operations, notes: superseded } = dropSupersededWrites(
      translation.operations.filter((o) => !o.interchangeKey || !duplicates.has(o.interchangeKey)),
    );
    const notes = [...(translation.notes ?? []), ...superseded, ...scope.notes];
    if (duplicates.size > 0 && duplicates.size === keys.length) {
      await this.messages.transition(
        messageId,
        'duplicate',
        'worker',
        `interchange ${[...duplicates].join(', ')} was received before; not delivered again`,
      );
      return 'duplicate';
    }

    await this.operations.addMany(messageId, [
      ...operations.map(({ operation }) => ({
        kind: operation.kind,
        organisationId: operation.organisationId,
        targetId: targetOf(operation),
        orderKey: orderKeyOf(operation),
        payload: operation,
      })),
      ...translation.refused.map((unit) => ({
        kind: unit.kind,
        organisationId: unit.organisationId,
        targetId: unit.targetId,
        payload: { kind: unit.kind, refused: unit.description },
        failed: { lastError: unit.reason },
      })),
    ]);
    await this.messages.transition(messageId, 'delivering', 'worker', notes.length ? notes.join('; ') : null);
    await this.enqueueStored(message, partner);
    if (!(await this.operations.hasUnsettled(messageId))) {
      await this.messages.settleMessage(messageId, 'worker');
    }
    return 'queued';
  }

  /**
   * X12: the operations are stored batch by batch as the file is read (StoredOperations), so a file
   * of any size is translated in flat memory; nothing is queued until the last batch is stored, and
   * a translation interrupted half-way starts again from the first (beginStreamedWrite removes what
   * it stored), so no operation is stored or delivered twice.
   */
  private async translateX12(
    message: Message,
    partner: PartnerProfile | null,
    context: TranslationContext,
  ): Promise<'queued' | 'rejected' | 'duplicate'> {
    if (partner && (message.metadata?.deliveredWhileTranslating || (await this.verified(message, partner, context)))) {
      return this.translateX12Delivering(message, partner, context);
    }
    const messageId = message.id;
    const run = await this.operations.beginStreamedWrite(messageId);
    const stored = new StoredOperations(
      this.operations,
      messageId,
      run,
      partner ? organisationsOf(partner) : new Set<string>(),
    );
    const translation = await streamX12(message, context, stored);
    await stored.flush();
    await this.acknowledgeAndRecord(message, translation);
    const scope = organisationScope(message, partner, stored.scopeProblems());
    const rejection = translation.rejection ?? scope.rejection;
    if (rejection) {
      await stored.removeAll();
      await this.messages.transition(messageId, 'rejected', 'worker', rejection);
      return 'rejected';
    }
    // A replay re-sends an interchange on purpose: it is not a duplicate of its original.
    const keys = message.replayOf ? [] : translation.interchanges.filter((i) => !i.refused).map((i) => i.key);
    const duplicates = await this.interchanges.claim(
      message.partnerId,
      keys,
      messageId,
      translation.duplicateWindowDays ?? 30,
    );
    if (duplicates.size > 0 && duplicates.size === keys.length) {
      await stored.removeAll();
      await this.messages.transition(
        messageId,
        'duplicate',
        'worker',
        `interchange ${[...duplicates].join(', ')} was received before; not delivered again`,
      );
      return 'duplicate';
    }
    await stored.removeInterchanges(duplicates);
    await stored.storeRefused(translation.refused);
    const superseded = await this.operations.removeSupersededWrites(messageId);
    const notes = new NoteList();
    notes.add(translation.notes ?? [], superseded, scope.notes);
    const reason = notes.list;
    const moved = await this.messages.transition(
      messageId,
      'delivering',
      'worker',
      reason.length ? reason.join('; ') : null,
      ['translating'],
      run,
    );
    if (moved.status !== 'delivering') {
      throw new StreamedWriteTakenOverError(messageId); // another run took it over: that one finishes it
    }
    await this.enqueueStored(message, partner);
    if (!(await this.operations.hasUnsettled(messageId))) {
      await this.messages.settleMessage(messageId, 'worker');
    }
    return 'queued';
  }

  /**
   * Whether a large X12 file may be delivered as it is translated: its envelopes read whole once
   * (nothing mapped or stored), no interchange is refused (at its end, or its sender) and none was
   * received before (claimed now, as translateX12 claims them at its end). Refusals are the
   * envelopes' alone (an X12 operation acts on its partner's own location: it is never out of
   * scope), so nothing found later can undo what was delivered. Marked so (a translation taken up
   * again goes on where it stopped), it is translated by translateX12Delivering: the first documents
   * of a 100 MiB file reach the platform seconds after it arrived, not once its last set is stored.
   */
  private async verified(message: Message, partner: PartnerProfile, context: TranslationContext): Promise<boolean> {
    // The stored file's bytes, or the payload's characters (admit() asked the database already).
    const size = message.metadata?.payloadFile ? (message.metadata.size ?? 0) : message.rawPayload.length;
    if (size <= (this.options.deliverWhileTranslatingOver ?? LARGE_FILE_BYTES)) {
      return false;
    }
    // Nothing of this read is kept: its acknowledgments are written again (and numbered) by the translation.
    const translation = await streamX12(
      message,
      { ...context, nextControlNumber: async () => 1, draftAcknowledgment: () => DISCARDED_ACKNOWLEDGMENT },
      NO_SETS,
      true,
    );
    if (refusesAny(translation)) {
      return false;
    }
    const keys = message.replayOf ? [] : translation.interchanges.map((i) => i.key);
    const duplicates = await this.interchanges.claim(
      message.partnerId,
      keys,
      message.id,
      translation.duplicateWindowDays ?? 30,
    );
    // A duplicate is dropped by translateX12 (claimed by this message now: the same answer then).
    return duplicates.size === 0;
  }

  /**
   * A verified large X12 file (verified()): each batch of operations is planned and its complete
   * chunks queued as soon as it is stored, while the rest is read. A translation taken up again
   * keeps what the ones before it stored (its chunks were queued: they may be at the platform),
   * plans it first so that its chunks are the same jobs, and stores from the next set on.
   */
  private async translateX12Delivering(
    message: Message,
    partner: PartnerProfile,
    context: TranslationContext,
  ): Promise<'queued'> {
    const messageId = message.id;
    const { run, storedThrough, lastTarget, lastRefused } = await this.operations.beginDeliveringWrite(messageId);
    const planner = await this.planner(message, partner);
    const plan = async (entries: PlanEntry[]) => {
      planner.addAll(entries);
      await this.enqueuePlan(planner.takeReady(), false);
    };
    for await (const page of this.operations.planEntryPages(messageId)) {
      await plan(page);
    }
    const stored = new StoredOperations(
      this.operations,
      messageId,
      run,
      organisationsOf(partner),
      STREAM_BATCH,
      STREAM_BATCH_WEIGHT,
      plan,
    );
    stored.resumeAfter(storedThrough, lastTarget, lastRefused);
    const translation = await streamX12(message, context, stored);
    await stored.flush();
    if (refusesAny(translation) || stored.lastSeq < storedThrough) {
      // What is stored may be at the platform: it stays, and the translation fails (the partner's settings changed?).
      throw new Error(
        `message ${messageId} no longer reads as it did when its first operations were delivered: ${translation.rejection ?? 'an interchange is refused now'}`,
      );
    }
    await this.messages.annotate(messageId, { operationsThrough: stored.lastSeq });
    await this.acknowledgeAndRecord(message, translation);
    await stored.storeRefused(translation.refused);
    const notes = new NoteList();
    notes.add(translation.notes ?? [], organisationScope(message, partner, stored.scopeProblems()).notes);
    const moved = await this.messages.transition(
      messageId,
      'delivering',
      'worker',
      notes.list.length ? notes.list.join('; ') : null,
      ['translating'],
      run,
    );
    if (moved.status !== 'delivering') {
      throw new StreamedWriteTakenOverError(messageId); // given up meanwhile, or finished by another run
    }
    await this.enqueuePlan(planner.plan(), false);
    if (!(await this.operations.hasUnsettled(messageId))) {
      await this.messages.settleMessage(messageId, 'worker');
    }
    return 'queued';
  }

  /** Writes the 997/TA1s to the partner's outbound folder and records what the message is found by. */
  private async acknowledgeAndRecord(message: Message, translation: Omit<Translation, 'operations'>): Promise<void> {
    if (this.outbox) {
      await this.outbox.deliver(message.partnerId, message.id, translation.acknowledgments);
    }
    // What the message is found and replayed by: the mapping version (webhooks); the interchanges, refused
    // ones too, for the ISA13 a carrier quotes (MessageFilter.interchange).
    const facts: MessageMetadata = {};
    if (translation.mappingVersion !== undefined) {
      facts.mappingVersion = translation.mappingVersion;
    }
    if (translation.interchanges.length > 0) {
      facts.interchanges = translation.interchanges.map((i) => ({
        sender: i.senderId,
        control: i.control,
        refused: i.refused,
      }));
    }
    if (Object.keys(facts).length > 0) {
      await this.messages.annotate(message.id, facts);
    }
  }

  /**
   * Queues delivery of the message's stored operations still to deliver, under their stable job ids,
   * read a page at a time without their payloads: a batch is queued as soon as its chunk is
   * complete, before the last page is read. With `redrive`, finished jobs whose operations never
   * settled (lost with a Redis restart) are removed first, so they can be queued again; live jobs
   * are left alone (same id: BullMQ adds nothing). The batch threshold is the partner's
   * `settings.batchThreshold`, else `delivery.batchThreshold`. Answers how many it planned: 0 when
   * nothing is left to deliver.
   */
  async enqueueStored(
    message: Pick<Message, 'id' | 'partnerId'>,
    partner?: PartnerProfile | null,
    redrive = false,
  ): Promise<number> {
    const planner = await this.planner(message, partner);
    let planned = 0;
    for await (const page of this.operations.planEntryPages(message.id)) {
      planner.addAll(page);
      planned += page.filter((op) => isUnsettled(op.status)).length;
      await this.enqueuePlan(planner.takeReady(), redrive);
    }
    await this.enqueuePlan(planner.plan(), redrive);
    return planned;
  }

  private async planner(message: Pick<Message, 'id' | 'partnerId'>, partner?: PartnerProfile | null) {
    const profile = partner === undefined ? await this.partners.findById(message.partnerId) : partner;
    return new DeliveryPlanner(
      message.id,
      profile?.settings.batchThreshold ?? this.options.batchThreshold,
      this.options.batchSize,
      this.options.batchMaxBytes,
    );
  }

  private async enqueuePlan(plan: DeliveryPlan, redrive: boolean): Promise<void> {
    if (redrive) {
      await this.queues.removeFinishedMany(QUEUES.deliver, plan.single.map(deliverJobId));
      await this.queues.removeFinishedMany(
        QUEUES.batch,
        plan.batches.map((batch) => batchJobId(batch.operationIds)),
      );
    }
    await this.queues.enqueueDeliveries(plan.single);
    for (const batch of plan.batches) {
      await this.queues.enqueueBatch(batch);
    }
  }
}

/**
 * Whether a translation stays within the organisations its partner may act on (organisationsOf):
 * mapped webhooks and replays are checked here, as `POST /v1/messages` is at ingress. An operator's
 * replay with `overrideOrganisations` goes through, and says so in the message's events.
 */
function organisationScope(
  message: Message,
  partner: PartnerProfile | null,
  problems: readonly string[],
): { rejection?: string; notes: string[] } {
  if (!partner) {
    return { rejection: `partner ${message.partnerId} does not exist: nothing can be delivered for it`, notes: [] };
  }
  if (problems.length === 0) {
    return { notes: [] };
  }
  const replay = message.metadata?.replay;
  if (message.channel === 'replay' && replay?.organisationOverride === true) {
    return {
      notes: [`organisation scope of partner ${partner.id} overridden by ${replay.by}: ${problems.join('; ')}`],
    };
  }
  return {
    rejection: `operations outside the organisations partner ${partner.id} may act on: ${problems.join('; ')}`,
    notes: [],
  };
}

/** The operations of a whole translation on organisations the partner may not act on. */
function scopeProblemsOf(partner: PartnerProfile | null, translation: Translation): string[] {
  return partner
    ? organisationScopeProblems(
        translation.operations.map((o) => o.operation),
        organisationsOf(partner),
      )
    : [];
}
