import { setTimeout as sleep } from 'node:timers/promises';
import { AttemptRecord, BatchEntry, isUnsettled, MessageRepository, OperationRepository } from '@dockbridge/audit';
import {
  DocumentJob,
  DocumentJobResultEntry,
  PlatformAccounts,
  PlatformCallError,
  PlatformClient,
  type ReferenceOptions,
} from '@dockbridge/platform';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { MessageQueues } from '../message-queues';
import { BATCH_OPTIONS } from '../pipeline.options';
import { PipelineMetrics } from '../pipeline-metrics';
import type { BatchJobData } from '../queues';
import { RetryPolicy } from '../retry-policy';
import { type DeliveryTry, orderWaitMs } from './deliver-operation';

/** A claimed chunk's lease on its documents: the longest wait for its platform job and a margin for the rest. */
const BATCH_LEASE_MARGIN_MS = 60_000;

/** A document's share of a batch upload at the slowest rate the client allows (~2 KiB at 1 MiB/s), with room. */
const UPLOAD_MS_PER_DOCUMENT = 3;
/** Operations of a chunk passed through the gate in one statement (its verdicts parsed in one go: see claim). */
const GATE_PAGE = 2_000;
/** How far the platform's clock may be behind ours when matching a job's createdAt. */
const CLOCK_SKEW_MS = 60_000;

export interface BatchOptions {
  /** How long a submit without an answer may still land, besides its upload: twice the platform timeout. */
  unknownOutcomeMs: number;
  pollMs: number;
  /** Longest wait for one platform job before the try counts as a (retryable) timeout. */
  maxWaitMs: number;
}

/**
 * Delivers a chunk of document upserts (or deletes) of one message and location through a platform
 * document job: submit once (the job id is kept on the queue job, so a retry polls instead of
 * submitting again), poll until completedAt, then settle each operation from its result entry.
 */
@Injectable()
export class DeliverBatch {
  constructor(
    private readonly messages: MessageRepository,
    private readonly operations: OperationRepository,
    private readonly accounts: PlatformAccounts,
    private readonly queues: MessageQueues,
    @Inject(BATCH_OPTIONS) private readonly options: BatchOptions,
    @Optional() private readonly metrics?: PipelineMetrics,
  ) {}

  /**
   * `remember` keeps what a retry must know on the queue job: the platform job's id, the operations
   * it carries. `chunk` names the chunk (chunkOfBatchJob): the operations are claimed in its name.
   */
  async execute(
    data: BatchJobData,
    attempt: DeliveryTry,
    remember: (patch: Partial<BatchJobData>) => Promise<void>,
    chunk: string,
  ): Promise<{ delivered: number; failed: number } | { deferMs: number }> {
    // data.operationIds is what the platform job was submitted with, once it was: its results match them by position.
    let submitted = await this.operations.batchEntriesOf(data.operationIds);
    let open = submitted.filter((op) => isUnsettled(op.status));
    if (open.length === 0) {
      return { delivered: 0, failed: 0 };
    }
    // A submit that got no answer may have made a job: until it is found, or surely never made, the
    // list it was made with stands and the documents stay this batch's (no gate, no new list).
    const submittedBefore = Boolean(data.platformJobId ?? data.submittedAt);
    if (!submittedBefore) {
      // Behind a message its partner sent before, not yet translated: the whole chunk waits (not each document alone).
      if (await this.operations.behindUntranslated(data.messageId)) {
        return { deferMs: orderWaitMs(attempt) };
      }
      open = submitted = await this.claim(data, open, remember, chunk);
      if (open.length === 0) {
        return { delivered: 0, failed: 0 };
      }
    }
    const startedAt = new Date();
    const client = this.accounts.clientFor(data.organisationId);
    // A platform job may exist and still apply the documents: their claims are kept through a failure.
    let jobMayRun = submittedBefore;
    try {
      if (!client) {
        throw new PlatformCallError(
          'auth',
          'submit job',
          `no platform account is configured for organisation ${data.organisationId}`,
        );
      }
      let jobId =
        data.platformJobId ?? (data.submittedAt ? await this.findSubmitted(client, data, submitted.length) : undefined);
      // Found among the organisation's jobs by its size: another chunk's job may have the same size.
      const listed = data.platformJobId ? data.jobFromListing === true : jobId !== undefined;
      if (jobId) {
        // Polling the job it submitted (a retry): the documents stay this batch's while the job may still apply them.
        await this.operations.extendClaims(
          open.map((op) => op.id),
          this.leaseMs,
          chunk,
        );
      } else {
        if (submittedBefore) {
          // The earlier submit surely made no job: the chunk is submitted anew, through the gate as a new one.
          open = submitted = await this.claim(data, open, remember, chunk);
          if (open.length === 0) {
            return { delivered: 0, failed: 0 };
          }
        }
        // Remembered first: if no answer comes, the retry looks for the job before making another.
        await remember({ submittedAt: new Date().toISOString() });
        jobMayRun = true;
        try {
          jobId = (await this.submit(client, data, open)).id;
        } catch (error) {
          // An answer (a 502 'could not be queued', a 400) means no job was made: nothing to look for.
          if (error instanceof PlatformCallError && error.status !== undefined) {
            await remember({ submittedAt: undefined });
            jobMayRun = false;
          }
          throw error;
        }
      }
      await remember({ platformJobId: jobId, ...(listed && { jobFromListing: true }) });
      const job = await this.waitFor(client, data.organisationId, jobId);
      if (job.status === 'Cancelled' && !listed) {
        await remember({ platformJobId: undefined, submittedAt: undefined });
        jobMayRun = false;
        throw new PlatformCallError(
          'retryable',
          'batch job',
          `platform job ${jobId} was cancelled; it will be submitted again`,
        );
      }
      const entries = job.status === 'Cancelled' ? [] : await client.getJobResult(data.organisationId, jobId);
      // A cancelled job found by its size may be another chunk's: this chunk's own may still run.
      const stranger = !listed
        ? undefined
        : job.status === 'Cancelled'
          ? 'it was cancelled'
          : strangerIn(submitted, entries);
      if (stranger) {
        // Settling by its results would mark documents delivered that it never carried.
        await remember({
          platformJobId: undefined,
          jobFromListing: undefined,
          notThisChunks: [...(data.notThisChunks ?? []), jobId],
        });
        throw new PlatformCallError(
          'retryable',
          'batch job',
          `platform job ${jobId}, found by its size, may be another chunk's (${stranger}): looking for this chunk's own job again`,
        );
      }
      this.metrics?.calls.observe(
        { kind: `batch ${data.kind}`, outcome: 'success' },
        (Date.now() - startedAt.getTime()) / 1000,
      );
      return await this.settle(submitted, entries, data, startedAt, jobId);
    } catch (error) {
      const failure =
        error instanceof PlatformCallError
          ? error
          : new PlatformCallError('retryable', 'batch job', (error as Error)?.message ?? String(error));
      const durationMs = Date.now() - startedAt.getTime();
      this.metrics?.calls.observe({ kind: `batch ${data.kind}`, outcome: failure.errorClass }, durationMs / 1000);
      const final = !failure.retryable || attempt.isLast;
      const settlement = final
        ? ({ status: 'failed', lastError: failure.reason, errorClass: failure.errorClass } as const)
        : undefined;
      await this.operations.recordAttempts(
        open.map((op) => ({
          operationId: op.id,
          startedAt,
          durationMs,
          httpStatus: failure.status ?? null,
          outcome: failure.errorClass,
          error: failure.reason,
          requestSummary: `batch ${data.kind}`,
          settlement,
        })),
        jobMayRun ? this.leaseMs : undefined,
      );
      if (final) {
        await this.messages.settleMessage(data.messageId, 'worker');
      }
      throw RetryPolicy.toJobError(failure, final);
    }
  }

  private get leaseMs(): number {
    return this.options.maxWaitMs + BATCH_LEASE_MARGIN_MS;
  }

  /**
   * Passes the chunk through the gate (newest write wins, per document): what may go now stays in
   * the job; a write superseded by a newer delivered one is settled without being sent; one that
   * must wait for an older write to its document leaves the job for single delivery, which waits.
   */
  private async claim(
    data: BatchJobData,
    open: BatchEntry[],
    remember: (patch: Partial<BatchJobData>) => Promise<void>,
    chunk: string,
  ): Promise<BatchEntry[]> {
    // A page at a time, each page's verdicts sorted out before the next is asked for: the driver
    // parses a statement's rows in one go, and 25,000 verdicts, or sorting them all at once, held the
    // worker's event loop ~100 ms. Each operation's verdict is its own (a chunk holds one write a document).
    const kept: BatchEntry[] = [];
    const waiting: string[] = [];
    let superseded = false;
    for (let from = 0; from < open.length; from += GATE_PAGE) {
      const page = open.slice(from, from + GATE_PAGE);
      const going = new Set<string>();
      for (const verdict of await this.operations.gateChunk(
        page.map((op) => op.id),
        this.leaseMs,
        chunk,
      )) {
        if (verdict.verdict === 'go') {
          going.add(verdict.id);
        } else if (verdict.verdict === 'wait') {
          waiting.push(verdict.id);
        } else if (verdict.verdict === 'superseded') {
          superseded = true;
        }
      }
      for (const op of page) {
        if (going.has(op.id)) {
          kept.push(op);
        }
      }
    }
    if (kept.length < data.operationIds.length) {
      await remember({ operationIds: kept.map((op) => op.id) });
    }
    await this.queues.enqueueDeliveries(waiting);
    if (superseded) {
      await this.messages.settleMessage(data.messageId, 'worker');
    }
    return kept;
  }

  /**
   * The job an earlier submit without an answer (a timeout, a reset) may have made: the platform
   * lists an organisation's jobs, and the one created since that submit for as many documents is
   * it. Until the earlier request has surely landed or failed (twice the submit's timeout), a miss
   * is not a reason to submit again: the try fails as retryable and looks again.
   */
  private async findSubmitted(
    client: PlatformClient,
    data: BatchJobData,
    documentCount: number,
  ): Promise<string | undefined> {
    const submittedAt = Date.parse(data.submittedAt!);
    const jobs = await client.listJobs(data.organisationId);
    // The job made since the submit first (the earliest: the submit made it then); one made within the
    // clock skew before it only when there is none, the nearest first: the others are older jobs of
    // the same size, another message's among them.
    const made = jobs
      .map((job) => ({ id: job.id, after: Date.parse(job.createdAt) - submittedAt, count: job.documentCount }))
      .filter(
        (job) => job.after >= -CLOCK_SKEW_MS && job.count === documentCount && !data.notThisChunks?.includes(job.id),
      )
      .sort((a, b) =>
        a.after >= 0 !== b.after >= 0 ? (a.after >= 0 ? -1 : 1) : Math.abs(a.after) - Math.abs(b.after),
      )[0];
    if (made) {
      return made.id;
    }
    if (
      Date.now() - Date.parse(data.submittedAt!) <
      this.options.unknownOutcomeMs + documentCount * UPLOAD_MS_PER_DOCUMENT
    ) {
      throw new PlatformCallError(
        'retryable',
        'submit job',
        `the earlier submit of this batch got no answer and its job is not listed yet; looking again before submitting anew`,
      );
    }
    return undefined;
  }

  /** The body is read from the operation rows as it is sent: a batch of 25,000 documents is never held whole. */
  private async submit(client: PlatformClient, data: BatchJobData, open: BatchEntry[]): Promise<DocumentJob> {
    const ids = open.map((op) => op.id);
    if (data.kind === 'document.delete') {
      const documentIds: string[] = [];
      for await (const json of this.operations.jsonOf(ids, 'documentId')) {
        documentIds.push(JSON.parse(json) as string);
      }
      return client.submitDeleteJob(data.organisationId, documentIds);
    }
    const bytes = open.reduce((sum, op) => sum + op.bytes + 1, 2);
    return client.submitUpsertJob(
      data.organisationId,
      { json: this.operations.jsonOf(ids, 'document'), bytes },
      (open[0].options ?? {}) as ReferenceOptions,
    );
  }

  private async waitFor(client: PlatformClient, organisationId: string, jobId: string): Promise<DocumentJob> {
    const deadline = Date.now() + this.options.maxWaitMs;
    for (;;) {
      const job = await client.getJob(organisationId, jobId);
      if (job.completedAt) {
        return job;
      }
      if (Date.now() > deadline) {
        throw new PlatformCallError(
          'retryable',
          'poll job',
          `platform job ${jobId} not finished after ${this.options.maxWaitMs} ms`,
        );
      }
      await sleep(this.options.pollMs);
    }
  }

  /** Result entries come in submission order; each settles the operation at its position, if still open. */
  private async settle(
    submitted: BatchEntry[],
    entries: DocumentJobResultEntry[],
    data: BatchJobData,
    startedAt: Date,
    jobId: string,
  ) {
    const durationMs = Date.now() - startedAt.getTime();
    // Settled since the submit (its claim lapsed and another job delivered it): nothing to record.
    const open = submitted.flatMap((op, i) => (isUnsettled(op.status) ? [{ op, i }] : []));
    const attempts: AttemptRecord[] = open.map(({ op, i }) => {
      const entry = entries[i];
      // A delete of a document that is not there has reached its goal.
      const ok =
        entry &&
        (entry.status !== 'Failed' || (data.kind === 'document.delete' && entry.error?.code === 'DocumentNotFound'));
      const reason = entry
        ? `${entry.error?.code ?? 'Failed'}: ${entry.error?.message ?? 'no reason given'}`
        : `platform job ${jobId} returned no result entry for this document`;
      return {
        operationId: op.id,
        startedAt,
        durationMs,
        httpStatus: 200,
        outcome: ok ? 'success' : 'permanent',
        error: entry?.error?.message ?? null,
        requestSummary: `batch ${data.kind} job ${jobId} #${i + 1}`,
        settlement: ok ? { status: 'delivered' } : { status: 'failed', lastError: reason, errorClass: 'permanent' },
      };
    });
    // Attempts and outcomes in one statement.
    await this.operations.recordAttempts(attempts);
    await this.messages.settleMessage(data.messageId, 'worker');
    const failed = attempts.filter((a) => a.settlement?.status === 'failed').length;
    return { delivered: attempts.length - failed, failed };
  }
}

/** The first result entry that names another document than the operation at its position, described; undefined when none does. */
function strangerIn(submitted: readonly BatchEntry[], entries: readonly DocumentJobResultEntry[]): string | undefined {
  const at = entries.findIndex(
    (entry, i) => entry?.id != null && submitted[i]?.targetId != null && entry.id !== submitted[i].targetId,
  );
  return at === -1 ? undefined : `its entry #${at + 1} is document ${entries[at].id}, not ${submitted[at].targetId}`;
}
