import { DelayedError, UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import { PlatformCallError } from '@dockbridge/platform';
import { JobHandler, runTry, scheduledRunAt } from './job-handlers';
import { RetryPolicy } from './retry-policy';

const policy = new RetryPolicy({ retryHorizonMs: 60_000, attempts: 0, backoffBaseMs: 100, backoffMaxMs: 1_000 });
const jobAt = (attemptsMade: number, createdMsAgo = 0) =>
  ({
    id: 'j',
    data: { runId: 'r' },
    attemptsMade,
    timestamp: Date.now() - createdMsAgo,
    opts: { attempts: 1_000_000 },
  }) as unknown as Job<{ runId: string }>;

describe('runTry: the one place that decides a try was the last', () => {
  const handler = (error: unknown) => {
    const finals: unknown[] = [];
    const h: JobHandler<'replay'> = {
      concurrency: 1,
      run: async () => {
        throw error;
      },
      onFinalFailure: async (_job, e) => void finals.push(e),
    };
    return { h, finals };
  };

  it('hands a retryable failure back for another try, without the final hook', async () => {
    const { h, finals } = handler(new Error('database away'));
    const thrown = await runTry(h, jobAt(0), policy).catch((e: Error) => e);
    expect(thrown).not.toBeInstanceOf(UnrecoverableError);
    expect(thrown).toMatchObject({ message: 'database away' });
    expect(finals).toEqual([]);
  });

  it('ends the job once the horizon is reached: the final hook runs once, with the original error', async () => {
    const error = new Error('database away');
    const { h, finals } = handler(error);
    await expect(runTry(h, jobAt(12, 59_900), policy)).rejects.toBeInstanceOf(UnrecoverableError);
    expect(finals).toEqual([error]);
  });

  it('ends a permanent failure on its first try', async () => {
    const error = new PlatformCallError('permanent', 'upsert document', 'Invalid document', 400);
    const { h, finals } = handler(error);
    await expect(runTry(h, jobAt(0), policy)).rejects.toBeInstanceOf(UnrecoverableError);
    expect(finals).toEqual([error]);
  });

  it('lets a deferral (DelayedError) through untouched, never final', async () => {
    const { h, finals } = handler(new DelayedError());
    await expect(runTry(h, jobAt(12, 59_900), policy)).rejects.toBeInstanceOf(DelayedError);
    expect(finals).toEqual([]);
  });

  it('tells the handler which try it is, whether it is the last and when its job was queued', async () => {
    const seen: unknown[] = [];
    const h: JobHandler<'replay'> = { concurrency: 1, run: async (_job, attempt) => void seen.push(attempt) };
    const [first, last] = [jobAt(2), jobAt(12, 59_900)];
    await runTry(h, first, policy);
    await runTry(h, last, policy);
    expect(seen).toEqual([
      { attempt: 3, isLast: false, queuedAt: first.timestamp },
      { attempt: 13, isLast: true, queuedAt: last.timestamp },
    ]);
  });
});

describe('scheduledRunAt', () => {
  it('reads when a scheduler job was due from its id; a job added by hand is due when added', () => {
    expect(scheduledRunAt({ id: 'repeat:export-p-e:1767225600000', timestamp: 1 }).toISOString()).toBe(
      '2026-01-01T00:00:00.000Z',
    );
    expect(scheduledRunAt({ id: 'by-hand', timestamp: 1767225000000 }).getTime()).toBe(1767225000000);
  });
});
