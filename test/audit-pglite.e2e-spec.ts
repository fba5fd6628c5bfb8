import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import {
  createAuditDataSource,
  Message,
  MessageRepository,
  OperationRepository,
  runMigrations,
  StreamedBatch,
} from '@dockbridge/audit';

/**
 * The embedded default: no url, PGlite in a data directory. typeorm-pglite keeps one PGlite per
 * process, so this suite opens one data source at a time.
 */
describe('audit store on PGlite', () => {
  let dataDir: string;
  let dataSource: DataSource;

  const open = () => createAuditDataSource({ dataDir, migrationsRun: true }).initialize();
  const webhook = { partnerId: 'acme', channel: 'api', rawPayload: '{}', contentType: 'application/json' } as const;

  beforeAll(async () => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'dockbridge-audit-')), 'pglite');
    dataSource = await open();
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) {
      await dataSource.destroy();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('migrates on start and round-trips a message with its operations, attempts and events', async () => {
    const messages = new MessageRepository(dataSource);
    const operations = new OperationRepository(dataSource);
    const message = await messages.record({
      partnerId: 'acme',
      channel: 'http-edi',
      rawPayload: 'ISA*00*...~IEA*1*000000001~',
      contentType: 'application/edi-x12',
      metadata: { fileName: 'PO000000001.edi' },
    });
    const [op] = await operations.addMany(message.id, [
      { kind: 'document.upsert', organisationId: 'org-1', targetId: 'PO-1', payload: { id: 'PO-1' } },
    ]);
    expect(await operations.gate([op.id], 10_000)).toMatchObject([{ verdict: 'go' }]);
    await operations.recordAttempt(op.id, {
      startedAt: new Date(),
      durationMs: 12,
      httpStatus: 200,
      outcome: 'success',
    });
    await operations.settle(op.id, { status: 'delivered' });
    await messages.settleMessage(message.id);

    const detail = await messages.findDetail(message.id);
    expect(detail?.message).toMatchObject({
      id: message.id,
      status: 'delivered',
      metadata: { fileName: 'PO000000001.edi' },
    });
    expect(detail?.operations).toEqual([
      expect.objectContaining({ id: op.id, status: 'delivered', attemptCount: 1, payload: { id: 'PO-1' } }),
    ]);
    expect(detail?.operations[0].attempts).toEqual([expect.objectContaining({ httpStatus: 200, outcome: 'success' })]);
    expect(detail?.events.map((e) => [e.fromStatus, e.toStatus])).toEqual([
      [null, 'received'],
      ['received', 'delivered'],
    ]);
    expect((await messages.search({ documentId: 'PO-1' })).items.map((m) => m.id)).toEqual([message.id]);
    // The EDI filters' JSON operators and partial indexes work embedded as well.
    await messages.annotate(message.id, {
      fileName: 'po-1.edi',
      interchanges: [{ sender: 'ACME', control: '000000001', refused: false }],
    });
    expect((await messages.search({ fileName: 'po-1.edi', interchange: '1' })).items.map((m) => m.id)).toEqual([
      message.id,
    ]);
    expect((await messages.search({ interchange: '2' })).items).toEqual([]);
  });

  it('settles concurrent workers consistently', async () => {
    const messages = new MessageRepository(dataSource);
    const operations = new OperationRepository(dataSource);
    const message = await messages.record(webhook);
    const ops = await operations.addMany(
      message.id,
      Array.from({ length: 6 }, (_, i) => ({ kind: 'document.upsert' as const, targetId: `PO-${i}`, payload: {} })),
    );
    await Promise.all(
      ops.map(async (op, i) => {
        await operations.recordAttempt(op.id, { startedAt: new Date(), durationMs: 1, outcome: 'retryable' });
        await operations.settle(op.id, i === 0 ? { status: 'failed', lastError: '400' } : { status: 'delivered' });
        await messages.settleMessage(message.id);
      }),
    );
    // A transaction that fails rolls back alone.
    await expect(messages.record({ ...webhook, actor: 'operator:\u0000' })).rejects.toThrow();

    expect((await messages.findById(message.id))?.status).toBe('partially_failed');
    expect(await operations.statusCounts(message.id)).toMatchObject({ delivered: 5, failed: 1 });
    expect(await messages.countBy({ partnerId: 'acme' })).toBe(2);
  });

  it('stores a streamed translation a statement a batch and pages it by seq windows', async () => {
    const messages = new MessageRepository(dataSource);
    const operations = new OperationRepository(dataSource);
    const message = await messages.record({
      ...webhook,
      partnerId: 'kettle',
      contentType: 'application/edi-x12',
      rawPayload: 'ISA~',
    });
    await messages.transition(message.id, 'translating', 'worker');
    const run = await operations.beginStreamedWrite(message.id);
    const upsert = (n: number) => ({
      kind: 'document.upsert' as const,
      organisationId: 'org-1',
      targetId: `ASN-${n}`,
      orderKey: `document|org-1|ASN-${n}`,
      payload: { kind: 'document.upsert', organisationId: 'org-1', document: { id: `ASN-${n}` } },
    });
    await operations.appendStreamed(run, StreamedBatch.of(message.id, 1, [1, 2, 3].map(upsert)));
    await operations.appendStreamed(run, StreamedBatch.of(message.id, 4, [4, 5].map(upsert)));
    await operations.removeSeqRange(message.id, 2, 4); // a duplicate interchange's sets, in the middle
    await expect(
      operations.appendStreamed('another run', StreamedBatch.of(message.id, 6, [6].map(upsert))),
    ).rejects.toThrow(/another|taken over/i);

    const pages: number[] = [];
    for await (const page of operations.planEntryPages(message.id, 2)) {
      pages.push(page.length);
    }
    expect(pages).toEqual([1, 1, 1]);
    await messages.transition(message.id, 'delivering', 'worker');
    const detail = await messages.findDetail(message.id, { limit: 2 });
    expect(detail?.operations.map((op) => [op.seq, op.payload])).toEqual([
      [1, upsert(1).payload],
      [4, upsert(4).payload],
    ]);
    expect(detail?.nextAfter).toBe(4);
    expect(detail?.counts.byStatus).toEqual({ pending: 3 });
    expect((await messages.settleMessage(message.id)).status).toBe('delivering');
  });

  it('does not let one transaction roll back another that is in flight', async () => {
    const messages = new MessageRepository(dataSource);
    const message = await messages.record(webhook);
    const slow = dataSource.transaction(async (manager) => {
      await manager.update(Message, { id: message.id }, { statusReason: 'kept' });
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const failing = dataSource.transaction(async (manager) => {
      await manager.query('SELECT 1');
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    await slow;
    expect((await messages.findById(message.id))?.statusReason).toBe('kept');
  });

  it('records a batch in one statement, claiming each idempotency key once (in the batch and across batches)', async () => {
    const messages = new MessageRepository(dataSource);
    const entry = (rawPayload: string, idempotencyKey?: string) => ({
      message: { ...webhook, partnerId: 'acme-batch', rawPayload },
      idempotencyKey,
    });
    const recorded = async (entries: ReturnType<typeof entry>[]) => {
      const results = await messages.recordMany(entries);
      return results.map((r) => {
        if (r instanceof Error) {
          throw r;
        }
        return r;
      });
    };
    const first = await recorded([
      entry('{"n":1}', 'k1'),
      entry('{"n":2}'),
      entry('{"n":3}', 'k1'),
      entry('{"n":4}', 'k2'),
    ]);
    expect(first.map((r) => r.existing)).toEqual([false, false, true, false]);
    expect(first[2].id).toBe(first[0].id);
    const again = await recorded([entry('{"n":5}', 'k2'), entry('{"n":6}', 'k3')]);
    expect(again).toEqual([
      { id: first[3].id, existing: true, samePayload: false },
      { id: expect.any(String), existing: false },
    ]);
    expect((await recorded([entry('{"n":4}', 'k2')]))[0]).toEqual({
      id: first[3].id,
      existing: true,
      samePayload: true,
    });
    const stored = await messages.findById(first[0].id);
    expect(stored).toMatchObject({ rawPayload: '{"n":1}', status: 'received', metadata: { idempotencyKey: 'k1' } });
    expect(await messages.countBy({ partnerId: 'acme-batch' })).toBe(4);
    expect((await messages.findDetail(first[1].id))?.events.map((e) => [e.fromStatus, e.toStatus])).toEqual([
      [null, 'received'],
    ]);
    // One batch keeps its arrival order (booking changes are delivered in receipt order).
    const inBatch = [first[0].id, first[1].id, first[3].id];
    const byArrival: { id: string }[] = await dataSource.query(
      `SELECT id FROM message WHERE id = ANY($1) ORDER BY arrival`,
      [inBatch],
    );
    expect(byArrival.map((r) => r.id)).toEqual(inBatch);
    // Keys are stored well-formed and bounded: a long one by its hash, and it still deduplicates.
    const long = 'k'.repeat(5000);
    const [kept, repeated] = await recorded([entry('{"n":7}', long), entry('{"n":8}', long)]);
    expect(repeated).toEqual({ id: kept.id, existing: true, samePayload: false });
    expect((await messages.findById(kept.id))?.metadata.idempotencyKey).toMatch(/^sha256:[0-9a-f]{64}$/);
    const [odd] = await recorded([entry('{"n":9}', 'lone \ud800 and nul \u0000')]);
    expect((await messages.findById(odd.id))?.metadata.idempotencyKey).toBe('lone \ufffd and nul \ufffd');
  });

  it('keeps its data across restarts and has nothing left to migrate', async () => {
    await dataSource.destroy();
    dataSource = await open();
    expect(await runMigrations(dataSource)).toEqual([]);
    expect(await new MessageRepository(dataSource).countBy({ partnerId: 'acme' })).toBe(3);
  });

  it("ends a message's unsettled operations, or none while one is in flight", async () => {
    const messages = new MessageRepository(dataSource);
    const operations = new OperationRepository(dataSource);
    const message = await messages.record({ ...webhook, partnerId: 'ending', rawPayload: '{"end":1}' });
    /** The operation's lease ran out (its worker died, or its platform job outlasted it). */
    const lapse = (id: string) =>
      dataSource.query(`UPDATE operation SET in_flight_until = now() - interval '1 second' WHERE id = $1`, [id]);
    const [sent, held, waiting] = await operations.addMany(message.id, [
      { kind: 'document.upsert', organisationId: 'org-1', targetId: 'PO-E1', payload: { id: 'PO-E1' } },
      { kind: 'document.upsert', organisationId: 'org-1', targetId: 'PO-E2', payload: { id: 'PO-E2' } },
      { kind: 'document.upsert', organisationId: 'org-1', targetId: 'PO-E3', payload: { id: 'PO-E3' } },
    ]);
    await operations.recordAttempts([
      {
        operationId: sent.id,
        startedAt: new Date(),
        durationMs: 5,
        httpStatus: 200,
        outcome: 'success',
        settlement: { status: 'delivered' },
      },
    ]);
    expect(await operations.gate([held.id], 60_000)).toMatchObject([{ verdict: 'go' }]); // a call under way
    expect(await operations.endUnsettled(message.id, 'ended by operator:jo: stuck')).toMatchObject({
      ended: 0,
      inFlight: 1,
    });
    expect((await operations.findById(waiting.id))?.status).toBe('pending');

    await lapse(held.id);
    expect(await operations.endUnsettled(message.id, 'ended by operator:jo: stuck')).toEqual({
      ended: 2,
      inFlight: 0,
      inFlightUntil: null,
    });
    for (const id of [held.id, waiting.id]) {
      expect(await operations.findById(id)).toMatchObject({
        status: 'failed',
        lastError: 'ended by operator:jo: stuck',
      });
    }
    expect((await operations.findById(sent.id))?.status).toBe('delivered');
    // The call that never answered is in the audit as interrupted, not left in flight.
    const [attempt]: { outcome: string }[] = await dataSource.query(
      `SELECT outcome FROM attempt WHERE operation_id = $1`,
      [held.id],
    );
    expect(attempt.outcome).toBe('interrupted');
    expect((await messages.settleMessage(message.id, 'operator:jo')).status).toBe('partially_failed');

    // A batch chunk's write whose lease lapsed with no answer recorded: its platform job may still run.
    const batched = await messages.record({ ...webhook, partnerId: 'ending', rawPayload: '{"end":2}' });
    const [chunked] = await operations.addMany(batched.id, [
      { kind: 'document.upsert', organisationId: 'org-1', targetId: 'PO-E4', payload: { id: 'PO-E4' } },
    ]);
    expect(await operations.gateChunk([chunked.id], 60_000, chunked.id)).toMatchObject([{ verdict: 'go' }]);
    await lapse(chunked.id);
    expect(await operations.endUnsettled(batched.id, 'ended by operator:jo: stuck')).toEqual({
      ended: 0,
      inFlight: 1,
      inFlightUntil: null,
    });
    expect((await operations.findById(chunked.id))?.status).toBe('delivering');
  });
});
