import { DataSource } from 'typeorm';
import { recordApiMessage, startMediumDatabase } from '../../../test/support/medium';
import { MessageRepository } from './message.repository';
import { OperationRepository } from './operation.repository';

const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';

/**
 * The tally the detail of a message under way sums instead of counting its rows (medium: real
 * Postgres): every statement that changes operation rows appends what it changed, whichever path.
 */
describe('operation tally (medium: real Postgres)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let operations: OperationRepository;
  let messages: MessageRepository;

  beforeAll(async () => {
    database = await startMediumDatabase();
    operations = new OperationRepository(database.dataSource);
    messages = new MessageRepository(database.dataSource);
  }, 60_000);
  afterAll(() => database?.close());

  const newMessage = () => recordApiMessage(database.dataSource);

  const tallied = async (messageId: string) =>
    Object.fromEntries(
      (
        await database.dataSource.query<{ status: string; n: number; attempts: number }[]>(
          `SELECT status, sum(n)::int AS n, sum(attempts)::int AS attempts FROM operation_tally
           WHERE message_id = $1 GROUP BY status HAVING sum(n) <> 0 ORDER BY status`,
          [messageId],
        )
      ).map((row) => [row.status, [row.n, row.attempts]]),
    );
  const counted = async (messageId: string) =>
    Object.fromEntries(
      (
        await database.dataSource.query<{ status: string; n: number; attempts: number }[]>(
          `SELECT status, count(*)::int AS n, sum(attempt_count)::int AS attempts FROM operation
           WHERE message_id = $1 GROUP BY status ORDER BY status`,
          [messageId],
        )
      ).map((row) => [row.status, [row.n, row.attempts]]),
    );
  const attempt = (operationId: string, settled: boolean) => ({
    operationId,
    startedAt: new Date(),
    durationMs: 3,
    httpStatus: settled ? 200 : 502,
    outcome: settled ? ('success' as const) : ('retryable' as const),
    ...(settled && { settlement: { status: 'delivered' as const } }),
  });

  it('follows inserts, claims, settlements, retries and removals, and the detail reads it', async () => {
    const message = await newMessage();
    await messages.transition(message.id, 'delivering', 'worker');
    const rows = await operations.addMany(
      message.id,
      Array.from({ length: 30 }, (_, n) => ({
        kind: 'document.upsert' as const,
        organisationId: ORG,
        targetId: `DOC-${n}`,
        orderKey: `document|${ORG}|DOC-${n}`,
        payload: { n },
      })),
    );
    const ids = rows.map((row) => row.id);
    const check = async (expected: Record<string, [number, number]>) => {
      expect(await counted(message.id)).toEqual(expected);
      expect(await tallied(message.id)).toEqual(expected);
      const detail = (await messages.findDetail(message.id, { limit: 5 }))!;
      expect(detail.counts).toEqual({
        total: Object.values(expected).reduce((sum, [n]) => sum + n, 0),
        byStatus: Object.fromEntries(Object.entries(expected).map(([status, [n]]) => [status, n])),
        attempts: Object.values(expected).reduce((sum, [, a]) => sum + a, 0),
      });
    };
    await check({ pending: [30, 0] });

    await operations.gate(ids.slice(0, 20), 60_000); // claimed
    await check({ delivering: [20, 0], pending: [10, 0] });
    await operations.recordAttempts(ids.slice(0, 12).map((id) => attempt(id, true))); // a batch settles
    await operations.recordAttempt(ids[12], attempt(ids[12], false), undefined); // a 502: tried again later
    await operations.settle(ids[13], { status: 'failed', lastError: 'no', errorClass: 'permanent' });
    await check({ delivered: [12, 12], delivering: [7, 1], failed: [1, 0], pending: [10, 0] });
    await operations.removeSeqRange(message.id, rows[25].seq); // a translation started again drops its last rows
    await check({ delivered: [12, 12], delivering: [7, 1], failed: [1, 0], pending: [5, 0] });

    // Settled: the counts are recorded on the message and its tally is gone.
    await database.dataSource.query(`UPDATE operation SET status = 'delivered' WHERE message_id = $1`, [message.id]);
    await messages.settleMessage(message.id);
    expect(await tallied(message.id)).toEqual({});
    const settled = (await messages.findDetail(message.id))!;
    expect(settled.message.status).toBe('delivered');
    expect(settled.counts).toEqual({ total: 25, byStatus: { delivered: 25 }, attempts: 13 });
  });

  it('is removed with its message', async () => {
    const message = await newMessage();
    await operations.addMany(message.id, [{ kind: 'document.delete', organisationId: ORG, payload: {} }]);
    await database.dataSource.query(`DELETE FROM message WHERE id = $1`, [message.id]);
    expect(await tallied(message.id)).toEqual({});
    const [{ n }] = await database.dataSource.query(
      `SELECT count(*)::int AS n FROM operation_tally WHERE message_id = $1`,
      [message.id],
    );
    expect(n).toBe(0);
  });
  it('is counted afresh when a settled message is under way again, so it settles on what happens next', async () => {
    const message = await newMessage();
    await messages.transition(message.id, 'delivering', 'worker');
    await operations.addMany(
      message.id,
      ['A', 'B'].map((id) => ({
        kind: 'document.upsert' as const,
        organisationId: ORG,
        targetId: id,
        payload: { id },
      })),
    );
    // The sweeper ended it (its tally goes), then the translation it gave up on went on after all.
    await messages.transition(message.id, 'failed', 'sweeper', 'translation never ended');
    await messages.transition(message.id, 'delivering', 'worker');
    expect(await tallied(message.id)).toEqual({ pending: [2, 0] });

    await database.dataSource.query(`UPDATE operation SET status = 'delivered' WHERE message_id = $1`, [message.id]);
    expect((await messages.settleMessage(message.id)).status).toBe('delivered');
  });

  it('names the first failed operation in the message status once the message settles', async () => {
    const message = await newMessage();
    await messages.transition(message.id, 'delivering', 'worker');
    await operations.addMany(
      message.id,
      ['A', 'B', 'C'].map((id) => ({
        kind: 'document.upsert' as const,
        organisationId: ORG,
        targetId: id,
        payload: { id },
      })),
    );
    await database.dataSource.query(
      `UPDATE operation SET status = CASE seq WHEN 1 THEN 'delivered' ELSE 'failed' END,
         last_error = CASE seq WHEN 2 THEN '400 first' WHEN 3 THEN '400 second' END WHERE message_id = $1`,
      [message.id],
    );
    const settled = await messages.settleMessage(message.id);
    expect([settled.status, settled.statusReason]).toEqual([
      'partially_failed',
      '2 of 3 operations failed; first: 400 first',
    ]);
  });
});
