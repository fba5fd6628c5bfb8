import { UnrecoverableError } from 'bullmq';
import { PlatformCallError } from '@dockbridge/platform';
import { RetryPolicy } from './retry-policy';

describe('RetryPolicy', () => {
  const policy = new RetryPolicy({
    retryHorizonMs: 24 * 3600_000,
    attempts: 0,
    backoffBaseMs: 1000,
    backoffMaxMs: 10_000,
  });

  it('grows exponentially with jitter between half and all of the step, capped', () => {
    for (let i = 0; i < 50; i++) {
      expect(policy.delayFor(1)).toBeGreaterThanOrEqual(500);
      expect(policy.delayFor(1)).toBeLessThanOrEqual(1000);
      expect(policy.delayFor(3)).toBeGreaterThanOrEqual(2000);
      expect(policy.delayFor(3)).toBeLessThanOrEqual(4000);
      expect(policy.delayFor(20)).toBeGreaterThanOrEqual(5000);
      expect(policy.delayFor(20)).toBeLessThanOrEqual(10_000);
    }
    const samples = new Set(Array.from({ length: 20 }, () => policy.delayFor(4)));
    expect(samples.size).toBeGreaterThan(1);
  });

  it("waits at least the platform's Retry-After, never less than its own backoff", () => {
    const throttled = new PlatformCallError('retryable', 'put document', 'Too many requests', 429, 7000);
    expect(policy.delayFor(1, undefined, throttled)).toBe(7000);
    expect(policy.delayFor(1, undefined, new PlatformCallError('retryable', 'x', 'y', 429, 3_600_000))).toBe(600_000);
    // Retry-After: 1 after many tries: the backoff (5-10 s at try 20) is the floor's floor.
    expect(
      policy.delayFor(20, undefined, new PlatformCallError('retryable', 'x', 'y', 429, 1000)),
    ).toBeGreaterThanOrEqual(5000);
  });

  it('keeps to its own backoff for a platform failure without Retry-After', () => {
    const badGateway = new PlatformCallError('retryable', 'put document', 'Bad gateway', 502);
    for (let i = 0; i < 20; i++) {
      const delay = policy.delayFor(1, undefined, badGateway);
      expect(delay).toBeGreaterThanOrEqual(500);
      expect(delay).toBeLessThanOrEqual(1000);
    }
  });

  it('uses the delay the processor already timed (what the attempt row says)', () => {
    expect(policy.delayFor(3, undefined, Object.assign(new Error('502'), { retryInMs: 4321 }))).toBe(4321);
  });

  it('retries for the horizon, not a count: the last try is the one whose next would start past it', () => {
    const created = Date.parse('2026-11-24T00:00:00Z');
    const job = (attemptsMade: number) => ({ attemptsMade, timestamp: created, opts: policy.jobOptions() });
    // Ten hours in, after hundreds of tries: still not the last.
    expect(policy.isLastTry(job(500), created + 10 * 3600_000)).toBe(false);
    expect(policy.isLastTry(job(500), created + 24 * 3600_000 - 10_001)).toBe(false);
    expect(policy.isLastTry(job(500), created + 24 * 3600_000 - 10_000)).toBe(false);
    expect(policy.isLastTry(job(500), created + 24 * 3600_000 - 9_999)).toBe(true);
    // A platform down for ten minutes uses some tries of a short horizon, not all.
    const short = new RetryPolicy({ retryHorizonMs: 60_000, attempts: 0, backoffBaseMs: 500, backoffMaxMs: 10_000 });
    expect(short.isLastTry({ attemptsMade: 7, timestamp: created, opts: short.jobOptions() }, created + 30_000)).toBe(
      false,
    );
    expect(short.isLastTry({ attemptsMade: 7, timestamp: created, opts: short.jobOptions() }, created + 55_000)).toBe(
      true,
    );
    // A configured cap still ends it.
    const capped = new RetryPolicy({ retryHorizonMs: 3600_000, attempts: 3, backoffBaseMs: 500, backoffMaxMs: 10_000 });
    expect(capped.isLastTry({ attemptsMade: 2, timestamp: created, opts: capped.jobOptions() }, created + 1000)).toBe(
      true,
    );
    // Only the third of three tries is the last: the first two are not, even near the cap.
    expect(
      [0, 1, 2].map((attemptsMade) =>
        capped.isLastTry({ attemptsMade, timestamp: created, opts: capped.jobOptions() }, created + 1000),
      ),
    ).toEqual([false, false, true]);
  });

  it('ends permanent and auth failures at once and retries the rest', () => {
    const permanent = new PlatformCallError('permanent', 'put document', 'Invalid document: id', 400);
    const auth = new PlatformCallError('auth', 'put document', 'Unauthorized', 401);
    const retryable = new PlatformCallError('retryable', 'put document', 'Bad gateway', 502);
    expect(RetryPolicy.toJobError(permanent)).toBeInstanceOf(UnrecoverableError);
    expect(RetryPolicy.toJobError(auth)).toBeInstanceOf(UnrecoverableError);
    expect(RetryPolicy.toJobError(retryable)).toBe(retryable);
    expect(RetryPolicy.isRetryable(retryable)).toBe(true);
    expect(RetryPolicy.isRetryable(permanent)).toBe(false);
    expect(RetryPolicy.isRetryable(new Error('socket hang up'))).toBe(true);
    // The last try (the horizon reached) ends the job whatever the class: BullMQ's own count is far away.
    expect(RetryPolicy.toJobError(retryable, true)).toBeInstanceOf(UnrecoverableError);
  });

  it('gives every platform job the configured attempts and its own backoff', () => {
    expect(policy.jobOptions()).toEqual({ attempts: 1_000_000, backoff: { type: 'dockbridge' } });
    expect(
      new RetryPolicy({ retryHorizonMs: 1000, attempts: 8, backoffBaseMs: 1, backoffMaxMs: 1 }).jobOptions().attempts,
    ).toBe(8);
  });
});
