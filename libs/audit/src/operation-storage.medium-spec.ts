import { DataSource } from 'typeorm';
import { recordApiMessage, startMediumDatabase } from '../../../test/support/medium';
import { MessageRepository } from './message.repository';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { NewOperation, OperationRepository, PLAN_PAGE, StreamedBatch } from './operation.repository';

const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const ROWS = 200;

// A full collection on demand, to see what a read leaves held.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** An ASN's document of 40 loads, as the 856 mapping writes it: ~2.7 KB of JSON, ~1.1 KB compressed. */
const asn = (n: number) => ({
  kind: 'document.upsert',
  organisationId: ORG,
  document: {
    id: `ASN-${n}`,
    direction: 'Inbound',
    occupant: { coreName: 'KETTLE', coreId: 'DC01' },
    offsite: { coreName: 'KETTLE', coreId: 'SUP-KETTLE' },
    loads: Array.from({ length: 40 }, (_, i) => ({ name: `Item ${i + 1}`, quantity: i + 1, loadTag: `SKU-${n + i}` })),
  },
});

/**
 * What the database keeps of an operation as it is delivered (medium: real Postgres). Every update
 * writes a new version of the row; the document must not be copied into each one.
 */
describe('operation rows on their way to delivered (medium: real Postgres)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let operations: OperationRepository;

  beforeAll(async () => {
    database = await startMediumDatabase();
    operations = new OperationRepository(database.dataSource);
  }, 60_000);
  afterAll(() => database?.close());

  /** A message past translation, as its operations' is when they are gated (not held back by the one before). */
  const newMessage = async () => {
    const message = await recordApiMessage(database.dataSource);
    await new MessageRepository(database.dataSource).transition(message.id, 'delivering', 'worker');
    return message;
  };
  /** `count` document writes (upserts unless told) of a new message, each to its own document `<prefix>-<n>`. */
  const writes = async (
    count: number,
    prefix: string,
    payloadOf: (n: number) => object,
    kind: 'document.upsert' | 'document.delete' = 'document.upsert',
  ) => {
    const message = await newMessage();
    const rows = await operations.addMany(
      message.id,
      Array.from({ length: count }, (_, n) => ({
        kind,
        organisationId: ORG,
        targetId: `${prefix}-${n}`,
        orderKey: `document|${ORG}|${prefix}-${n}`,
        payload: payloadOf(n),
      })),
    );
    return { message, rows };
  };

  /** 20 deletes, each stored in one block with a 900 KB document (a block ends at a MiB of text). */
  const deletesBesideLargeDocuments = async () => {
    const message = await newMessage();
    const pairs = Array.from({ length: 20 }, (_, n): NewOperation[] => [
      {
        kind: 'document.upsert',
        organisationId: ORG,
        payload: { ...asn(n), document: { id: `BIG-${n}`, note: 'x'.repeat(900_000) } },
      },
      {
        kind: 'document.delete',
        organisationId: ORG,
        payload: { kind: 'document.delete', organisationId: ORG, documentId: `SHIPMENT-CANCELLED-${n}` },
      },
    ]).flat();
    return { message, rows: await operations.addMany(message.id, pairs) };
  };

  it('plans without JIT: compiling the gate of a 25,000-document chunk took longer than running it', async () => {
    expect(await database.dataSource.query('SHOW jit')).toEqual([{ jit: 'off' }]);
  });

  it('claimed and settled, an operation adds a few hundred bytes to its table, not a copy of its document', async () => {
    const { rows } = await writes(ROWS, 'ASN', (n) => asn(n * 40));
    const heapBytes = async () =>
      Number((await database.dataSource.query(`SELECT pg_relation_size('operation') AS bytes`))[0].bytes as string);
    const written = await heapBytes();

    const verdicts = await operations.gate(
      rows.map((row) => row.id),
      60_000,
    );
    expect(verdicts.every((v) => v.verdict === 'go')).toBe(true);
    for (const row of rows) {
      await operations.settle(row.id, { status: 'delivered' });
    }
    const settled = await heapBytes();

    // The row holds no document (payload_block does): ~250 bytes a version. Inline, each new version carried the compressed document: ~1,200.
    expect((settled - written) / ROWS).toBeLessThan(600);
    expect((await operations.findById(rows[7].id))!.payload).toEqual(asn(7 * 40));
  });
  it("keeps a message's documents compressed together: a few hundred bytes each, not a row's compressed copy", async () => {
    const message = await newMessage();
    const size = async () =>
      Number((await database.dataSource.query(`SELECT pg_total_relation_size('payload_block') AS bytes`))[0].bytes);
    const before = await size();
    const rows = await operations.addMany(
      message.id,
      Array.from({ length: 640 }, (_, n) => ({
        kind: 'document.upsert' as const,
        organisationId: ORG,
        payload: asn(n),
      })),
    );
    // One jsonb a row: ~1,100 bytes compressed (pglz), ~1,330 in TOAST pages. 100 to a block: ~220.
    expect((await size()) - before).toBeLessThan(640 * 400);
    expect((await operations.listByMessage(message.id)).map((op) => op.payload)).toEqual(rows.map((_, n) => asn(n)));
  });

  it('reads a batch of deletes without keeping the blocks of the large documents they were stored with', async () => {
    const { rows } = await deletesBesideLargeDocuments();
    const deletes = rows.filter((row) => row.kind === 'document.delete').map((row) => row.id);

    gc();
    const before = process.memoryUsage().heapUsed;
    const bodies: string[] = [];
    for await (const body of operations.jsonOf(deletes, 'documentId')) {
      bodies.push(body);
    }
    await new Promise((resolve) => setTimeout(resolve, 50)); // what the driver holds for a while goes
    gc();
    const held = process.memoryUsage().heapUsed - before;
    expect(bodies).toEqual(Array.from({ length: 20 }, (_, n) => `"SHIPMENT-CANCELLED-${n}"`));
    expect(held).toBeLessThan(4_000_000); // slices of their lines kept the 20 blocks: ~18 MB
  });

  it('reads the failed deletes a replay retries without keeping the blocks they were stored with', async () => {
    const { message, rows } = await deletesBesideLargeDocuments();
    for (const row of rows.filter((r) => r.kind === 'document.delete')) {
      await operations.settle(row.id, { status: 'failed', lastError: 'refused', errorClass: 'permanent' });
    }

    gc();
    const before = process.memoryUsage().heapUsed;
    const failed = (await operations.failedOperationsJson(message.id, 1e9)) as { json: string; count: number };
    await new Promise((resolve) => setTimeout(resolve, 50)); // what the driver holds for a while goes
    gc();
    const held = process.memoryUsage().heapUsed - before;
    expect(failed.count).toBe(20);
    expect(JSON.parse(failed.json)[19]).toEqual({
      kind: 'document.delete',
      organisationId: ORG,
      documentId: 'SHIPMENT-CANCELLED-19',
    });
    expect(held).toBeLessThan(4_000_000); // the texts as slices kept the 20 blocks: ~18 MB
  });

  it('plans a large message a window of seqs at a time, whatever plan the statistics lead to', async () => {
    const message = await newMessage();
    // 13,000 operations, seqs 5,001-12,000 missing (removed as duplicates): wider than a page.
    await database.dataSource.query(
      `INSERT INTO operation (id, message_id, seq, kind, organisation_id, target_id, status)
       SELECT gen_random_uuid(), $1, g, 'document.upsert', $2, 'D-' || g, 'pending'
         FROM generate_series(1, 20000) g WHERE g <= 5000 OR g > 12000`,
      [message.id, ORG],
    );
    const pages: number[] = [];
    const ids: string[] = [];
    for await (const page of operations.planEntryPages(message.id, 2000)) {
      pages.push(page.length);
      ids.push(...page.map((entry) => entry.id));
    }
    const inOrder: { id: string }[] = await database.dataSource.query(
      `SELECT id FROM operation WHERE message_id = $1 ORDER BY seq`,
      [message.id],
    );
    expect(ids).toEqual(inOrder.map((row) => row.id));
    expect(pages).toEqual([2000, 2000, 1000, 2000, 2000, 2000, 2000]);

    // Statistics that make a large message look small lead the planner to a bitmap scan and a sort
    // (what it chose for a 418,000-operation file): a page then read every row after it. A window reads a page.
    const plan = await database.dataSource.transaction(async (manager) => {
      await manager.query(`SET LOCAL enable_indexscan = off`);
      const [row]: { 'QUERY PLAN': { Plan: PlanNode }[] }[] = await manager.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${PLAN_PAGE}`,
        [message.id, 0, 2000],
      );
      return row['QUERY PLAN'][0].Plan;
    });
    expect(rowsScanned(plan)).toBe(2000);
  });

  it('reads back what a streamed write stored last where it discarded operations and wrote others', async () => {
    const message = await recordApiMessage(database.dataSource);
    await new MessageRepository(database.dataSource).transition(message.id, 'translating', 'worker');
    const run = await operations.beginStreamedWrite(message.id);
    const upsert = (n: number) => ({ kind: 'document.upsert' as const, organisationId: ORG, payload: asn(n) });
    await operations.appendStreamed(run, StreamedBatch.of(message.id, 1, [0, 1, 2, 3].map(upsert)));
    // An interchange of seq 3 on refused at its end: discarded, and the next one's sets numbered from 3.
    await operations.removeSeqRange(message.id, 3);
    await operations.appendStreamed(run, StreamedBatch.of(message.id, 3, [30, 40].map(upsert)));
    await operations.removeSeqRange(message.id, 2, 3);
    // Translated (an untranslated message would hold its partner's later writes in the tests after this one).
    await new MessageRepository(database.dataSource).transition(message.id, 'delivering', 'worker');
    const stored = await operations.listByMessage(message.id);
    expect(stored.map((op) => [op.seq, op.payload])).toEqual([
      [1, asn(0)],
      [3, asn(30)],
      [4, asn(40)],
    ]);
    expect(stored.map((op) => op.bodyBytes)).toEqual(
      [0, 30, 40].map((n) => Buffer.byteLength(JSON.stringify(asn(n).document))),
    );
    // A batch body reads the documents as they were written.
    const documents: string[] = [];
    for await (const json of operations.jsonOf(
      stored.map((op) => op.id),
      'document',
    )) {
      documents.push(json);
    }
    expect(documents).toEqual([0, 30, 40].map((n) => JSON.stringify(asn(n).document)));
  });

  it('claims a batch in place: each row stays on its page and no index grows', async () => {
    const message = await newMessage();
    const rows = await operations.addMany(
      message.id,
      Array.from({ length: 1_000 }, (_, n) => {
        const { loads, ...document } = asn(n).document;
        return {
          kind: 'document.upsert' as const,
          organisationId: ORG,
          targetId: `SHORT-${n}`,
          orderKey: `document|${ORG}|SHORT-${n}`,
          payload: { ...asn(n), document: { ...document, id: `SHORT-${n}`, loads: loads.slice(0, 4) } },
        };
      }),
    );
    const ids = rows.map((row) => row.id);
    const pages = async () =>
      (
        await database.dataSource.query<{ page: string }[]>(
          `SELECT split_part(trim(both '()' from ctid::text), ',', 1) AS page FROM operation WHERE id = ANY($1::uuid[]) ORDER BY seq`,
          [ids],
        )
      ).map((row) => row.page);
    const indexBytes = async () =>
      Number((await database.dataSource.query(`SELECT pg_indexes_size('operation') AS bytes`))[0].bytes as string);
    const [before, indexesBefore] = [await pages(), await indexBytes()];

    // The claim's versions fit beside the rows (over half of each page is free; each is 8 bytes longer). The settlement's fit
    // once the page is pruned of the rows' first versions, which Postgres does only when no
    // snapshot may still see them: not checked here, as another database's transactions can hold
    // that back for a moment (the bench counts what stays dead: 8,868 of 40,892 rows).
    expect((await operations.gate(ids, 60_000)).every((v) => v.verdict === 'go')).toBe(true);

    // A version written elsewhere would have moved the row (and added an entry to every index).
    expect(await pages()).toEqual(before);
    expect(await indexBytes()).toBe(indexesBefore);
  });

  it("reads a large chunk's batch entries a page at a time, in the message's order whatever the ids' order", async () => {
    const { rows } = await writes(
      12_000,
      'PAGED',
      (n) => ({ kind: 'document.delete', organisationId: ORG, documentId: `PAGED-${n}` }),
      'document.delete',
    );
    // Asked for backwards: pages of 2,000 ids are each the wrong way round, and come back in order.
    const entries = await operations.batchEntriesOf(rows.map((row) => row.id).reverse());
    expect(entries.map((entry) => entry.id)).toEqual(rows.map((row) => row.id));
    // In order (as a chunk asks), and in order but for two ids of different pages swapped.
    const inOrder = rows.map((row) => row.id);
    expect((await operations.batchEntriesOf(inOrder)).map((entry) => entry.id)).toEqual(inOrder);
    const swapped = [...inOrder];
    [swapped[10], swapped[11_000]] = [swapped[11_000], swapped[10]];
    expect((await operations.batchEntriesOf(swapped)).map((entry) => entry.id)).toEqual(inOrder);
    expect(entries[11_999]).toEqual({
      id: rows[11_999].id,
      status: 'pending',
      targetId: 'PAGED-11999',
      bytes: JSON.stringify('PAGED-11999').length,
      options: null,
    });
  });

  it("finishes a batch's attempts in place: each stays on its page and no index grows", async () => {
    const { rows } = await writes(1_000, 'DONE', asn);
    const ids = rows.map((row) => row.id);
    // The claim opens an in-flight attempt for each, before any call.
    expect((await operations.gateChunk(ids, 60_000, ids[0])).every((v) => v.verdict === 'go')).toBe(true);
    const pages = async () =>
      (
        await database.dataSource.query<{ page: string }[]>(
          `SELECT split_part(trim(both '()' from ctid::text), ',', 1) AS page FROM attempt
            WHERE operation_id = ANY($1::uuid[]) ORDER BY operation_id`,
          [ids],
        )
      ).map((row) => row.page);
    const indexBytes = async () =>
      Number((await database.dataSource.query(`SELECT pg_indexes_size('attempt') AS bytes`))[0].bytes as string);
    const [before, indexesBefore] = [await pages(), await indexBytes()];

    await operations.recordAttempts(
      ids.map((operationId) => ({
        operationId,
        startedAt: new Date(),
        durationMs: 2_734,
        httpStatus: 200,
        outcome: 'success' as const,
        requestSummary: 'batch document.upsert job 6ea62cb1-4fa7-4fdc-be95-915f8bfbe4a6 #1',
        settlement: { status: 'delivered' as const },
      })),
    );
    expect(await pages()).toEqual(before);
    expect(await indexBytes()).toBe(indexesBefore);
  });

  it('indexes an operation in tens of bytes, whatever the length of its keys', async () => {
    const message = await newMessage();
    const indexBytes = async () =>
      Number((await database.dataSource.query(`SELECT pg_indexes_size('operation') AS bytes`))[0].bytes as string);
    const before = await indexBytes();
    const id = (n: number) => `ASN-${(n * 7_919) % 100_003}-${'0'.repeat(20)}${n}`;
    await operations.addMany(
      message.id,
      Array.from({ length: 5_000 }, (_, n) => ({
        kind: 'document.upsert' as const,
        organisationId: ORG,
        targetId: id(n),
        orderKey: `document|${ORG}|${id(n)}`,
        payload: {},
      })),
    );
    // Four indexes: id, (message, seq), target and order key; b-trees of those keys took ~330 bytes.
    expect(((await indexBytes()) - before) / 5_000).toBeLessThan(200);
    // The row keeps the key's digest, the one the migration gave rows written before.
    const [{ same }] = await database.dataSource.query(
      `SELECT bool_and(order_key = md5('document|' || organisation_id || '|' || target_id)::uuid) AS same FROM operation WHERE message_id = $1`,
      [message.id],
    );
    expect(same).toBe(true);
  });

  it('records a batch job of more attempts than one statement takes all together, or none of them', async () => {
    const message = await newMessage();
    const n = 2_001; // RECORD_CHUNK (500) four times and one more: five statements
    const rows = await operations.addMany(
      message.id,
      Array.from({ length: n }, (_, i) => ({ kind: 'document.delete' as const, organisationId: ORG, payload: { i } })),
    );
    const attempt = (operationId: string) => ({
      operationId,
      startedAt: new Date(),
      durationMs: 3,
      httpStatus: 200,
      outcome: 'success' as const,
      settlement: { status: 'delivered' as const },
    });
    const counts = async () =>
      (
        await database.dataSource.query(
          `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
             (SELECT count(*)::int FROM attempt a JOIN operation o ON o.id = a.operation_id WHERE o.message_id = $1) AS attempts
           FROM operation WHERE message_id = $1`,
          [message.id],
        )
      )[0];

    // The last one names an operation that does not exist: the first statements' 2,000 are undone too.
    const unknown = '0198f6c2-0000-7000-8000-000000000000';
    await expect(
      operations.recordAttempts([...rows.map((row) => attempt(row.id)).slice(1), attempt(unknown)]),
    ).rejects.toThrow();
    expect(await counts()).toEqual({ delivered: 0, attempts: 0 });

    await operations.recordAttempts(rows.map((row) => attempt(row.id)));
    expect(await counts()).toEqual({ delivered: n, attempts: n });
  });
});

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  Plans?: PlanNode[];
}

/** The most rows any scan of the plan read. */
function rowsScanned(node: PlanNode): number {
  const own = node['Node Type'].includes('Scan') ? node['Actual Rows'] : 0;
  return Math.max(own, ...(node.Plans ?? []).map(rowsScanned));
}
