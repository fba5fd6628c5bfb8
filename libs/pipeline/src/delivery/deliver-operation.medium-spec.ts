import { UnrecoverableError } from 'bullmq';
import { DataSource } from 'typeorm';
import { createAuditDataSource, MessageRepository, OperationRepository, runMigrations } from '@dockbridge/audit';
import { orderKeyOf, type CanonicalOperation } from '@dockbridge/mapping';
import { PlatformCallError, type PlatformAccounts, type PlatformClient } from '@dockbridge/platform';
import { createTestDatabase, TestDatabase } from '../../../../test/support/database';
import { PayloadBudget, TEXT_BYTES_AT_ONCE } from '../payload-budget';
import { RetryPolicy } from '../retry-policy';
import { DeliverOperation } from './deliver-operation';

/**
 * DeliverOperation on a real Postgres with a scripted platform (no Redis, no sandbox): seconds, not
 * minutes, for what delivery records — attempts, settlements, superseding, the breaker.
 */
const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
type Answer = 'ok' | PlatformCallError;
const bad = (status: number) =>
  new PlatformCallError(status >= 500 ? 'retryable' : 'permanent', 'upsert document', `HTTP ${status}`, status);

describe('DeliverOperation (medium: real Postgres, scripted platform)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let messages: MessageRepository;
  let operations: OperationRepository;
  const policy = new RetryPolicy({ retryHorizonMs: 3_600_000, attempts: 0, backoffBaseMs: 100, backoffMaxMs: 1_000 });

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await createAuditDataSource({ url: db.url, dataDir: '', migrationsRun: false }).initialize();
    await runMigrations(dataSource);
    messages = new MessageRepository(dataSource);
    operations = new OperationRepository(dataSource);
  }, 60_000);
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  /** A delivery whose platform answers from `script`, in order; `calls` counts what reached it. */
  const setUp = (script: Answer[], breakerThreshold = 100) => {
    const calls: string[] = [];
    const client = {
      upsertDocument: async (_org: string, document: { id: string }) => {
        calls.push(document.id);
        const answer = script.shift() ?? 'ok';
        if (answer instanceof PlatformCallError) {
          throw answer;
        }
        return 'created';
      },
    } as unknown as PlatformClient;
    const accounts = { clientFor: () => client } as unknown as PlatformAccounts;
    return {
      calls,
      deliver: new DeliverOperation(
        messages,
        operations,
        accounts,
        policy,
        { leaseMs: 60_000, breakerThreshold },
        new PayloadBudget(TEXT_BYTES_AT_ONCE),
      ),
    };
  };
  /** A message of one upsert of `documentId`, recorded now (later calls arrive later). */
  const write = async (documentId: string) => {
    const operation: CanonicalOperation = {
      kind: 'document.upsert',
      organisationId: ORG,
      document: { id: documentId, direction: 'Inbound' },
    } as CanonicalOperation;
    const message = await messages.record({
      partnerId: 'medium',
      channel: 'api',
      rawPayload: '{}',
      contentType: 'application/json',
    });
    await messages.transition(message.id, 'delivering', 'worker');
    const [op] = await operations.addMany(message.id, [
      {
        kind: 'document.upsert',
        organisationId: ORG,
        targetId: documentId,
        orderKey: orderKeyOf(operation),
        payload: operation as never,
      },
    ]);
    return op;
  };
  const attempts = (operationId: string) =>
    dataSource.query(`SELECT outcome, http_status FROM attempt WHERE operation_id = $1 ORDER BY started_at`, [
      operationId,
    ]) as Promise<{ outcome: string; http_status: number | null }[]>;
  const first = { attempt: 1, isLast: false };

  it('delivers: one call, one attempt finished in place, operation and message settled', async () => {
    const { calls, deliver } = setUp(['ok']);
    const op = await write('PO-M1');
    expect(await deliver.execute(op.id, first)).toBe('delivered');
    expect(calls).toEqual(['PO-M1']);
    expect(await attempts(op.id)).toEqual([{ outcome: 'success', http_status: 201 }]);
    expect(await operations.findById(op.id)).toMatchObject({
      status: 'delivered',
      attemptCount: 1,
      inFlightUntil: null,
    });
    expect((await messages.findById(op.messageId))!.status).toBe('delivered');
  });

  it('records a 502 as retryable with when the next try is, then delivers on the retry', async () => {
    const { deliver } = setUp([bad(502), 'ok']);
    const op = await write('PO-M2');
    const failure = await deliver.execute(op.id, first).catch((error: Error & { retryInMs?: number }) => error);
    expect(failure).not.toBeInstanceOf(UnrecoverableError);
    expect((failure as { retryInMs?: number }).retryInMs).toBeGreaterThan(0);
    expect(await operations.findById(op.id)).toMatchObject({
      status: 'delivering',
      errorClass: 'retryable',
      nextAttemptAt: expect.any(Date),
    });
    expect(await deliver.execute(op.id, { attempt: 2, isLast: false })).toBe('delivered');
    expect((await attempts(op.id)).map((a) => a.outcome)).toEqual(['retryable', 'success']);
  });

  it('ends a 400 at once: failed, permanent, the message failed', async () => {
    const { deliver } = setUp([bad(400)]);
    const op = await write('PO-M3');
    await expect(deliver.execute(op.id, first)).rejects.toBeInstanceOf(UnrecoverableError);
    expect(await operations.findById(op.id)).toMatchObject({
      status: 'failed',
      errorClass: 'permanent',
      lastError: expect.stringContaining('HTTP 400'),
    });
    expect((await messages.findById(op.messageId))!.status).toBe('failed');
  });

  it('never sends an older write once a newer one to the same document was delivered', async () => {
    const { calls, deliver } = setUp([]);
    const older = await write('PO-M4');
    const newer = await write('PO-M4');
    // The newer one is delivered first (the older's job was behind, say, a 502 back-off).
    await dataSource.query(`UPDATE operation SET status = 'delivered' WHERE id = $1`, [newer.id]);
    expect(await deliver.execute(older.id, first)).toBe('superseded');
    expect(calls).toEqual([]);
    expect(await operations.findById(older.id)).toMatchObject({ status: 'superseded', supersededBy: newer.id });
    expect(await attempts(older.id)).toEqual([]);
  });

  it('pauses an account that keeps failing: no call, no try spent, the pause recorded on the operation', async () => {
    const { calls, deliver } = setUp([bad(503), bad(503)], 2);
    const a = await write('PO-M5');
    const b = await write('PO-M6');
    await deliver.execute(a.id, first).catch(() => undefined);
    await deliver.execute(b.id, first).catch(() => undefined);
    const c = await write('PO-M7');
    const result = await deliver.execute(c.id, first);
    expect(result).toEqual({ deferMs: expect.any(Number) });
    expect(calls).toEqual(['PO-M5', 'PO-M6']);
    expect(await attempts(c.id)).toEqual([]);
    expect(await operations.findById(c.id)).toMatchObject({
      attemptCount: 0,
      inFlightUntil: null,
      nextAttemptAt: expect.any(Date),
      lastError: expect.stringContaining('paused'),
    });
  });
});
