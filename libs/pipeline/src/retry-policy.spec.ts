import { UnrecoverableError } from 'bullmq';
import { PlatformCallError } from '@dockbridge/platform';
import { RetryPolicy } from './retry-policy';

describe('RetryPolicy', () => {
  const policy = new RetryPolicy({ attempts: 8, backoffBaseMs: 1000, backoffMaxMs: 10_000 });

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

  it('waits for the platform\'s Retry-After when it gave one', () => {
    const throttled = new PlatformCallError('retryable', 'put document', 'Too many requests', 429, 7000);
    expect(policy.delayFor(1, undefined, throttled)).toBe(7000);
    expect(policy.delayFor(1, undefined, new PlatformCallError('retryable', 'x', 'y', 429, 3_600_000))).toBe(600_000);
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
  });

  it('gives every platform job the configured attempts and its own backoff', () => {
    expect(policy.jobOptions()).toEqual({ attempts: 8, backoff: { type: 'dockbridge' } });
  });
});
