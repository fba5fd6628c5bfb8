import { Logger } from '@nestjs/common';
import { UnrecoverableError } from 'bullmq';
import type { MessageRepository, OperationRepository } from '@dockbridge/audit';
import { PlatformCallError, type PlatformAccounts, type PlatformClient } from '@dockbridge/platform';
import { PayloadBudget } from '../payload-budget';
import { RetryPolicy } from '../retry-policy';
import { DeliverOperation, orderWaitMs } from './deliver-operation';

const organisationId = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const payload = { kind: 'document.upsert', organisationId, document: { id: 'PO-1', direction: 'Inbound' } };

/** DeliverOperation over recording fakes: the platform answers `answer` (an error is thrown). */
function delivery(answer: PlatformCallError | 'created') {
  const recorded: { settlement?: { status: string; errorClass?: string }; retry?: { at: Date } }[] = [];
  const settled: string[] = [];
  let unsettled = true;
  const operations = {
    payloadWeightOf: async () => 100,
    gate: async (ids: string[]) => ids.map((id) => ({ id, verdict: 'go', messageId: 'message-1', payload })),
    recordAttempt: async (
      _id: string,
      _attempt: unknown,
      settlement?: { status: string; errorClass?: string },
      retry?: { at: Date },
    ) => {
      recorded.push({ settlement, retry });
      if (settlement) {
        unsettled = false;
      }
    },
    hasUnsettled: async () => unsettled,
    setTarget: async () => undefined,
  } as unknown as OperationRepository;
  const messages = { settleMessage: async (id: string) => void settled.push(id) } as unknown as MessageRepository;
  const client = {
    upsertDocument: async () => {
      if (answer instanceof PlatformCallError) {
        throw answer;
      }
      return answer;
    },
  } as unknown as PlatformClient;
  const accounts = { clientFor: () => client } as unknown as PlatformAccounts;
  const policy = new RetryPolicy({ retryHorizonMs: 3600_000, attempts: 0, backoffBaseMs: 100, backoffMaxMs: 1000 });
  // A breaker that never opens here: one failure per test.
  const deliver = new DeliverOperation(
    messages,
    operations,
    accounts,
    policy,
    { leaseMs: 10_000, breakerThreshold: 100 },
    new PayloadBudget(1024 * 1024),
  );
  return { deliver, recorded, settled };
}

const caught = async (run: Promise<unknown>): Promise<Error> => {
  try {
    await run;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the delivery to throw');
};

describe('DeliverOperation: how a try ends', () => {
  const badGateway = () => new PlatformCallError('retryable', 'upsert document', 'Bad gateway', 502);

  it('leaves a retryable failure unsettled with its next try due, and throws it back to be retried', async () => {
    const { deliver, recorded, settled } = delivery(badGateway());
    const error = await caught(deliver.execute('op-1', { attempt: 2, isLast: false }));
    expect(error).not.toBeInstanceOf(UnrecoverableError);
    expect(error).toMatchObject({ errorClass: 'retryable', retryInMs: expect.any(Number) });
    expect(recorded).toEqual([{ settlement: undefined, retry: expect.objectContaining({ at: expect.any(Date) }) }]);
    expect(settled).toEqual([]);
  });

  it('settles the operation failed, and its message, when the last try fails retryably, and ends the job', async () => {
    const { deliver, recorded, settled } = delivery(badGateway());
    const error = await caught(deliver.execute('op-1', { attempt: 7, isLast: true }));
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(error.message).toMatch(/Bad gateway/);
    expect(recorded).toEqual([
      { settlement: { status: 'failed', lastError: 'Bad gateway', errorClass: 'retryable' }, retry: undefined },
    ]);
    expect(settled).toEqual(['message-1']);
  });

  it('settles a permanent failure failed on any try', async () => {
    const { deliver, recorded, settled } = delivery(
      new PlatformCallError('permanent', 'upsert document', 'Invalid document: id', 400),
    );
    expect(await caught(deliver.execute('op-1', { attempt: 1, isLast: false }))).toBeInstanceOf(UnrecoverableError);
    expect(recorded[0].settlement).toMatchObject({ status: 'failed', errorClass: 'permanent' });
    expect(settled).toEqual(['message-1']);
  });

  it('settles a success delivered', async () => {
    const { deliver, recorded, settled } = delivery('created');
    expect(await deliver.execute('op-1', { attempt: 1, isLast: true })).toBe('delivered');
    expect(recorded).toEqual([{ settlement: { status: 'delivered' }, retry: undefined }]);
    expect(settled).toEqual(['message-1']);
  });
});

type Verdict = 'go' | 'wait' | 'superseded' | 'settled' | 'missing';

/** DeliverOperation over fakes that record every repository call; the platform does what `platform` says. */
function scene(options: {
  verdict?: Verdict;
  operation?: object;
  platform?: (method: string, args: unknown[]) => unknown;
  noAccount?: boolean;
  unsettledAfter?: boolean;
  breakerThreshold?: number;
  budget?: PayloadBudget;
  weight?: number | null;
}) {
  const calls: unknown[][] = [];
  const operation = options.operation ?? payload;
  const operations = {
    payloadWeightOf: async (id: string) => {
      calls.push(['payloadWeightOf', id]);
      return options.weight === undefined ? 100 : options.weight;
    },
    gate: async (ids: string[], leaseMs: number) => {
      calls.push(['gate', ids, leaseMs]);
      const verdict = options.verdict ?? 'go';
      return ids.map((id) => ({ id, verdict, messageId: 'message-1', payload: operation }));
    },
    recordAttempt: async (...args: unknown[]) => void calls.push(['recordAttempt', ...args]),
    releaseClaim: async (...args: unknown[]) => void calls.push(['releaseClaim', ...args]),
    setTarget: async (...args: unknown[]) => void calls.push(['setTarget', ...args]),
    hasUnsettled: async () => options.unsettledAfter ?? false,
  } as unknown as OperationRepository;
  const messages = {
    settleMessage: async (...args: unknown[]) => void calls.push(['settleMessage', ...args]),
  } as unknown as MessageRepository;
  const client = new Proxy(
    {},
    {
      get:
        (_target, method: string) =>
        async (...args: unknown[]) => {
          calls.push(['platform', method]);
          return options.platform?.(method, args);
        },
    },
  ) as PlatformClient;
  const accounts = { clientFor: () => (options.noAccount ? undefined : client) } as unknown as PlatformAccounts;
  const policy = new RetryPolicy({ retryHorizonMs: 3600_000, attempts: 0, backoffBaseMs: 100, backoffMaxMs: 1000 });
  const deliver = new DeliverOperation(
    messages,
    operations,
    accounts,
    policy,
    { leaseMs: 10_000, breakerThreshold: options.breakerThreshold ?? 100 },
    options.budget ?? new PayloadBudget(1024 * 1024),
  );
  return { deliver, calls, of: (name: string) => calls.filter((c) => c[0] === name) };
}

const failingWith = (error: unknown) => () => {
  throw error;
};

describe('DeliverOperation: what the gate decides', () => {
  it.each([
    ['missing', 'missing', []],
    ['settled', 'already-settled', [['settleMessage', 'message-1', 'worker']]],
    ['superseded', 'superseded', [['settleMessage', 'message-1', 'worker']]],
    ['wait', { deferMs: 200 }, []],
  ] as const)('%s: %j, nothing sent', async (verdict, result, settled) => {
    const { deliver, calls, of } = scene({ verdict });
    await expect(deliver.execute('op-1', { attempt: 1, isLast: false })).resolves.toEqual(result);
    expect(calls.slice(0, 2)).toEqual([
      ['payloadWeightOf', 'op-1'],
      ['gate', ['op-1'], 10_000],
    ]);
    expect(of('platform')).toEqual([]);
    expect(of('settleMessage')).toEqual(settled);
  });

  it('asks again less often the longer a held write has waited: a quarter of its time queued, 0.2 to 5 s', async () => {
    const now = 1_000_000_000;
    const waited = (ms: number | undefined) =>
      orderWaitMs({ attempt: 1, isLast: false, queuedAt: ms === undefined ? undefined : now - ms }, now);
    expect([undefined, 0, 400, 2_000, 8_000, 20_000, 3_600_000].map(waited)).toEqual([
      200, 200, 200, 500, 2_000, 5_000, 5_000,
    ]);
    const { deliver } = scene({ verdict: 'wait' });
    const result = await deliver.execute('op-1', { attempt: 1, isLast: false, queuedAt: Date.now() - 60_000 });
    expect(result).toEqual({ deferMs: 5_000 });
  });

  it('settles the message only when none of its operations is left unsettled', async () => {
    const { deliver, of } = scene({ verdict: 'settled', unsettledAfter: true });
    await deliver.execute('op-1', { attempt: 1, isLast: false });
    expect(of('settleMessage')).toEqual([]);
  });
});

describe("DeliverOperation: the worker's payload budget", () => {
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('takes its stored weight of the budget before it claims: while the budget is held, nothing is claimed or read', async () => {
    const budget = new PayloadBudget(1_000);
    const holder = await budget.take(1_000);
    const { deliver, calls, of } = scene({ budget, weight: 600, platform: () => 'created' });
    let result: unknown;
    const delivering = deliver.execute('op-1', { attempt: 1, isLast: false }).then((r) => (result = r));
    await settle();
    expect(calls).toEqual([['payloadWeightOf', 'op-1']]);
    expect(result).toBeUndefined();

    holder();
    await delivering;
    expect(result).toBe('delivered');
    expect(of('gate')).toHaveLength(1);
  });

  it('takes the whole budget for a payload stored before weights were measured: it goes alone', async () => {
    const budget = new PayloadBudget(1_000);
    const holder = await budget.take(1);
    const { deliver, calls } = scene({ budget, weight: null, platform: () => 'created' });
    let result: unknown;
    const delivering = deliver.execute('op-1', { attempt: 1, isLast: false }).then((r) => (result = r));
    await settle();
    expect(calls).toEqual([['payloadWeightOf', 'op-1']]); // 1 of 1,000 held is enough to wait for
    holder();
    await delivering;
    expect(result).toBe('delivered');
  });

  it('gives back what it took whatever the outcome', async () => {
    const budget = new PayloadBudget(1_000);
    const failing = scene({
      budget,
      weight: 1_000,
      platform: () => {
        throw new PlatformCallError('retryable', 'upsert document', 'Bad gateway', 502);
      },
    });
    await caught(failing.deliver.execute('op-1', { attempt: 1, isLast: false }));
    await expect(
      scene({ budget, verdict: 'wait' }).deliver.execute('op-2', { attempt: 1, isLast: false }),
    ).resolves.toEqual({
      deferMs: 200,
    });
    // All of it free: a holder of the whole budget is let in at once.
    let taken = false;
    void budget.take(1_000).then(() => (taken = true));
    await settle();
    expect(taken).toBe(true);
  });
});

describe('DeliverOperation: the attempt row', () => {
  it('records a success with its HTTP status and request, then the delivered operation and its message', async () => {
    const { deliver, calls } = scene({ platform: () => 'created' });
    const before = Date.now();
    await expect(deliver.execute('op-1', { attempt: 1, isLast: false })).resolves.toBe('delivered');
    expect(calls.slice(2)).toEqual([
      ['platform', 'upsertDocument'],
      [
        'recordAttempt',
        'op-1',
        {
          startedAt: expect.any(Date),
          durationMs: expect.any(Number),
          httpStatus: 201,
          outcome: 'success',
          requestSummary: 'PUT documents/PO-1?upsert=true',
        },
        { status: 'delivered' },
      ],
      ['settleMessage', 'message-1', 'worker'],
    ]);
    const attempt = calls[3][2] as { startedAt: Date; durationMs: number };
    expect(attempt.startedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    expect(attempt.durationMs).toBeLessThan(5000);
  });

  it('keeps the id of a booking it created as the operation target', async () => {
    const create = { kind: 'booking.create', organisationId, booking: { carrierId: 'C1' } };
    const { deliver, of } = scene({ operation: create, platform: () => 'B-9' });
    await deliver.execute('op-1', { attempt: 1, isLast: false });
    expect(of('setTarget')).toEqual([['setTarget', 'op-1', 'B-9']]);
    expect(of('recordAttempt')[0][2]).toMatchObject({ httpStatus: 200, requestSummary: 'graphql createBooking' });
  });

  it('sets no target for any other operation', async () => {
    const { deliver, of } = scene({ platform: () => 'updated' });
    await deliver.execute('op-1', { attempt: 1, isLast: false });
    expect(of('setTarget')).toEqual([]);
  });

  it('records a retryable failure with its status, reason and next try, leaving the message alone', async () => {
    const error = new PlatformCallError('retryable', 'upsert document', 'Bad gateway', 502);
    const { deliver, of } = scene({ platform: failingWith(error) });
    const before = Date.now();
    const thrown = (await caught(deliver.execute('op-1', { attempt: 1, isLast: false }))) as Error & {
      retryInMs: number;
    };
    expect(thrown.retryInMs).toBeGreaterThanOrEqual(50);
    expect(thrown.retryInMs).toBeLessThanOrEqual(100);
    const [[, id, attempt, settlement, retry]] = of('recordAttempt') as [
      [string, string, Record<string, unknown>, unknown, { at: Date; error: string }],
    ];
    expect([id, settlement]).toEqual(['op-1', undefined]);
    expect(attempt).toEqual({
      startedAt: expect.any(Date),
      durationMs: expect.any(Number),
      httpStatus: 502,
      outcome: 'retryable',
      error: 'Bad gateway',
      requestSummary: 'PUT documents/PO-1?upsert=true',
    });
    expect(attempt.durationMs).toBeLessThan(5000);
    expect(retry.error).toBe('Bad gateway');
    expect(retry.at.getTime() - before).toBeGreaterThanOrEqual(thrown.retryInMs);
    expect(retry.at.getTime() - Date.now()).toBeLessThanOrEqual(thrown.retryInMs);
    expect(of('settleMessage')).toEqual([]);
  });

  it('calls anything thrown that is not a platform error retryable, with no HTTP status', async () => {
    for (const [error, reason] of [
      [new TypeError('socket hang up'), 'socket hang up'],
      ['a string', 'a string'],
      [null, 'null'],
    ] as const) {
      const { deliver, of } = scene({ platform: failingWith(error) });
      const thrown = await caught(deliver.execute('op-1', { attempt: 1, isLast: false }));
      expect(thrown).toMatchObject({ errorClass: 'retryable', operation: 'document.upsert', reason });
      expect(of('recordAttempt')[0][2]).toMatchObject({ httpStatus: null, outcome: 'retryable', error: reason });
    }
  });

  it('fails at once, settled, when no platform account acts for the organisation', async () => {
    const { deliver, of } = scene({ noAccount: true });
    const thrown = await caught(deliver.execute('op-1', { attempt: 1, isLast: false }));
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    expect(thrown.message).toContain(`no platform account is configured for organisation ${organisationId}`);
    expect(of('recordAttempt')[0].slice(2, 4)).toEqual([
      expect.objectContaining({ outcome: 'auth', httpStatus: null }),
      {
        status: 'failed',
        lastError: `no platform account is configured for organisation ${organisationId}`,
        errorClass: 'auth',
      },
    ]);
    expect(of('settleMessage')).toEqual([['settleMessage', 'message-1', 'worker']]);
  });
});

describe('DeliverOperation: a booking is not created twice', () => {
  const create = { kind: 'booking.create', organisationId, booking: { carrierId: 'C1' } };

  it('ends a createBooking whose outcome is unknown (a timeout, a 502) instead of retrying it', async () => {
    for (const error of [
      new PlatformCallError('retryable', 'graphql createBooking', 'Bad gateway', 502),
      new PlatformCallError('retryable', 'graphql createBooking', 'no answer within 10000 ms'),
    ]) {
      const { deliver, of } = scene({ operation: create, platform: failingWith(error) });
      const thrown = await caught(deliver.execute('op-1', { attempt: 1, isLast: false }));
      expect(thrown).toBeInstanceOf(UnrecoverableError);
      const reason = `outcome unknown after ${error.reason}: the booking may exist; check the platform before replaying`;
      expect(of('recordAttempt')[0].slice(2, 4)).toEqual([
        expect.objectContaining({ outcome: 'permanent', httpStatus: error.status ?? null, error: reason }),
        { status: 'failed', lastError: reason, errorClass: 'permanent' },
      ]);
    }
  });

  it('retries a createBooking the platform surely did not apply: 429, 503, a refused connection', async () => {
    for (const error of [
      new PlatformCallError('retryable', 'graphql createBooking', 'slow down', 429),
      new PlatformCallError('retryable', 'graphql createBooking', 'maintenance', 503),
      new PlatformCallError('retryable', 'graphql createBooking', 'ECONNREFUSED: connect ECONNREFUSED 10.0.0.1:443'),
    ]) {
      const { deliver, of } = scene({ operation: create, platform: failingWith(error) });
      const thrown = await caught(deliver.execute('op-1', { attempt: 1, isLast: false }));
      expect(thrown).not.toBeInstanceOf(UnrecoverableError);
      expect(of('recordAttempt')[0][3]).toBeUndefined();
    }
  });

  it('leaves a permanent failure of a createBooking as the platform said it', async () => {
    const error = new PlatformCallError('permanent', 'graphql createBooking', 'no such carrier', 400);
    const { deliver, of } = scene({ operation: create, platform: failingWith(error) });
    await caught(deliver.execute('op-1', { attempt: 1, isLast: false }));
    expect(of('recordAttempt')[0][3]).toEqual({
      status: 'failed',
      lastError: 'no such carrier',
      errorClass: 'permanent',
    });
  });

  it('retries other operations after a timeout: they are idempotent writes', async () => {
    const error = new PlatformCallError('retryable', 'graphql updateBookingStatus', 'no answer within 10000 ms');
    const status = { kind: 'booking.status', organisationId, bookingId: 'B-1' };
    const { deliver, of } = scene({ operation: status, platform: failingWith(error) });
    const thrown = await caught(deliver.execute('op-1', { attempt: 1, isLast: false }));
    expect(thrown).not.toBeInstanceOf(UnrecoverableError);
    expect(of('recordAttempt')[0][3]).toBeUndefined();
  });
});

describe('DeliverOperation: the circuit breaker of a platform account', () => {
  const badGateway = new PlatformCallError('retryable', 'upsert document', 'Bad gateway', 502);

  it('pauses deliveries after retryable failures in a row, releasing each claim without a call, then probes', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    // The breaker reads the clock it was made with: the fake one, moved on below.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    let answer: unknown = badGateway;
    const { deliver, of } = scene({
      breakerThreshold: 2,
      platform: () => {
        if (answer instanceof Error) {
          throw answer;
        }
        return answer;
      },
    });
    try {
      await caught(deliver.execute('op-1', { attempt: 1, isLast: false }));
      expect(warn).not.toHaveBeenCalled();
      await caught(deliver.execute('op-2', { attempt: 1, isLast: false }));
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ organisationId }));
      const before = Date.now();
      const paused = await deliver.execute('op-3', { attempt: 1, isLast: false });
      expect(of('platform')).toHaveLength(2);
      const deferMs = (paused as { deferMs: number }).deferMs;
      expect(deferMs).toBeGreaterThanOrEqual(900);
      expect(deferMs).toBeLessThanOrEqual(2000);
      const [[, id, release]] = of('releaseClaim') as [[string, string, { at: Date; reason: string }]];
      expect(id).toBe('op-3');
      expect(release.reason).toBe(
        'deliveries to this platform account are paused while it fails (Bad gateway); probing',
      );
      expect(release.at.getTime() - before).toBeGreaterThanOrEqual(deferMs);
      expect(release.at.getTime() - Date.now()).toBeLessThanOrEqual(deferMs);
      expect(of('recordAttempt')).toHaveLength(2);
      // After the pause, one probe goes; its success resumes deliveries.
      jest.setSystemTime(Date.now() + 60_000);
      answer = 'updated';
      expect(log).not.toHaveBeenCalled();
      await expect(deliver.execute('op-4', { attempt: 1, isLast: false })).resolves.toBe('delivered');
      expect(log).toHaveBeenCalledWith(expect.objectContaining({ organisationId }));
      await expect(deliver.execute('op-5', { attempt: 1, isLast: false })).resolves.toBe('delivered');
    } finally {
      jest.useRealTimers();
      jest.restoreAllMocks();
    }
  });

  it('resets the count on an answer that is not a retryable failure (the platform is up)', async () => {
    const answers: unknown[] = [
      badGateway,
      new PlatformCallError('permanent', 'upsert document', 'bad', 400),
      badGateway,
    ];
    const { deliver, of } = scene({
      breakerThreshold: 2,
      platform: () => {
        throw answers.shift();
      },
    });
    for (const id of ['op-1', 'op-2', 'op-3']) {
      await caught(deliver.execute(id, { attempt: 1, isLast: false }));
    }
    expect(of('platform')).toHaveLength(3);
    expect(of('releaseClaim')).toEqual([]);
  });
});
