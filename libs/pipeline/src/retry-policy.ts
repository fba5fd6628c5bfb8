import { UnrecoverableError } from 'bullmq';
import type { JobsOptions } from 'bullmq';
import { PlatformCallError } from '@dockbridge/platform';

export interface RetryPolicyOptions {
  /** How long retryable failures are retried, from the job's creation: a duration, not a count. */
  retryHorizonMs: number;
  /** A cap on tries besides the horizon; 0 for none. */
  attempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

/** The longest Retry-After honoured; a platform asking for longer is waited for this long, then asked again. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;
/** BullMQ needs a count: one the horizon always ends first. */
const UNCAPPED_TRIES = 1_000_000;

export const BACKOFF_TYPE = 'dockbridge';

/** What `isLastTry` needs of a BullMQ job. */
export interface TryOf {
  attemptsMade: number;
  /** When the job was created (ms since epoch). */
  timestamp: number;
  opts: { attempts?: number };
}

/** An error whose next try the processor already timed (so the attempt row can say when). */
export interface TimedRetry {
  retryInMs?: number;
}

/**
 * The one retry policy. Retryable failures are retried with exponential backoff and jitter, capped,
 * for `retryHorizonMs` (24 h by default, as Svix and Hookdeck do): a platform outage of hours heals
 * without a person. The platform's Retry-After is a floor, never a reason to give up sooner.
 * Permanent and auth failures end the job at once.
 */
export class RetryPolicy {
  constructor(private readonly options: RetryPolicyOptions) {}

  /** Options for every job that retries: translation, delivery, batches, exports. */
  jobOptions(): Pick<JobsOptions, 'attempts' | 'backoff'> {
    return { attempts: this.options.attempts || UNCAPPED_TRIES, backoff: { type: BACKOFF_TYPE } };
  }

  /** Delay before try `attemptsMade + 1` (BullMQ's backoffStrategy): the processor's own timing when it gave one. */
  readonly delayFor = (attemptsMade: number, _type?: string, error?: Error): number => {
    const timed = (error as (Error & TimedRetry) | undefined)?.retryInMs;
    return timed ?? this.nextDelay(attemptsMade, error);
  };

  /** Equal jitter (half fixed, half random) over the capped exponential step; at least the Retry-After given. */
  nextDelay(attemptsMade: number, error?: unknown): number {
    const exponential = Math.min(
      this.options.backoffMaxMs,
      this.options.backoffBaseMs * 2 ** Math.max(0, attemptsMade - 1),
    );
    const jittered = Math.round(exponential / 2 + Math.random() * (exponential / 2));
    const retryAfter =
      error instanceof PlatformCallError && error.retryAfterMs !== undefined
        ? Math.min(error.retryAfterMs, MAX_RETRY_AFTER_MS)
        : 0;
    return Math.max(jittered, retryAfter);
  }

  /** Whether the try now running is the last: the cap is reached, or the next one would start past the horizon. */
  isLastTry(job: TryOf, now = Date.now()): boolean {
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
      return true;
    }
    const longestNextDelay = Math.min(this.options.backoffMaxMs, this.options.backoffBaseMs * 2 ** job.attemptsMade);
    return now + longestNextDelay - job.timestamp > this.options.retryHorizonMs;
  }

  /** Whether the failure is worth another try at all (the horizon aside). */
  static isRetryable(error: unknown): boolean {
    return error instanceof PlatformCallError ? error.retryable : !(error instanceof UnrecoverableError);
  }

  /**
   * What a processor throws for a failure: permanent and auth failures — and any failure on the
   * last try (`final`: the horizon, not BullMQ's count, ends retries) — become unrecoverable, so
   * BullMQ stops at once.
   */
  static toJobError(error: unknown, final = false): Error {
    if ((error instanceof PlatformCallError && !error.retryable) || final) {
      return new UnrecoverableError(error instanceof Error ? error.message : String(error));
    }
    return error instanceof Error ? error : new Error(String(error));
  }
}
