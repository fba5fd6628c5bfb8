import { Injectable, Logger, Optional } from '@nestjs/common';
import {
  assertStorablePayload,
  MessageChannel,
  MessageMetadata,
  MessageRepository,
  payloadSha256,
} from '@dockbridge/audit';
import { MessageQueues, type TranslateJob } from '../message-queues';
import { PipelineMetrics } from '../pipeline-metrics';
import { ingressJobId } from '../queues';
import { GroupCommit } from './group-commit';

export interface IncomingMessage {
  partnerId: string;
  channel: MessageChannel;
  rawPayload: string;
  contentType: string;
  metadata?: MessageMetadata;
  /** Unique per partner (e.g. a webhook id): a message with a key seen before is not recorded again. */
  idempotencyKey?: string;
  /** The payload's SHA-256 when worked out already (payloadSha256; a large payload's, off the event loop). */
  sha256?: string;
}

export interface Accepted {
  messageId: string;
  /** True when the idempotency key was seen before: `messageId` is the earlier message, nothing was recorded or queued. */
  existing: boolean;
  /** A repeat only: whether the earlier message carried the same payload (a retry) or another (a reused key). */
  samePayload?: boolean;
}

/**
 * Group commit limits: rows per INSERT, payload characters per INSERT (its JSON parameter is a few
 * times that at most: control characters are escaped), INSERTs at once (of the pool's connections).
 * Two at once, not more: fewer commits in flight make bigger batches, and per-commit costs
 * dominate small ones (at 32 concurrent webhooks, 4 in flight cost ~30% more CPU per webhook
 * than 1 or 2); two keep one slow commit (a large payload) from holding up everyone.
 */
const MAX_BATCH = 256;
const MAX_BATCH_CHARS = 4 * 1024 * 1024;
const MAX_IN_FLIGHT = 2;
/** Payloads from this many characters are hashed in the thread pool, not in the commit. */
const HASH_APART_CHARS = 1024 * 1024;
/**
 * Messages per translate job: a commit of many webhooks costs a few jobs, not one each, and a big
 * one is still shared among workers (one job is translated by one worker).
 */
const MESSAGES_PER_JOB = 32;
/** Enqueues still running past which a commit waits for its own (backpressure when Redis is slower than Postgres). */
const MAX_PENDING_ENQUEUES = 8;
/**
 * The database answered with an error (a SQLSTATE, not a lost connection, class 08): the one
 * statement did not commit, so its messages may be recorded again one by one.
 */
function refusedByDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08');
}

/**
 * Durable before acknowledged: once this returns, the message row (and its `received` event) is
 * committed, and ingress may say "received". Concurrent messages share commits (group commit):
 * under load one statement and one WAL flush serve hundreds of requests instead of one each.
 * Translation is queued (a job per 32 messages of a commit) right after the commit, without holding up the
 * answer: the message is safe in Postgres, and if Redis cannot take the jobs (or the process dies
 * first) the sweeper queues what stays `received`.
 */
@Injectable()
export class AcceptMessage {
  private readonly logger = new Logger('Ingress');
  private readonly commits: GroupCommit<IncomingMessage, Accepted>;
  private readonly enqueuing = new Set<Promise<void>>();

  constructor(
    private readonly messages: MessageRepository,
    private readonly queues: MessageQueues,
    @Optional() private readonly metrics?: PipelineMetrics,
  ) {
    this.commits = new GroupCommit((batch) => this.commit(batch), {
      maxBatch: MAX_BATCH,
      maxWeight: MAX_BATCH_CHARS,
      weigh: (incoming) => incoming.rawPayload.length,
      maxInFlight: MAX_IN_FLIGHT,
      wroteNothing: refusedByDatabase,
    });
  }

  async execute(incoming: IncomingMessage): Promise<Accepted> {
    // Checked here, not in the shared commit, so a bad payload fails only its own caller.
    assertStorablePayload(incoming.rawPayload);
    if (incoming.sha256 === undefined && incoming.rawPayload.length >= HASH_APART_CHARS) {
      return this.commits.submit({ ...incoming, sha256: await payloadSha256(incoming.rawPayload) });
    }
    return this.commits.submit(incoming);
  }

  /** Waits for the messages being committed and queued (shutdown). */
  async drain(): Promise<void> {
    await this.commits.drain();
    await Promise.all(this.enqueuing);
  }

  private async commit(batch: IncomingMessage[]): Promise<(Accepted | Error)[]> {
    // A translate job per MESSAGES_PER_JOB messages; each message names its job, so the sweeper knows it is queued.
    const jobs: TranslateJob[] = Array.from({ length: Math.ceil(batch.length / MESSAGES_PER_JOB) }, () => ({
      jobId: ingressJobId(),
      messageIds: [],
    }));
    const jobOf = (n: number) => jobs[Math.floor(n / MESSAGES_PER_JOB)];
    const results = await this.messages.recordMany(
      batch.map((m, n) => ({
        message: {
          partnerId: m.partnerId,
          channel: m.channel,
          rawPayload: m.rawPayload,
          contentType: m.contentType,
          sha256: m.sha256,
          metadata: { ...m.metadata, ingressJob: jobOf(n).jobId },
          actor: 'gateway' as const,
        },
        idempotencyKey: m.idempotencyKey,
      })),
    );
    results.forEach((r, n) => {
      if (!(r instanceof Error) && !r.existing) {
        jobOf(n).messageIds.push(r.id);
        this.metrics?.received.inc({ partner: batch[n].partnerId, channel: batch[n].channel });
      }
    });
    const enqueue = this.enqueue(jobs);
    if (this.enqueuing.size > MAX_PENDING_ENQUEUES) {
      await enqueue;
    }
    return results.map((r) =>
      r instanceof Error
        ? r
        : { messageId: r.id, existing: r.existing, ...(r.existing && { samePayload: r.samePayload }) },
    );
  }

  private enqueue(jobs: TranslateJob[]): Promise<void> {
    const enqueue = this.queues.tryEnqueueTranslate(jobs).then((queued) => {
      if (!queued) {
        this.logger.warn({
          msg: 'messages recorded but not queued (Redis unavailable); the sweeper will queue them',
          messageIds: jobs.flatMap((j) => j.messageIds),
        });
      }
    });
    this.enqueuing.add(enqueue);
    void enqueue.finally(() => this.enqueuing.delete(enqueue));
    return enqueue;
  }
}
