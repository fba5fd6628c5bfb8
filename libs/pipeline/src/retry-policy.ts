import { UnrecoverableError } from 'bullmq';
import type { JobsOptions } from 'bullmq';
import { PlatformCallError } from '@dockbridge/platform';

export interface RetryPolicyOptions {
  attempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

/** The longest Retry-After honoured; a platform asking for longer is waited for this long, then asked again. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

export const BACKOFF_TYPE = 'dockbridge';

/**
 * The one retry policy. Retryable failures are retried with exponential backoff and jitter, capped,
 * or after the platform's Retry-After; permanent and auth failures end the job at once.
 */
export class RetryPolicy {
  constructor(private readonly options: RetryPolicyOptions) {}

  /** Options for every job that talks to the platform. */
  jobOptions(): Pick<JobsOptions, 'attempts' | 'backoff'> {
    return { attempts: this.options.attempts, backoff: { type: BACKOFF_TYPE } };
  }

  /** Delay before try `attemptsMade + 1` (BullMQ's backoffStrategy). Equal jitter: half fixed, half random. */
  readonly delayFor = (attemptsMade: number, _type?: string, error?: Error): number => {
    if (error instanceof PlatformCallError && error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, MAX_RETRY_AFTER_MS);
    const exponential = Math.min(this.options.backoffMaxMs, this.options.backoffBaseMs * 2 ** Math.max(0, attemptsMade - 1));
    return Math.round(exponential / 2 + Math.random() * (exponential / 2));
  };

  /** Whether the failure is worth another try at all (the attempt budget aside). */
  static isRetryable(error: unknown): boolean {
    return error instanceof PlatformCallError ? error.retryable : !(error instanceof UnrecoverableError);
  }

  /** What a processor throws for a failure: permanent and auth failures become unrecoverable so BullMQ stops at once. */
  static toJobError(error: unknown): Error {
    if (error instanceof PlatformCallError && !error.retryable) return new UnrecoverableError(error.message);
    return error instanceof Error ? error : new Error(String(error));
  }
}
