import { UnrecoverableError } from 'bullmq';
import type { MessageRepository, OperationRepository } from '@dockbridge/audit';
import { PlatformCallError, type PlatformAccounts, type PlatformClient } from '@dockbridge/platform';
import { RetryPolicy } from '../retry-policy';
import { DeliverOperation } from './deliver-operation';

const organisationId = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const payload = { kind: 'document.upsert', organisationId, document: { id: 'PO-1', direction: 'Inbound' } };

/** DeliverOperation over recording fakes: the platform answers `answer` (an error is thrown). */
function delivery(answer: PlatformCallError | 'created') {
  const recorded: { settlement?: { status: string; errorClass?: string }; retry?: { at: Date } }[] = [];
  const settled: string[] = [];
  let unsettled = true;
  const operations = {
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
  const deliver = new DeliverOperation(messages, operations, accounts, policy, {
    leaseMs: 10_000,
    breakerThreshold: 100,
  });
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
