import { DataSource } from 'typeorm';
import { startMediumDatabase } from '../../../test/support/medium';
import { DETAIL_READ_SLICE, LISTED_INTERCHANGES, MessageRepository } from './message.repository';
import { NewOperation, OperationRepository } from './operation.repository';

const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';

/** A detail page is read a slice of rows at a time (medium: real Postgres): the pages come out whole and in order. */
describe('message detail pages (medium: real Postgres)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let messages: MessageRepository;
  let messageId: string;
  let seqs: number[];
  const total = 2 * DETAIL_READ_SLICE + 7;

  beforeAll(async () => {
    database = await startMediumDatabase();
    messages = new MessageRepository(database.dataSource);
    const operations = new OperationRepository(database.dataSource);
    const message = await messages.record({
      partnerId: 'kettle',
      channel: 'api',
      rawPayload: '{}',
      contentType: 'application/json',
    });
    messageId = message.id;
    const upsert = (n: number): NewOperation => ({
      kind: 'document.upsert',
      organisationId: ORG,
      targetId: `ASN-${n}`,
      payload: { kind: 'document.upsert', organisationId: ORG, document: { number: `ASN-${n}` } },
    });
    const rows = await operations.addMany(
      messageId,
      Array.from({ length: total }, (_, i) => upsert(i)),
    );
    seqs = rows.map((row) => row.seq);
  }, 60_000);
  afterAll(() => database?.close());

  it.each([
    ['less than a slice', 3],
    ['exactly a slice', DETAIL_READ_SLICE],
    ['a slice and one', DETAIL_READ_SLICE + 1],
    ['several slices', 2 * DETAIL_READ_SLICE + 1],
  ])('answers %s in seq order, then the rest from nextAfter', async (_, limit) => {
    const first = await messages.findDetail(messageId, { limit });
    expect(first?.operations.map((op) => op.seq)).toEqual(seqs.slice(0, limit));
    expect(first?.operations.map((op) => op.payload)).toEqual(
      seqs.slice(0, limit).map((_, i) => expect.objectContaining({ document: { number: `ASN-${i}` } })),
    );
    expect(first?.nextAfter).toBe(seqs[limit - 1]);
    const rest = await messages.findDetail(messageId, { limit: 1000, after: first!.nextAfter! });
    expect(rest?.operations.map((op) => op.seq)).toEqual(seqs.slice(limit));
    expect(rest?.nextAfter).toBeNull();
    expect(rest?.counts.total).toBe(total);
  });

  it("answers a partner's status of its own message only, reading neither payloads nor attempts", async () => {
    expect(
      await messages.findDetail(messageId, { limit: 5 }, { partnerId: 'someone-else', statusOnly: true }),
    ).toBeNull();
    // A block that cannot be read: the full detail fails on it, the status never reads it.
    const { dataSource } = database;
    const saved: { first_seq: number; body: Buffer }[] = await dataSource.query(
      `SELECT first_seq, body FROM payload_block WHERE message_id = $1`,
      [messageId],
    );
    const restoreBlocks = () =>
      Promise.all(
        saved.map((block) =>
          dataSource.query(`UPDATE payload_block SET body = $3 WHERE message_id = $1 AND first_seq = $2`, [
            messageId,
            block.first_seq,
            block.body,
          ]),
        ),
      );
    await dataSource.query(`UPDATE payload_block SET body = '\\xdeadbeef'::bytea WHERE message_id = $1`, [messageId]);
    try {
      await expect(messages.findDetail(messageId, { limit: 5 })).rejects.toThrow();
      const status = await messages.findDetail(messageId, { limit: 5 }, { partnerId: 'kettle', statusOnly: true });
      expect(status?.operations.map((op) => [op.seq, op.targetId, op.status])).toEqual(
        seqs.slice(0, 5).map((seq, i) => [seq, `ASN-${i}`, 'pending']),
      );
      expect(status?.operations.map((op) => op.payload)).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      expect(status?.counts.total).toBe(total);
      expect(status?.events).toEqual([]);
    } finally {
      await restoreBlocks();
    }
  });

  it('says there is no next page when the page ends with the last operation', async () => {
    const all = await messages.findDetail(messageId, { limit: total });
    expect(all?.operations).toHaveLength(total);
    expect(all?.nextAfter).toBeNull();
  });

  // A message of many interchanges is shown with the first of them, all counted, and found by any.

  const withInterchanges = async (count: number, first: number) => {
    const message = await messages.record({
      partnerId: 'kettle',
      channel: 'sftp',
      rawPayload: 'ISA',
      contentType: 'application/edi-x12',
    });
    const interchanges = Array.from({ length: count }, (_, i) => ({
      sender: 'KETTLE',
      control: String(first + i),
      refused: false,
    }));
    await messages.annotate(message.id, { interchanges });
    return { id: message.id, interchanges };
  };

  it(`lists the first ${LISTED_INTERCHANGES} and counts them all, in the detail and in searches`, async () => {
    const many = await withInterchanges(LISTED_INTERCHANGES + 50, 300_000_000);
    const detail = await messages.findDetail(many.id);
    expect(detail!.message.metadata.interchanges).toEqual(many.interchanges.slice(0, LISTED_INTERCHANGES));
    expect(detail!.message.metadata.interchangeCount).toBe(LISTED_INTERCHANGES + 50);
    // Found by its last interchange, which the display leaves out.
    const found = await messages.search({ interchange: String(300_000_000 + LISTED_INTERCHANGES + 49) });
    expect(found.items.map((m) => m.id)).toEqual([many.id]);
    expect(found.items[0].metadata.interchanges).toHaveLength(LISTED_INTERCHANGES);
    expect(found.items[0].metadata.interchangeCount).toBe(LISTED_INTERCHANGES + 50);
    // The worker's read keeps them all.
    expect((await messages.findById(many.id))!.metadata.interchanges).toHaveLength(LISTED_INTERCHANGES + 50);
  });

  it('shows a message of a few as it is', async () => {
    const few = await withInterchanges(LISTED_INTERCHANGES, 400_000_000);
    const detail = await messages.findDetail(few.id);
    expect(detail!.message.metadata.interchanges).toEqual(few.interchanges);
    expect(detail!.message.metadata).not.toHaveProperty('interchangeCount');
    const found = await messages.search({ interchange: '400000000' });
    expect(found.items[0].metadata.interchanges).toEqual(few.interchanges);
  });
});
