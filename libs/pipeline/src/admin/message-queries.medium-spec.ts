import { DataSource } from 'typeorm';
import { MessageRepository, OperationRepository, ReplayRunRepository } from '@dockbridge/audit';
import { PartnerFileRepository } from '@dockbridge/partners';
import { startMediumDatabase } from '../../../../test/support/medium';
import { MessagePayloads } from '../translate/message-payloads';
import { DETAIL_PAYLOAD_BYTES, MessageQueries } from './message-queries';

/** MessageQueries on a real Postgres: a message's detail in pages, whatever its size. */
const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';

describe('MessageQueries (medium: real Postgres)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let messages: MessageRepository;
  let operations: OperationRepository;
  let queries: MessageQueries;

  beforeAll(async () => {
    database = await startMediumDatabase();
    const { dataSource } = database;
    messages = new MessageRepository(dataSource);
    operations = new OperationRepository(dataSource);
    const files = new PartnerFileRepository(dataSource);
    queries = new MessageQueries(
      messages,
      files,
      new ReplayRunRepository(dataSource),
      new MessagePayloads(files, messages),
    );
  }, 60_000);
  afterAll(() => database?.close());

  /** A message of `n` upserts, the first two delivered after a retry, with `payload` as its text. */
  const message = async (n: number, payload = '{"operations":[]}') => {
    const m = await messages.record({
      partnerId: 'p',
      channel: 'api',
      rawPayload: payload,
      contentType: 'application/json',
    });
    const rows = await operations.addMany(
      m.id,
      Array.from({ length: n }, (_, i) => ({
        kind: 'document.upsert' as const,
        organisationId: ORG,
        targetId: `D${i + 1}`,
        orderKey: `doc:${m.id}:${i}`,
        payload: {},
      })),
    );
    for (const row of rows.slice(0, 2)) {
      const at = new Date();
      await operations.recordAttempt(
        row.id,
        { startedAt: at, durationMs: 5, httpStatus: 502, outcome: 'retryable' },
        undefined,
        {
          at,
          error: 'HTTP 502',
        },
      );
      await operations.recordAttempt(
        row.id,
        { startedAt: at, durationMs: 5, httpStatus: 200, outcome: 'success' },
        {
          status: 'delivered',
        },
      );
    }
    return m;
  };

  it('pages through the operations in order, each page with its own attempts, all of them counted', async () => {
    const m = await message(5);
    const first = (await queries.detail(m.id, { limit: 2 }))!;
    expect(first.operations.map((op) => op.seq)).toEqual([1, 2]);
    expect(first.operations.map((op) => op.attempts.map((a) => a.outcome))).toEqual([
      ['retryable', 'success'],
      ['retryable', 'success'],
    ]);
    expect(first.operationCounts).toEqual({ total: 5, byStatus: { delivered: 2, pending: 3 }, attempts: 4 });
    const second = (await queries.detail(m.id, { limit: 2, after: first.nextOperationsAfter! }))!;
    expect(second.operations.map((op) => op.seq)).toEqual([3, 4]);
    expect(second.operations.every((op) => op.attempts.length === 0)).toBe(true);
    const last = (await queries.detail(m.id, { limit: 2, after: second.nextOperationsAfter! }))!;
    expect(last.operations.map((op) => op.seq)).toEqual([5]);
    expect(last.nextOperationsAfter).toBeNull();
  });

  it('shows the beginning of a large payload and says it is cut; the whole comes from payload()', async () => {
    const text = `{"operations":[${'{"kind":"x"},'.repeat(100_000)}{}]}`;
    const m = await message(0, text);
    const detail = (await queries.detail(m.id))!;
    expect(detail.message).toMatchObject({ payloadBytes: text.length, payloadTruncated: true });
    expect(detail.message.rawPayload).toBe(text.slice(0, DETAIL_PAYLOAD_BYTES));
    const whole = (await queries.payload(m.id))!;
    const parts: Buffer[] = [];
    for await (const part of whole.slices) {
      parts.push(part);
    }
    expect(Buffer.concat(parts).toString()).toBe(text);
    const small = (await queries.detail((await message(0, '{"operations":[]}')).id))!;
    expect(small.message).toMatchObject({ rawPayload: '{"operations":[]}', payloadTruncated: false, payloadBytes: 17 });
  });
  it("reads a settled message's counts from what settling recorded, without counting its rows again", async () => {
    const m = await message(3);
    const [, , third] = await operations.listByMessage(m.id);
    const at = new Date();
    await operations.recordAttempt(
      third.id,
      { startedAt: at, durationMs: 5, httpStatus: 422, outcome: 'permanent' },
      { status: 'failed', lastError: 'HTTP 422' },
    );
    const delivering = (await queries.detail(m.id))!;
    expect(delivering.operationCounts).toEqual({ total: 3, byStatus: { delivered: 2, failed: 1 }, attempts: 5 });

    expect((await messages.settleMessage(m.id)).status).toBe('partially_failed');
    const counts = { byStatus: { delivered: 2, failed: 1 }, attempts: 5 };
    expect((await messages.findById(m.id))?.metadata?.operationCounts).toEqual(counts);
    // Settling it again (a late worker, the sweeper) leaves its row alone: no new row version.
    const version = async () =>
      (await database.dataSource.query('SELECT xmin FROM message WHERE id = $1', [m.id]))[0].xmin;
    const before = await version();
    await messages.settleMessage(m.id);
    expect(await version()).toBe(before);
    // Recorded, not counted: a row gone behind its back (nothing does that) does not change the answer.
    await database.dataSource.query('DELETE FROM operation WHERE id = $1', [third.id]);
    expect((await queries.detail(m.id))!.operationCounts).toEqual({ total: 3, ...counts });
  });
});
