import { createHash, randomUUID } from 'node:crypto';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import {
  AuditModule,
  AuditRecordNotFoundError,
  createAuditDataSource,
  DocumentOperation,
  InterchangeRepository,
  Message,
  MessageEvent,
  MessageFilter,
  MessageRepository,
  migrate,
  NewOperation,
  OperationRepository,
  parsedWeightOf,
  runMigrations,
} from '@dockbridge/audit';
import { EdiSearchIndexes1768003200000 } from '../libs/audit/src/migrations/1768003200000-edi-search-indexes';
import { PurgeExpired } from '@dockbridge/pipeline';
import { createTestDatabase, TestDatabase } from './support/database';

const X12 =
  'ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *260101*1200*U*00401*000000001*0*P*>~';

describe('audit store on Postgres', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let messages: MessageRepository;
  let operations: OperationRepository;
  let appliedAtStart: string[];

  /** A partner id of its own per test, so tests sharing the database do not see each other's rows. */
  const partner = () => `partner-${randomUUID().slice(0, 8)}`;
  const record = (partnerId: string, extra: Partial<Parameters<MessageRepository['record']>[0]> = {}) =>
    messages.record({ partnerId, channel: 'sftp', rawPayload: X12, contentType: 'application/edi-x12', ...extra });
  const upsert = (targetId: string): NewOperation => ({
    kind: 'document.upsert',
    organisationId: 'org-1',
    targetId,
    payload: { id: targetId, type: 'purchase-order' },
  });
  const eventsOf = (messageId: string) =>
    dataSource.manager.find(MessageEvent, { where: { messageId }, order: { at: 'ASC' } });

  const EVERY_MIGRATION = [
    'CreateAuditTables1767225600000',
    'CreateInterchangeReceipts1767484800000',
    'InterchangeReceiptsOutliveMessages1767657600000',
    'MessageArrivalOrder1767744000000',
    'IdempotencyKeyOnMessage1767830400000',
    'DropMessageSha256Index1767916800000',
    'EdiSearchIndexes1768003200000',
    'NewestWriteWins1768089600000',
    'IndexMessageReplayOf1768176000000',
    'OperationRetryState1768262400000',
    'AttemptRecordedBeforeCall1768400000000',
    'ReplayRuns1768572800000',
    'OperatorAccounts1768800000000',
    'OperationPayloadOutOfLine1768900000000',
    'OperationUpdatesInPlace1769000000000',
    'OperationTally1769100000000',
    'OperationPayloadBlocks1769200000000',
    'CompactDeliveryKeys1769300000000',
    'OperationClaimedBy1769400000000',
    'UntranslatedMessagesIndex1769500000000',
    'AbandoningMessagesIndex1769600000000',
    'OperationPayloadWeight1769700000000',
  ];

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await createAuditDataSource({ url: db.url, dataDir: '', migrationsRun: false }).initialize();
    appliedAtStart = await runMigrations(dataSource);
    messages = new MessageRepository(dataSource);
    operations = new OperationRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  describe('migrations', () => {
    it('create the schema once; a second run applies nothing', async () => {
      expect(appliedAtStart).toEqual(EVERY_MIGRATION);
      expect(await runMigrations(dataSource)).toEqual([]);
    });

    it('run once when two processes start together on a fresh database (an advisory lock): no "already exists"', async () => {
      const fresh = await createTestDatabase();
      try {
        const [a, b] = await Promise.all([
          migrate({ url: fresh.url, dataDir: '' }),
          migrate({ url: fresh.url, dataDir: '' }),
        ]);
        expect([...a, ...b]).toEqual(EVERY_MIGRATION);
      } finally {
        await fresh.drop();
      }
    });

    it('leave a schema the entities agree with (nothing for TypeORM to synchronise)', async () => {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    });

    it('records the interchanges of messages translated before they were recorded, from their receipts', async () => {
      const partnerId = partner();
      const old = await record(partnerId, { metadata: { fileName: 'old.edi' } });
      const already = await record(partnerId);
      await messages.annotate(already.id, {
        interchanges: [{ sender: 'KETTLE', control: '000000078', refused: true }],
      });
      // Receipts as translation writes them: ISA05/ISA06/ISA13 (a sender id may hold a slash).
      await new InterchangeRepository(dataSource).claim(
        partnerId,
        ['ZZ/KET/TLE/000000077', 'ZZ/KETTLE/000000076'],
        old.id,
        30,
      );
      await new InterchangeRepository(dataSource).claim(partnerId, ['ZZ/KETTLE/000000078'], already.id, 30);
      const runner = dataSource.createQueryRunner();
      try {
        const migration = new EdiSearchIndexes1768003200000();
        await migration.down(runner);
        await migration.up(runner);
      } finally {
        await runner.release();
      }
      expect((await messages.findById(old.id))!.metadata).toEqual({
        fileName: 'old.edi',
        interchanges: [
          { sender: 'KETTLE', control: '000000076', refused: false },
          { sender: 'KET/TLE', control: '000000077', refused: false },
        ],
      });
      // What translation recorded is kept (a refused interchange has no receipt to say so).
      expect((await messages.findById(already.id))!.metadata.interchanges).toEqual([
        { sender: 'KETTLE', control: '000000078', refused: true },
      ]);
      expect((await messages.search({ interchange: '77' })).items.map((m) => m.id)).toEqual([old.id]);
    });

    it('migrate() brings a fresh database up to date and is idempotent', async () => {
      const fresh = await createTestDatabase();
      try {
        expect(await migrate({ url: fresh.url, dataDir: '' })).toEqual(EVERY_MIGRATION);
        expect(await migrate({ url: fresh.url, dataDir: '' })).toEqual([]);
      } finally {
        await fresh.drop();
      }
    });
  });

  describe('MessageRepository.record', () => {
    it('stores the message as received with its first event', async () => {
      const partnerId = partner();
      const message = await record(partnerId, { metadata: { fileName: 'PO000000001.edi' } });

      expect(message).toMatchObject({
        partnerId,
        channel: 'sftp',
        rawPayload: X12,
        status: 'received',
        statusReason: null,
        replayOf: null,
        metadata: { fileName: 'PO000000001.edi' },
        sha256: createHash('sha256').update(X12).digest('hex'),
      });
      expect(message.receivedAt).toBeInstanceOf(Date);
      expect(await messages.findById(message.id)).toEqual(message);
      const events = await eventsOf(message.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ fromStatus: null, toStatus: 'received', actor: 'gateway', reason: null });
    });

    it('stores any payload exactly, alone in its statement or with others', async () => {
      const partnerId = partner();
      const payloads = ['{"a":"q\\"uote\\\\ \\u00e9"}', 'line\r\nnext\t"x"\\', 'é😀 \uFFFD', ''];
      const alone = await Promise.all(payloads.map((rawPayload) => record(partnerId, { rawPayload })));
      const together = await messages.recordMany(
        payloads.map((rawPayload) => ({
          message: { partnerId, channel: 'api', rawPayload, contentType: 'application/json' },
        })),
      );
      const ids = [...alone.map((m) => m.id), ...together.map((r) => (r as { id: string }).id)];
      const stored = await Promise.all(ids.map((id) => messages.findById(id)));
      expect(stored.map((m) => [m!.rawPayload, m!.sha256])).toEqual(
        [...payloads, ...payloads].map((p) => [p, createHash('sha256').update(p).digest('hex')]),
      );
    });

    it('stores nothing when the event cannot be written (one transaction)', async () => {
      const partnerId = partner();
      // Postgres refuses a NUL in text: the message insert succeeds, the event insert fails.
      await expect(record(partnerId, { actor: 'operator:\u0000' })).rejects.toThrow();
      expect(await messages.countBy({ partnerId })).toBe(0);
    });

    it('refuses a payload Postgres text cannot hold', async () => {
      await expect(record(partner(), { rawPayload: 'a\u0000b' })).rejects.toThrow(/NUL/);
    });

    it('links a replay to its original', async () => {
      const original = await record(partner());
      const replay = await record(original.partnerId, { channel: 'replay', replayOf: original.id });
      expect((await messages.findById(replay.id))?.replayOf).toBe(original.id);
    });

    it('finds nothing for an unknown or malformed id', async () => {
      expect(await messages.findById(randomUUID())).toBeNull();
      expect(await messages.findById('not-a-uuid')).toBeNull();
      expect(await messages.findDetail('not-a-uuid')).toBeNull();
    });
  });

  describe('MessageRepository.transition', () => {
    it('changes the status and appends an event for each change', async () => {
      const message = await record(partner());
      const translating = await messages.transition(message.id, 'translating', 'worker');
      const rejected = await messages.transition(message.id, 'rejected', 'worker', 'IEA01 count 2, found 1');

      expect(translating.status).toBe('translating');
      expect(rejected).toMatchObject({ status: 'rejected', statusReason: 'IEA01 count 2, found 1' });
      expect(rejected.updatedAt.getTime()).toBeGreaterThanOrEqual(message.updatedAt.getTime());
      const events = await eventsOf(message.id);
      expect(events.map((e) => [e.fromStatus, e.toStatus, e.actor, e.reason])).toEqual([
        [null, 'received', 'gateway', null],
        ['received', 'translating', 'worker', null],
        ['translating', 'rejected', 'worker', 'IEA01 count 2, found 1'],
      ]);
    });

    it('does nothing when the message already has the status', async () => {
      const message = await record(partner());
      const same = await messages.transition(message.id, 'received', 'operator:alice', 'again');
      const { rawPayload, ...summary } = message;
      expect(rawPayload).not.toBe('');
      // Status changes never read the payload (it may be megabytes).
      expect(same).toEqual(summary);
      expect(await eventsOf(message.id)).toHaveLength(1);
    });

    it('keeps a long reason to 2,000 characters', async () => {
      const message = await record(partner());
      const moved = await messages.transition(message.id, 'rejected', 'worker', 'x'.repeat(10_000));
      expect(moved.statusReason).toHaveLength(2000);
    });

    it('throws AuditRecordNotFoundError for an unknown message', async () => {
      await expect(messages.transition(randomUUID(), 'failed', 'sweeper')).rejects.toBeInstanceOf(
        AuditRecordNotFoundError,
      );
    });
  });

  describe('MessageRepository.search and countBy', () => {
    const t = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes));
    let a: string;
    let b: string;
    let ids: Record<string, string>;

    beforeAll(async () => {
      a = partner();
      b = partner();
      ids = {};
      // a0..a5 one minute apart (a5 newest), b0..b1 in between; same received_at for a2 and a2bis.
      for (let i = 0; i < 6; i++) {
        ids[`a${i}`] = (await record(a, { receivedAt: t(i) })).id;
      }
      ids.a2bis = (await record(a, { receivedAt: t(2) })).id;
      ids.b0 = (await record(b, { receivedAt: t(1) })).id;
      ids.b1 = (await record(b, { receivedAt: t(4), channel: 'webhook' })).id;
      await messages.transition(ids.a1, 'failed', 'worker');
      await messages.transition(ids.a4, 'failed', 'worker');
      await messages.transition(ids.b1, 'partially_failed', 'worker');
      await operations.addMany(ids.a3, [upsert(`PO-${a}`)]);
      await operations.addMany(ids.b0, [upsert('PO-other'), upsert(`PO-${a}`)]);
    });

    it('filters by partner, newest first, without payloads', async () => {
      const page = await messages.search({ partnerId: a, limit: 50 });
      expect(page.nextCursor).toBeNull();
      const [first, ...rest] = page.items;
      expect(first.id).toBe(ids.a5);
      expect(rest.slice(-1)[0].id).toBe(ids.a0);
      expect(page.items).toHaveLength(7);
      expect(page.items.every((m) => m.partnerId === a && !('rawPayload' in m))).toBe(true);
      const times = page.items.map((m) => m.receivedAt.getTime());
      expect(times).toEqual([...times].sort((x, y) => y - x));
    });

    it('filters by status (one or several), time range, document id and channel', async () => {
      const ofAB = (items: { id: string }[]) => items.map((m) => m.id).filter((id) => Object.values(ids).includes(id));
      expect(ofAB((await messages.search({ status: 'failed', partnerId: a })).items)).toEqual([ids.a4, ids.a1]);
      const sameTime = [ids.a4, ids.b1].sort().reverse(); // equal received_at: id descending
      expect(ofAB((await messages.search({ status: ['failed', 'partially_failed'], limit: 500 })).items)).toEqual([
        ...sameTime,
        ids.a1,
      ]);
      const window = await messages.search({ partnerId: a, from: t(1), to: t(3) });
      expect(window.items.map((m) => m.id).sort()).toEqual([ids.a1, ids.a2, ids.a2bis].sort());
      const byDocument = await messages.search({ documentId: `PO-${a}` });
      expect(byDocument.items.map((m) => m.id)).toEqual([ids.a3, ids.b0]);
      expect((await messages.search({ status: [] })).items).toEqual([]);
      expect((await messages.search({ partnerId: b, channel: 'webhook' })).items.map((m) => m.id)).toEqual([ids.b1]);
      expect((await messages.search({ partnerId: b, channel: ['sftp', 'webhook'] })).items.map((m) => m.id)).toEqual([
        ids.b1,
        ids.b0,
      ]);
    });

    it('filters EDI messages by upload file name (exact) and interchange control number (ISA13, zeros optional)', async () => {
      const edi = partner();
      const upload = await record(edi, { metadata: { fileName: 'ASN 7.edi' } });
      const other = await record(edi, { metadata: { fileName: 'ASN 7.edi.bak' } });
      await messages.annotate(upload.id, {
        interchanges: [{ sender: 'KETTLE', control: '000000007', refused: false }],
      });
      await messages.annotate(other.id, {
        interchanges: [
          { sender: 'KETTLE', control: '000000070', refused: true },
          { sender: 'KETTLE', control: '123456789', refused: false },
        ],
      });
      const found = async (filter: MessageFilter) =>
        (await messages.search({ partnerId: edi, ...filter })).items.map((m) => m.id);
      expect(await found({ fileName: 'ASN 7.edi' })).toEqual([upload.id]);
      expect(await found({ fileName: 'asn 7.edi' })).toEqual([]);
      expect(await found({ interchange: '7' })).toEqual([upload.id]);
      expect(await found({ interchange: ' 000000007 ' })).toEqual([upload.id]);
      expect(await found({ interchange: '70' })).toEqual([other.id]); // a refused interchange counts
      expect(await found({ interchange: '123456789' })).toEqual([other.id]);
      expect(await found({ interchange: '8' })).toEqual([]);
      // A refused envelope's control number is recorded as sent (not padded): found as typed.
      const short = await record(edi);
      await messages.annotate(short.id, { interchanges: [{ sender: 'KETTLE', control: '42', refused: true }] });
      expect(await found({ interchange: '42' })).toEqual([short.id]);
      expect(await found({ interchange: '7', fileName: 'ASN 7.edi.bak' })).toEqual([]);
      expect(await messages.countBy({ interchange: '000000007', partnerId: edi })).toBe(1);
    });

    it.each([false, true])(
      'pages through everything exactly once, ties on received_at included (oldest first: %s)',
      async (oldestFirst) => {
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page = await messages.search({ partnerId: a, limit: 2, cursor, oldestFirst });
          seen.push(...page.items.map((m) => m.id));
          cursor = page.nextCursor;
          pages++;
        } while (cursor);
        expect(pages).toBe(4);
        expect(seen).toHaveLength(7);
        expect(new Set(seen)).toEqual(new Set([ids.a0, ids.a1, ids.a2, ids.a2bis, ids.a3, ids.a4, ids.a5]));
        expect(seen.indexOf(ids.a3) < seen.indexOf(ids.a2)).toBe(!oldestFirst);
      },
    );

    it('rejects a malformed cursor', async () => {
      await expect(messages.search({ cursor: 'nope' })).rejects.toThrow(/cursor/);
    });

    it('counts what search would find', async () => {
      expect(await messages.countBy({ partnerId: a })).toBe(7);
      expect(await messages.countBy({ partnerId: a, status: 'failed' })).toBe(2);
      expect(await messages.countBy({ documentId: `PO-${a}` })).toBe(2);
      expect(await messages.countBy({ partnerId: b, from: t(2) })).toBe(1);
    });
  });

  describe('MessageRepository.findStuck', () => {
    it('finds messages left in a status since before a time, first received first, page by page', async () => {
      const partnerId = partner();
      const old = await record(partnerId);
      const older = await record(partnerId);
      const fresh = await record(partnerId);
      const delivered = await record(partnerId);
      await messages.transition(delivered.id, 'delivered', 'worker');
      await dataSource.query(`UPDATE message SET updated_at = now() - interval '1 hour' WHERE id = $1`, [old.id]);
      await dataSource.query(`UPDATE message SET updated_at = now() - interval '2 hours' WHERE id = $1`, [older.id]);
      await dataSource.query(`UPDATE message SET updated_at = now() - interval '3 hours' WHERE id = $1`, [
        delivered.id,
      ]);

      const stuck = await messages.findStuck({
        olderThan: new Date(Date.now() - 10 * 60_000),
        statuses: ['received', 'translating'],
      });
      const mine = stuck.filter((m) => m.partnerId === partnerId).map((m) => m.id);
      expect(mine).toEqual([old.id, older.id]);
      expect(mine).not.toContain(fresh.id);
      const next = await messages.findStuck({
        olderThan: new Date(Date.now() - 10 * 60_000),
        statuses: ['received', 'translating'],
        after: old.id,
      });
      expect(next.map((m) => m.id)).toContain(older.id);
      expect(next.map((m) => m.id)).not.toContain(old.id);
      expect(await messages.findStuck({ olderThan: new Date(), statuses: [] })).toEqual([]);
    });
  });

  describe('OperationRepository', () => {
    it('stores a message’s operations in order, once', async () => {
      const message = await record(partner());
      const stored = await operations.addMany(message.id, [
        upsert('PO-1'),
        { kind: 'booking.status', targetId: 'B-9', payload: { status: 'arrived' } },
      ]);
      expect(stored.map((op) => [op.seq, op.kind, op.targetId, op.status, op.attemptCount])).toEqual([
        [1, 'document.upsert', 'PO-1', 'pending', 0],
        [2, 'booking.status', 'B-9', 'pending', 0],
      ]);
      expect(stored[0].payload).toEqual({ id: 'PO-1', type: 'purchase-order' });
      expect(stored[1].organisationId).toBeNull();

      const again = await operations.addMany(message.id, [upsert('PO-1'), upsert('PO-2'), upsert('PO-3')]);
      expect(again).toEqual(stored);
      expect(await operations.listByMessage(message.id)).toEqual(stored);
      expect(await operations.findById(stored[1].id)).toEqual(stored[1]);
    });

    it('stores a batch larger than one INSERT can carry', async () => {
      const message = await record(partner());
      const many = Array.from({ length: 9000 }, (_, i) => upsert(`PO-${i}`));
      const stored = await operations.addMany(message.id, many);
      expect(stored).toHaveLength(9000);
      expect(stored[8999]).toMatchObject({ seq: 9000, targetId: 'PO-8999' });
    });

    it('refuses operations for an unknown message', async () => {
      await expect(operations.addMany(randomUUID(), [upsert('PO-1')])).rejects.toBeInstanceOf(AuditRecordNotFoundError);
    });

    it('records attempts, counts them, and settles the operation', async () => {
      const message = await record(partner());
      const [op] = await operations.addMany(message.id, [upsert('PO-1')]);
      // What delivering it takes of a worker's payload budget, measured as it was stored, asked before the claim.
      expect(await operations.payloadWeightOf(op.id)).toBe(parsedWeightOf(JSON.stringify(upsert('PO-1').payload)));
      expect(await operations.gate([op.id], 10_000)).toMatchObject([
        { id: op.id, verdict: 'go', messageId: message.id, payload: upsert('PO-1').payload },
      ]);
      expect((await operations.findById(op.id))?.status).toBe('delivering');

      const startedAt = new Date('2026-01-01T12:00:00.123Z');
      const first = await operations.recordAttempt(op.id, {
        startedAt,
        durationMs: 41.6,
        httpStatus: 502,
        outcome: 'retryable',
        error: 'Bad Gateway '.repeat(500),
        requestSummary: 'PUT /api/v2/documents/PO-1 (812 bytes)',
      });
      expect(first).toMatchObject({
        operationId: op.id,
        startedAt,
        durationMs: 42,
        httpStatus: 502,
        outcome: 'retryable',
      });
      expect(first.errorExcerpt).toHaveLength(2000);
      await operations.recordAttempt(op.id, {
        startedAt: new Date(startedAt.getTime() + 1000),
        durationMs: 30,
        httpStatus: 200,
        outcome: 'success',
      });

      const delivered = await operations.settle(op.id, {
        status: 'delivered',
        lastError: 'ignored',
        errorClass: 'retryable',
      });
      expect(delivered).toMatchObject({ status: 'delivered', attemptCount: 2, lastError: null, errorClass: null });

      const detail = await messages.findDetail(message.id);
      expect(detail?.message.id).toBe(message.id);
      expect(detail?.operations).toHaveLength(1);
      expect(detail?.operations[0].attempts.map((x) => x.outcome)).toEqual(['retryable', 'success']);
      expect(detail?.events.map((e) => e.toStatus)).toEqual(['received']);
    });

    it('counts every concurrent attempt', async () => {
      const message = await record(partner());
      const [op] = await operations.addMany(message.id, [upsert('PO-1')]);
      await Promise.all(
        Array.from({ length: 10 }, () =>
          operations.recordAttempt(op.id, { startedAt: new Date(), durationMs: 5, outcome: 'retryable' }),
        ),
      );
      expect((await operations.findById(op.id))?.attemptCount).toBe(10);
      expect((await messages.findDetail(message.id))?.operations[0].attempts).toHaveLength(10);
    });

    it('keeps the failure, lists failed operations and counts statuses', async () => {
      const message = await record(partner());
      const [a, b, c] = await operations.addMany(message.id, [upsert('PO-1'), upsert('PO-2'), upsert('PO-3')]);
      await operations.settle(a.id, { status: 'failed', lastError: 'unknown organisation', errorClass: 'permanent' });
      await operations.settle(c.id, { status: 'skipped' });

      expect(await operations.findById(a.id)).toMatchObject({
        status: 'failed',
        lastError: 'unknown organisation',
        errorClass: 'permanent',
      });
      // What a replay of the failed ones reads: their payloads as one JSON array, read no further past a weight.
      const { json, count } = (await operations.failedOperationsJson(message.id, 1_000_000)) as {
        json: string;
        count: number;
      };
      expect([JSON.parse(json), count]).toEqual([[upsert('PO-1').payload], 1]);
      const weight = parsedWeightOf(JSON.stringify(upsert('PO-1').payload));
      expect(await operations.failedOperationsJson(message.id, weight)).toEqual({ json: json, count: 1 });
      expect(await operations.failedOperationsJson(message.id, weight - 1)).toEqual({ over: true, failed: 1 });
      expect(await operations.statusCounts(message.id)).toEqual({
        pending: 1,
        delivering: 0,
        delivered: 0,
        failed: 1,
        skipped: 1,
        superseded: 0,
      });
      expect(b.status).toBe('pending');
    });

    it('throws AuditRecordNotFoundError for an unknown operation', async () => {
      await expect(operations.settle(randomUUID(), { status: 'delivered' })).rejects.toBeInstanceOf(
        AuditRecordNotFoundError,
      );
      await expect(
        operations.recordAttempt(randomUUID(), { startedAt: new Date(), durationMs: 1, outcome: 'success' }),
      ).rejects.toBeInstanceOf(AuditRecordNotFoundError);
    });
  });

  describe('OperationRepository.gate (newest write wins per target)', () => {
    const LEASE = 60_000;
    const delivered = { startedAt: new Date(), durationMs: 1, outcome: 'success' as const };
    /** An operation writing `key`, alone in a message recorded now (so later calls arrive later). */
    const write = async (
      key: string,
      kind: NewOperation['kind'] = 'document.upsert',
      extra: Partial<Parameters<MessageRepository['record']>[0]> = {},
    ) => {
      const message = await record(partner(), extra);
      const [op] = await operations.addMany(message.id, [
        { kind, organisationId: 'org-1', targetId: key, orderKey: `document|org-1|${key}`, payload: { id: key } },
      ]);
      return op;
    };
    const verdictOf = async (id: string, lease = LEASE) => (await operations.gate([id], lease))[0].verdict;
    const key = () => `PO-${randomUUID().slice(0, 8)}`;

    it('holds a newer write back while an older one to the same target is unsettled, then lets it go', async () => {
      const k = key();
      const older = await write(k);
      const newer = await write(k);
      expect(await verdictOf(newer.id)).toBe('wait');
      expect(await verdictOf(older.id)).toBe('go');
      expect(await verdictOf(newer.id)).toBe('wait');
      await operations.recordAttempt(older.id, delivered, { status: 'delivered' });
      expect(await verdictOf(newer.id)).toBe('go');
      expect((await operations.findById(newer.id))!.inFlightUntil).not.toBeNull();
      await operations.recordAttempt(newer.id, delivered, { status: 'delivered' });
      expect((await operations.findById(newer.id))!.inFlightUntil).toBeNull();
    });

    it('settles an older write superseded, pointing at the newer one, when the newer was delivered first', async () => {
      const k = key();
      const older = await write(k);
      // The newer one's translation finished first (the older's rows did not exist yet when it went).
      const newer = await write(k);
      await dataSource.query(`UPDATE operation SET status = 'delivered' WHERE id = $1`, [newer.id]);
      expect(await operations.gate([older.id], LEASE)).toEqual([
        { id: older.id, verdict: 'superseded', messageId: older.messageId, supersededBy: newer.id },
      ]);
      expect(await operations.findById(older.id)).toMatchObject({ status: 'superseded', supersededBy: newer.id });
      expect(await verdictOf(older.id)).toBe('settled');
      await messages.settleMessage(older.messageId);
      expect((await messages.findById(older.messageId))!.status).toBe('superseded');
    });

    it('lets an older write wait while a newer one is in flight, and go once its lease has lapsed', async () => {
      const k = key();
      const newer = await write(k);
      expect(await verdictOf(newer.id, 300)).toBe('go');
      const older = await write(k, 'document.upsert');
      await dataSource.query(`UPDATE operation SET order_arrival = order_arrival - 1000 WHERE id = $1`, [older.id]);
      expect(await verdictOf(older.id)).toBe('wait');
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await verdictOf(older.id)).toBe('go');
    });

    it('never supersedes a task change (they compose), but still orders it; a write with no target always goes', async () => {
      const k = key();
      const older = await write(k, 'booking.tasks');
      const newer = await write(k, 'booking.tasks');
      await dataSource.query(`UPDATE operation SET status = 'delivered' WHERE id = $1`, [newer.id]);
      expect(await verdictOf(older.id)).toBe('go');
      const message = await record(partner());
      const [create] = await operations.addMany(message.id, [
        { kind: 'booking.create', organisationId: 'org-1', payload: {} },
      ]);
      expect(await verdictOf(create.id)).toBe('go');
      expect(await operations.gate([randomUUID(), 'not-a-uuid'], LEASE)).toEqual([
        expect.objectContaining({ verdict: 'missing' }),
        { id: 'not-a-uuid', verdict: 'missing' },
      ]);
    });

    it('a replay orders as its original unless forced: it is superseded by a newer delivered write', async () => {
      const k = key();
      const original = await write(k);
      const newer = await write(k);
      await dataSource.query(`UPDATE operation SET status = 'delivered' WHERE id = ANY($1)`, [[original.id, newer.id]]);
      const [{ arrival }] = await dataSource.query(`SELECT arrival FROM message WHERE id = $1`, [original.messageId]);
      const replay = await write(k, 'document.upsert', {
        channel: 'replay',
        replayOf: original.messageId,
        metadata: { orderArrival: arrival },
      });
      expect(await verdictOf(replay.id)).toBe('superseded');
      const forced = await write(k, 'document.upsert', { channel: 'replay', replayOf: original.messageId });
      expect(await verdictOf(forced.id)).toBe('go');
    });

    it('holds a partner’s writes back while a message it sent before them is not translated yet', async () => {
      // The older message may write the same booking: its rows do not exist yet for the gate to order against.
      const partnerId = partner();
      await record(partnerId, { channel: 'export' }); // dockbridge's own file, never translated: holds nothing
      const older = await record(partnerId, { channel: 'webhook' });
      const newerMessage = await record(partnerId, { channel: 'webhook' });
      const k = key();
      const [newer, elsewhere] = await operations.addMany(newerMessage.id, [
        { kind: 'booking.status', organisationId: 'org-1', targetId: k, orderKey: `booking|org-1|${k}`, payload: {} },
        {
          kind: 'document.upsert',
          organisationId: 'org-1',
          targetId: key(),
          orderKey: `document|org-1|${key()}`,
          payload: {},
        },
      ]);
      await messages.transition(newerMessage.id, 'delivering', 'worker');
      expect(await verdictOf(newer.id)).toBe('wait');
      expect(await operations.gate([newer.id, elsewhere.id], LEASE)).toEqual([
        { id: newer.id, verdict: 'wait' },
        { id: elsewhere.id, verdict: 'wait' },
      ]);
      // A batch chunk asks for its message before its gate (DeliverBatch), and waits whole.
      expect(await operations.behindUntranslated(newerMessage.id)).toBe(true);
      await messages.transition(older.id, 'translating', 'worker');
      expect(await verdictOf(newer.id)).toBe('wait');

      // Another partner's message, sent after the untranslated one, is not held back by it.
      const otherPartners = await write(key());
      expect(await verdictOf(otherPartners.id)).toBe('go');

      // Translated (its rows stored, or none), the older message lets the newer writes go; what the
      // partner sent after them, not translated yet, holds nothing back.
      await messages.transition(older.id, 'delivering', 'worker');
      await record(partnerId, { channel: 'webhook' });
      expect(await operations.behindUntranslated(newerMessage.id)).toBe(false);
      expect(await verdictOf(newer.id)).toBe('go');
      expect(await verdictOf(elsewhere.id)).toBe('go');
    });

    it('keeps a replay ordered as its original clear of the messages its partner sent since', async () => {
      const partnerId = partner();
      const original = await record(partnerId);
      await messages.transition(original.id, 'delivering', 'worker');
      await record(partnerId); // sent after the original, not translated yet
      const [{ arrival }] = await dataSource.query(`SELECT arrival FROM message WHERE id = $1`, [original.id]);
      const replay = await record(partnerId, {
        channel: 'replay',
        replayOf: original.id,
        metadata: { orderArrival: arrival },
      });
      const [op] = await operations.addMany(replay.id, [upsert(key())]);
      expect(await operations.behindUntranslated(replay.id)).toBe(false);
      expect(await verdictOf(op.id)).toBe('go');
    });

    it('lets exactly one of many concurrent gates on one target go, and orders a whole batch in one statement', async () => {
      const k = key();
      const ops = [];
      for (let i = 0; i < 6; i++) {
        ops.push(await write(k));
      }
      const verdicts = await Promise.all(ops.map((op) => verdictOf(op.id)));
      expect(verdicts).toEqual(['go', 'wait', 'wait', 'wait', 'wait', 'wait']);
      const batch = await Promise.all(Array.from({ length: 50 }, () => write(key())));
      const gated = await operations.gate([...batch.map((op) => op.id), ops[1].id], LEASE);
      expect(gated.map((v) => v.verdict)).toEqual([...batch.map(() => 'go'), 'wait']);
    });

    it('keeps a claim to the job that made it while its lease runs: others wait, its own retry claims again', async () => {
      const chunkOf = async (id: string, chunk: string, lease = LEASE) =>
        (await operations.gateChunk([id], lease, chunk))[0].verdict;
      const [chunkA, chunkB] = [randomUUID(), randomUUID()];
      // A write alone on its target is claimed by the fast path; a task change with a newer one delivered, by GATE.
      const k = key();
      const tasks = await write(k, 'booking.tasks');
      const newerTasks = await write(k, 'booking.tasks');
      await dataSource.query(`UPDATE operation SET status = 'delivered' WHERE id = $1`, [newerTasks.id]);
      for (const op of [await write(key()), tasks]) {
        expect(await chunkOf(op.id, chunkA)).toBe('go');
        // A write handed from a batch to its own delivery job, or a second batch: not while chunk A holds it.
        expect(await verdictOf(op.id)).toBe('wait');
        expect(await chunkOf(op.id, chunkB)).toBe('wait');
        expect(await operations.findById(op.id)).toMatchObject({
          status: 'delivering',
          inFlightUntil: expect.any(Date),
        });
        // Chunk A's job again (its worker died): it claims again.
        expect(await chunkOf(op.id, chunkA)).toBe('go');
      }

      // Its own delivery job's claim is its own too; a lease that lapsed (its holder is gone) is anyone's.
      const single = await write(key());
      expect(await verdictOf(single.id, 300)).toBe('go');
      expect(await chunkOf(single.id, chunkA)).toBe('wait');
      expect(await verdictOf(single.id, 300)).toBe('go');
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await chunkOf(single.id, chunkB)).toBe('go');
      expect(await verdictOf(single.id)).toBe('wait');
    });

    it('gives a claim back with a failure that got an answer, and keeps it while the call may still apply', async () => {
      const failedTry = (operationId: string) => ({
        operationId,
        startedAt: new Date(),
        durationMs: 5,
        outcome: 'retryable' as const,
        error: 'platform job not finished',
      });
      const [answered, running] = [await write(key()), await write(key())];
      const chunk = randomUUID();
      await operations.gateChunk([answered.id, running.id], LEASE, chunk);
      await operations.recordAttempts([failedTry(answered.id)]);
      await operations.recordAttempts([failedTry(running.id)], LEASE);
      expect(await operations.findById(answered.id)).toMatchObject({ status: 'delivering', inFlightUntil: null });
      expect(await operations.findById(running.id)).toMatchObject({
        status: 'delivering',
        inFlightUntil: expect.any(Date),
      });
      expect(await verdictOf(answered.id)).toBe('go');
      expect(await verdictOf(running.id)).toBe('wait');
      expect((await operations.gateChunk([running.id], LEASE, chunk))[0].verdict).toBe('go');

      // A retry polling its platform job extends its own claims, no one else's.
      await dataSource.query(`UPDATE operation SET in_flight_until = now() - interval '1 second' WHERE id = $1`, [
        running.id,
      ]);
      await operations.extendClaims([running.id], LEASE, randomUUID());
      expect((await operations.findById(running.id))!.inFlightUntil!.getTime()).toBeLessThan(Date.now());
      await operations.extendClaims([running.id], LEASE, chunk);
      expect((await operations.findById(running.id))!.inFlightUntil!.getTime()).toBeGreaterThan(Date.now() + 50_000);
      expect(await verdictOf(running.id)).toBe('wait');
    });

    it('judges a batch chunk as gate judges each write, claiming those alone on their targets without reading payloads', async () => {
      const alone = await Promise.all(Array.from({ length: 3 }, () => write(key())));
      const k = key();
      const first = await write(k);
      const second = await write(k);
      const heldBack = await write(first.targetId!);
      const s = key();
      const stale = await write(s);
      const newer = await write(s);
      await dataSource.query(`UPDATE operation SET status = 'delivered' WHERE id = $1`, [newer.id]);
      const done = await write(key());
      await dataSource.query(`UPDATE operation SET status = 'delivered' WHERE id = $1`, [done.id]);
      const missing = randomUUID();

      const chunk = [...alone, first, second, stale, done].map((op) => op.id);
      expect(await operations.gateChunk([...chunk, missing, 'not-a-uuid'], LEASE, randomUUID())).toEqual([
        ...alone.map((op) => ({ id: op.id, verdict: 'go', messageId: op.messageId })),
        // Two writes to one target in the chunk (and a third outside it): the oldest goes, the others wait.
        { id: first.id, verdict: 'go', messageId: first.messageId },
        { id: second.id, verdict: 'wait' },
        { id: stale.id, verdict: 'superseded', messageId: stale.messageId, supersededBy: newer.id },
        { id: done.id, verdict: 'settled', messageId: done.messageId },
        { id: missing, verdict: 'missing' },
        { id: 'not-a-uuid', verdict: 'missing' },
      ]);
      for (const op of [...alone, first]) {
        expect(await operations.findById(op.id)).toMatchObject({
          status: 'delivering',
          inFlightUntil: expect.any(Date),
        });
        expect(await dataSource.query(`SELECT outcome FROM attempt WHERE operation_id = $1`, [op.id])).toEqual([
          { outcome: 'in-flight' },
        ]);
      }
      expect(await operations.findById(second.id)).toMatchObject({ status: 'pending', inFlightUntil: null });
      expect(await verdictOf(heldBack.id)).toBe('wait');
    });
  });

  describe('attempts recorded before the platform call', () => {
    const attemptsOf = (operationId: string) =>
      dataSource.query(
        `SELECT outcome, error_excerpt, request_summary FROM attempt WHERE operation_id = $1 ORDER BY started_at, outcome`,
        [operationId],
      ) as Promise<{ outcome: string; error_excerpt: string | null; request_summary: string | null }[]>;

    it('opens an in-flight attempt when the gate claims; a claim after a death closes it interrupted and both are counted', async () => {
      const message = await record(partner());
      const [op] = await operations.addMany(message.id, [upsert('PO-killed')]);
      expect((await operations.gate([op.id], 60_000))[0].verdict).toBe('go');
      expect(await attemptsOf(op.id)).toEqual([
        { outcome: 'in-flight', error_excerpt: null, request_summary: 'document.upsert' },
      ]);
      // The worker died during the call; the job runs again elsewhere and claims again.
      expect((await operations.gate([op.id], 60_000))[0].verdict).toBe('go');
      await operations.recordAttempt(
        op.id,
        {
          startedAt: new Date(),
          durationMs: 7,
          httpStatus: 200,
          outcome: 'success',
          requestSummary: 'PUT documents/PO-killed?upsert=true',
        },
        { status: 'delivered' },
      );
      const attempts = await attemptsOf(op.id);
      expect(attempts.map((a) => a.outcome).sort()).toEqual(['interrupted', 'success']);
      expect(attempts.find((a) => a.outcome === 'interrupted')!.error_excerpt).toMatch(/may have applied it/);
      expect(attempts.find((a) => a.outcome === 'success')!.request_summary).toBe(
        'PUT documents/PO-killed?upsert=true',
      );
      expect((await operations.findById(op.id))!.attemptCount).toBe(2);
    });

    it('finishes the attempts a batch claim opened in place, one per operation', async () => {
      const message = await record(partner());
      const ops = await operations.addMany(message.id, [upsert('PO-b1'), upsert('PO-b2'), upsert('PO-b3')]);
      const verdicts = await operations.gate(
        ops.map((op) => op.id),
        60_000,
      );
      expect(verdicts.map((v) => v.verdict)).toEqual(['go', 'go', 'go']);
      await operations.recordAttempts(
        ops.map((op) => ({
          operationId: op.id,
          startedAt: new Date(),
          durationMs: 3,
          httpStatus: 200,
          outcome: 'success' as const,
          requestSummary: 'batch',
          settlement: { status: 'delivered' as const },
        })),
      );
      for (const op of ops) {
        expect(await attemptsOf(op.id)).toEqual([
          { outcome: 'success', error_excerpt: null, request_summary: 'batch' },
        ]);
        expect((await operations.findById(op.id))!.attemptCount).toBe(1);
      }
    });

    it('drops the attempt of a claim given back without a call, and says when the next try is', async () => {
      const message = await record(partner());
      const [op] = await operations.addMany(message.id, [upsert('PO-paused')]);
      await operations.gate([op.id], 60_000);
      const at = new Date(Date.now() + 5_000);
      await operations.releaseClaim(op.id, { at, reason: 'paused: platform failing' });
      expect(await attemptsOf(op.id)).toEqual([]);
      expect(await operations.findById(op.id)).toMatchObject({
        inFlightUntil: null,
        nextAttemptAt: at,
        lastError: 'paused: platform failing',
        errorClass: 'retryable',
        attemptCount: 0,
      });
    });
  });

  describe('MessageRepository.settleMessage', () => {
    it('follows the operations: delivering, then partially_failed', async () => {
      const message = await record(partner());
      const [a, b] = await operations.addMany(message.id, [upsert('PO-1'), upsert('PO-2')]);
      expect((await messages.settleMessage(message.id)).status).toBe('delivering');
      await operations.settle(a.id, { status: 'delivered' });
      expect((await messages.settleMessage(message.id)).status).toBe('delivering');
      await operations.settle(b.id, { status: 'failed', lastError: '400 invalid date', errorClass: 'permanent' });
      const settled = await messages.settleMessage(message.id);
      // The list view's "why": how many failed, and the first failure's error.
      expect(settled).toMatchObject({
        status: 'partially_failed',
        statusReason: '1 of 2 operations failed; first: 400 invalid date',
      });
      expect((await messages.settleMessage(message.id)).status).toBe('partially_failed');

      const events = await eventsOf(message.id);
      expect(events.map((e) => [e.fromStatus, e.toStatus, e.actor])).toEqual([
        [null, 'received', 'gateway'],
        ['received', 'delivering', 'worker'],
        ['delivering', 'partially_failed', 'worker'],
      ]);
      expect((await eventsOf(message.id)).at(-1)?.reason).toBe('1 of 2 operations failed; first: 400 invalid date');
    });

    it('leaves rejected and duplicate messages alone', async () => {
      const message = await record(partner());
      await messages.transition(message.id, 'duplicate', 'worker', 'same ISA13 as an earlier message');
      expect((await messages.settleMessage(message.id)).status).toBe('duplicate');
    });

    it('ends consistent when many workers settle operations at once', async () => {
      const message = await record(partner());
      await messages.transition(message.id, 'delivering', 'worker');
      const ops = await operations.addMany(
        message.id,
        Array.from({ length: 12 }, (_, i) => upsert(`PO-${i}`)),
      );
      await Promise.all(
        ops.map(async (op: DocumentOperation, i: number) => {
          const failed = i % 4 === 0;
          await operations.settle(
            op.id,
            failed ? { status: 'failed', lastError: '400', errorClass: 'permanent' } : { status: 'delivered' },
          );
          await messages.settleMessage(message.id);
        }),
      );

      const settled = (await messages.findById(message.id)) as Message;
      expect(settled.status).toBe('partially_failed');
      const events = await eventsOf(message.id);
      expect(events.map((e) => e.toStatus)).toEqual(['received', 'delivering', 'partially_failed']);
      for (let i = 1; i < events.length; i++) {
        expect(events[i].fromStatus).toBe(events[i - 1].toStatus);
      }
    });
  });

  describe('retention (PurgeExpired)', () => {
    const DAY = 86_400_000;
    /** A message of its own partner in `status`, last changed `days` ago, with an operation, an attempt and a webhook key. */
    const aged = async (status: 'delivered' | 'rejected' | 'failed' | 'delivering', days: number) => {
      const partnerId = partner();
      const [result] = await messages.recordMany([
        {
          message: { partnerId, channel: 'webhook', rawPayload: '{}', contentType: 'application/json' },
          idempotencyKey: `key-${partnerId}`,
        },
      ]);
      if (result instanceof Error) {
        throw result;
      }
      const { id } = result;
      const [op] = await operations.addMany(id, [upsert(`PO-${partnerId}`)]);
      await operations.recordAttempt(op.id, {
        startedAt: new Date(),
        durationMs: 3,
        httpStatus: 200,
        outcome: 'success',
      });
      await dataSource.query(
        `UPDATE message SET status = $2, updated_at = now() - make_interval(days => $3) WHERE id = $1`,
        [id, status, days],
      );
      return { id, partnerId, operationId: op.id };
    };
    const exists = async (table: string, column: string, id: string) =>
      (await dataSource.query(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [id])).length > 0;

    it('deletes settled messages past their retention with everything hanging off them, and nothing else', async () => {
      const oldDelivered = await aged('delivered', 100);
      const recentDelivered = await aged('delivered', 10);
      const oldRejected = await aged('rejected', 91);
      const failedWithinYear = await aged('failed', 100);
      const failedOverYear = await aged('failed', 400);
      const inFlight = await aged('delivering', 400);
      const replay = await messages.record({
        partnerId: oldDelivered.partnerId,
        channel: 'replay',
        rawPayload: '{}',
        contentType: 'application/json',
        replayOf: oldDelivered.id,
      });
      const interchanges = new InterchangeRepository(dataSource);
      await interchanges.claim(oldDelivered.partnerId, ['SENDER:000000001'], oldDelivered.id, 30);

      const purge = new PurgeExpired(messages, interchanges, { retentionDays: 90, failedRetentionDays: 365, chunk: 2 });
      const report = await purge.execute();
      expect(report.messages).toBeGreaterThanOrEqual(3);

      for (const gone of [oldDelivered, oldRejected, failedOverYear]) {
        expect(await messages.findById(gone.id)).toBeNull();
        expect(await exists('operation', 'message_id', gone.id)).toBe(false);
        expect(await exists('attempt', 'operation_id', gone.operationId)).toBe(false);
        expect(await exists('message_event', 'message_id', gone.id)).toBe(false);
        // Its idempotency key went with it: the same key is a new message now.
        const [again] = await messages.recordMany([
          {
            message: {
              partnerId: gone.partnerId,
              channel: 'webhook',
              rawPayload: '{}',
              contentType: 'application/json',
            },
            idempotencyKey: `key-${gone.partnerId}`,
          },
        ]);
        expect(again).toMatchObject({ existing: false });
      }
      for (const kept of [recentDelivered, failedWithinYear, inFlight]) {
        expect(await messages.findById(kept.id)).not.toBeNull();
      }
      // A replay outlives its original (the link becomes null); duplicate detection outlives both.
      expect((await messages.findById(replay.id))?.replayOf).toBeNull();
      expect(await interchanges.claim(oldDelivered.partnerId, ['SENDER:000000001'], randomUUID(), 30)).toEqual(
        new Set(['SENDER:000000001']),
      );
    });

    it('keeps everything when retention is 0, and forgets interchange receipts only past any duplicate window', async () => {
      const old = await aged('delivered', 5000);
      const interchanges = new InterchangeRepository(dataSource);
      await interchanges.claim(old.partnerId, ['SENDER:000000002'], old.id, 30);
      await dataSource.query(
        `UPDATE interchange_receipt SET received_at = now() - interval '3651 days' WHERE message_id = $1`,
        [old.id],
      );
      const report = await new PurgeExpired(messages, interchanges, {
        retentionDays: 0,
        failedRetentionDays: 0,
      }).execute(new Date(Date.now() + DAY));
      expect(await messages.findById(old.id)).not.toBeNull();
      expect(report.receipts).toBeGreaterThanOrEqual(1);
      expect(await exists('interchange_receipt', 'message_id', old.id)).toBe(false);
    });
  });

  describe('InterchangeRepository.claim (duplicate interchanges)', () => {
    const age = (messageId: string, days: number) =>
      dataSource.query(
        `UPDATE interchange_receipt SET received_at = now() - make_interval(days => $2) WHERE message_id = $1`,
        [messageId, days],
      );

    it('calls a key another message of the partner claimed within the window a duplicate, and not once the window has passed', async () => {
      const partnerId = partner();
      const interchanges = new InterchangeRepository(dataSource);
      const first = await record(partnerId);
      expect(await interchanges.claim(partnerId, ['KETTLE/000000901'], first.id, 30)).toEqual(new Set());
      // A retried translation of the same message claims its own key again: not a duplicate.
      expect(await interchanges.claim(partnerId, ['KETTLE/000000901'], first.id, 30)).toEqual(new Set());
      // Another partner may use the same sender and ISA13.
      expect(await interchanges.claim(partner(), ['KETTLE/000000901'], (await record(partnerId)).id, 30)).toEqual(
        new Set(),
      );

      await age(first.id, 29);
      expect(await interchanges.claim(partnerId, ['KETTLE/000000901'], (await record(partnerId)).id, 30)).toEqual(
        new Set(['KETTLE/000000901']),
      );

      // Only receipts inside the window count: 31 days ago is outside a 30-day window, inside a 60-day one.
      const partnerB = partner();
      const old = await record(partnerB);
      await interchanges.claim(partnerB, ['KETTLE/000000902'], old.id, 30);
      await age(old.id, 31);
      expect(await interchanges.claim(partnerB, ['KETTLE/000000902'], (await record(partnerB)).id, 30)).toEqual(
        new Set(),
      );
      const partnerC = partner();
      const older = await record(partnerC);
      await interchanges.claim(partnerC, ['KETTLE/000000903'], older.id, 60);
      await age(older.id, 31);
      expect(await interchanges.claim(partnerC, ['KETTLE/000000903'], (await record(partnerC)).id, 60)).toEqual(
        new Set(['KETTLE/000000903']),
      );
    });

    it('names only the keys seen before when a message carries new and seen interchanges', async () => {
      const partnerId = partner();
      const interchanges = new InterchangeRepository(dataSource);
      const first = await record(partnerId);
      await interchanges.claim(partnerId, ['KETTLE/000000911', 'KETTLE/000000912'], first.id, 30);
      const second = await record(partnerId);
      expect(await interchanges.claim(partnerId, ['KETTLE/000000912', 'KETTLE/000000913'], second.id, 30)).toEqual(
        new Set(['KETTLE/000000912']),
      );
      // The new key is claimed by the second message now.
      expect(await interchanges.claim(partnerId, ['KETTLE/000000913'], (await record(partnerId)).id, 30)).toEqual(
        new Set(['KETTLE/000000913']),
      );
    });
  });

  describe('InterchangeRepository.nextControlNumber (acknowledgment ISA13s)', () => {
    it('hands out numbers no other process gets, from blocks of the sequence taken at once', async () => {
      // The last number handed out by the sequence (before any is, last_value is the first to come).
      const lastValue = async () =>
        Number(
          (
            (await dataSource.query(
              `SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS n FROM acknowledgment_control_number`,
            )) as { n: string }[]
          )[0].n,
        );
      const before = await lastValue();
      const [one, two] = [new InterchangeRepository(dataSource), new InterchangeRepository(dataSource)];
      const taken = async (repository: InterchangeRepository, n: number) => {
        const numbers: number[] = [];
        for (let i = 0; i < n; i++) {
          numbers.push(await repository.nextControlNumber());
        }
        return numbers;
      };
      const [a, b] = await Promise.all([taken(one, 250), taken(two, 250)]);
      // Each process's numbers rise; no number goes to both.
      expect(a).toEqual([...a].sort((x, y) => x - y));
      expect(new Set([...a, ...b]).size).toBe(500);
      // Calls at once in one process share a block and still get distinct numbers.
      const together = await Promise.all(Array.from({ length: 150 }, () => one.nextControlNumber()));
      expect(new Set([...a, ...b, ...together]).size).toBe(650);
      // Blocks, not a round trip a number: 650 numbers moved the sequence by seven blocks of 100.
      expect((await lastValue()) - before).toBe(700);
    });
  });

  describe('AuditModule', () => {
    it('provides the repositories over the configured database', async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [AuditModule.forRoot({ url: db.url, dataDir: '', migrationsRun: true })],
      }).compile();
      const app = await moduleRef.init();
      try {
        const viaNest = app.get(MessageRepository);
        const message = await viaNest.record({
          partnerId: partner(),
          channel: 'webhook',
          rawPayload: '{"event":"arrived"}',
          contentType: 'application/json',
        });
        await app.get(OperationRepository).addMany(message.id, [upsert('PO-1')]);
        expect((await messages.findDetail(message.id))?.operations).toHaveLength(1);
        expect(app.get(DataSource).isInitialized).toBe(true);
      } finally {
        await app.close();
      }
      expect(moduleRef.get(DataSource).isInitialized).toBe(false);
    });
  });
});
