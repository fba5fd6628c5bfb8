import { DataSource } from 'typeorm';
import { MessageRepository, OperationRepository, StreamedBatch, StreamedWriteTakenOverError } from '@dockbridge/audit';
import { PartnerRepository } from '@dockbridge/partners';
import { mediumTranslator, RecordingQueues, startMediumDatabase } from '../../../../test/support/medium';
import { StoredOperations } from './stored-operations';
import { TranslateMessage } from './translate-message';
import { X12_CONTENT_TYPE } from './translators';

/**
 * X12 translation stored batch by batch (StoredOperations) on a real Postgres, the queues recorded:
 * what ends up stored, in which order, after refusals at an interchange's end, duplicates of earlier
 * messages and a translation that was interrupted half-way.
 */
const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';

/** One interchange of 850s, one PO per number; `iea` overrides IEA02 (a mismatch refuses it at its end). */
function interchange(control: number, pos: string[], iea = control): string {
  const isa13 = String(control).padStart(9, '0');
  const sets = pos.flatMap((po, i) => {
    const st = String(i + 1).padStart(4, '0');
    return [
      `ST*850*${st}`,
      `BEG*00*SA*${po}**20261120`,
      'TD5*B*2*FFRT*M',
      'N1*ST*Main DC*92*DC01',
      'N1*SF*Kettle Foods*92*SUP-KETTLE',
      'PO1*1*12*CA*9.50**SK*SKU-100',
      `SE*7*${st}`,
    ];
  });
  return [
    `ISA*00*          *00*          *ZZ*KETTLE         *ZZ*ACMEDC         *261120*0830*U*00401*${isa13}*0*T*>`,
    `GS*PO*KETTLE*ACMEDC*20261120*0830*${control}*X*004010`,
    ...sets,
    `GE*${pos.length}*${control}`,
    `IEA*1*${String(iea).padStart(9, '0')}`,
    '',
  ].join('~\n');
}

describe('X12 translation stored batch by batch (medium: real Postgres, recorded queues)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let messages: MessageRepository;
  let operations: OperationRepository;
  let queues: RecordingQueues;
  let translate: TranslateMessage;

  beforeAll(async () => {
    database = await startMediumDatabase();
    const { dataSource } = database;
    messages = new MessageRepository(dataSource);
    operations = new OperationRepository(dataSource);
    await new PartnerRepository(dataSource).upsert(
      {
        id: 'kettle',
        name: 'Kettle',
        locationOrganisationId: ORG,
        settings: { edi: { senderIds: ['KETTLE'], coreName: 'ACME', locationCodes: ['DC01'] } },
      },
      'api',
    );
  }, 60_000);
  afterAll(() => database?.close());
  beforeEach(async () => {
    await database.dataSource.query('TRUNCATE message, interchange_receipt CASCADE');
    queues = new RecordingQueues();
    translate = mediumTranslator(database.dataSource, { queues: queues.asQueues(), messages, operations });
  });

  const upload = (raw: string) =>
    messages.record({ partnerId: 'kettle', channel: 'http-edi', rawPayload: raw, contentType: X12_CONTENT_TYPE });
  /** A streamed write of one batch of one operation writing `target`; answers its run. */
  const storedOne = async (messageId: string, target: string) => {
    const run = await operations.beginStreamedWrite(messageId);
    await operations.appendStreamed(
      run,
      StreamedBatch.of(messageId, 1, [
        { kind: 'document.upsert', organisationId: ORG, targetId: target, orderKey: target, payload: {} },
      ]),
    );
    return run;
  };
  const stored = async (messageId: string) =>
    (await operations.listByMessage(messageId)).map((op) => ({
      seq: op.seq,
      status: op.status,
      target: op.targetId,
    }));

  it('stores the operations and refused sets in file order, then the refused interchanges; queues only the operations', async () => {
    const raw =
      interchange(101, ['PO-1', 'PO-2']) +
      interchange(102, ['PO-3'], 999) + // refused at its end: IEA02 is not ISA13
      interchange(103, ['PO-4', 'PO-5']).replace('PO1*1*12*CA', 'PO1*1*twelve*CA'); // PO-4 rejected
    const message = await upload(raw);

    expect(await translate.execute(message.id)).toBe('queued');

    const rows = await stored(message.id);
    expect(rows.map((r) => [r.seq, r.status, r.target])).toEqual([
      [1, 'pending', 'PO-1'],
      [2, 'pending', 'PO-2'],
      [3, 'failed', 'PO-4'],
      [4, 'pending', 'PO-5'],
      [5, 'failed', null],
    ]);
    const ops = await operations.listByMessage(message.id);
    expect(ops[4].lastError).toMatch(/^interchange 000000102: /);
    expect(queues.delivered.sort()).toEqual([ops[0].id, ops[1].id, ops[3].id].sort());
    expect((await messages.findById(message.id))?.status).toBe('delivering');
  });

  it('keeps only the new interchanges of a file that repeats an earlier one, and stores nothing for a whole duplicate', async () => {
    const first = await upload(interchange(201, ['PO-A']));
    await translate.execute(first.id);
    const again = await upload(interchange(201, ['PO-A']));
    expect(await translate.execute(again.id)).toBe('duplicate');
    expect(await stored(again.id)).toEqual([]);
    // A copy holds no receipt: were the first one's given up (released), a resend would be new.
    expect(
      await database.dataSource.query(`SELECT 1 FROM interchange_receipt WHERE message_id = $1`, [again.id]),
    ).toEqual([]);

    const mixed = await upload(
      interchange(202, ['PO-B', 'PO-C']) + interchange(201, ['PO-A']) + interchange(203, ['PO-D']),
    );
    expect(await translate.execute(mixed.id)).toBe('queued');
    expect((await stored(mixed.id)).map((r) => r.target)).toEqual(['PO-B', 'PO-C', 'PO-D']);
  });

  it('starts again from the first set after an interrupted translation: every operation stored once', async () => {
    const message = await upload(interchange(301, ['PO-X', 'PO-Y', 'PO-Z']));
    await messages.transition(message.id, 'translating', 'worker');
    // A worker stored one batch, then died.
    const run = await storedOne(message.id, 'PO-X');

    expect(await translate.execute(message.id)).toBe('queued');

    expect((await stored(message.id)).map((r) => [r.seq, r.target])).toEqual([
      [1, 'PO-X'],
      [2, 'PO-Y'],
      [3, 'PO-Z'],
    ]);
    // The dead worker's run, were it to wake up, may not add to the message any more.
    await expect(
      operations.appendStreamed(
        run,
        StreamedBatch.of(message.id, 4, [
          { kind: 'document.upsert', organisationId: ORG, targetId: 'PO-X', orderKey: 'x', payload: {} },
        ]),
      ),
    ).rejects.toBeInstanceOf(StreamedWriteTakenOverError);
    expect((await stored(message.id)).map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it('forgets an interchange refused at its end even when some of its batches were already stored', async () => {
    const message = await upload('');
    const run = await operations.beginStreamedWrite(message.id);
    const sink = new StoredOperations(operations, message.id, run, new Set([ORG]), 2);
    const op = (id: string) => ({
      kind: 'document.upsert' as const,
      organisationId: ORG,
      document: { id, direction: 'Inbound' as const },
    });
    await sink.operation('first', op('D-1'));
    for (const id of ['D-2', 'D-3', 'D-4', 'D-5']) {
      await sink.operation('second', op(id)); // D-1 and D-2, D-3 and D-4 are stored as batches of 2
    }
    await sink.refusedSet('second', {
      kind: 'document.upsert',
      organisationId: ORG,
      targetId: 'D-6',
      description: {},
      reason: 'x',
    });
    await sink.discardInterchange('second');
    await sink.operation('third', op('D-7'));
    await sink.storeRefused([]);

    expect((await stored(message.id)).map((r) => [r.seq, r.target])).toEqual([
      [1, 'D-1'],
      [2, 'D-7'],
    ]);
  });

  it('forgets an interchange refused at its end whose sets share a compressed block with kept ones', async () => {
    const message = await upload('');
    const run = await operations.beginStreamedWrite(message.id);
    const sink = new StoredOperations(operations, message.id, run, new Set([ORG]));
    const op = (id: string) => ({
      kind: 'document.upsert' as const,
      organisationId: ORG,
      document: { id, direction: 'Inbound' as const },
    });
    const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
    for (const id of ids('KEPT', 40)) {
      await sink.operation('first', op(id));
    }
    // Seqs 1-100 fill a block, compressed before the second interchange turns out refused.
    for (const id of ids('GONE', 90)) {
      await sink.operation('second', op(id));
    }
    await sink.discardInterchange('second');
    for (const id of ids('LATER', 5)) {
      await sink.operation('third', op(id));
    }
    await sink.flush();

    const kept = [...ids('KEPT', 40), ...ids('LATER', 5)];
    const rows = await operations.listByMessage(message.id);
    expect(rows.map((r) => [r.seq, r.targetId])).toEqual(kept.map((id, i) => [i + 1, id]));
    // Seqs 41-45 read their own payloads, not the discarded lines the first block still holds.
    expect(rows.map((r) => (r.payload as { document: { id: string } }).document.id)).toEqual(kept);
  });

  it('names the operations on organisations the partner may not act on, counting the rest', async () => {
    const message = await upload('');
    const run = await operations.beginStreamedWrite(message.id);
    const sink = new StoredOperations(operations, message.id, run, new Set([ORG]), 100);
    const elsewhere = (id: string) => ({
      kind: 'document.upsert' as const,
      organisationId: '00000000-0000-4000-8000-000000000000',
      document: { id, direction: 'Inbound' as const },
    });
    for (let i = 0; i < 25; i++) {
      await sink.operation('only', elsewhere(`E-${i}`));
    }
    const problems = sink.scopeProblems();
    expect(problems).toHaveLength(21);
    expect(problems[0]).toBe(
      'operations[0] (document.upsert) acts on organisation 00000000-0000-4000-8000-000000000000, which this partner may not act on',
    );
    expect(problems[20]).toBe('and 5 more operations on organisations this partner may not act on');
    await sink.discardInterchange('only');
    expect(sink.scopeProblems()).toEqual([]);
  });
  it('plans delivery a page of rows at a time, in file order, queuing only the unsettled ones', async () => {
    const message = await upload(interchange(401, ['PO-1', 'PO-2', 'PO-3', 'PO-4', 'PO-5']));
    expect(await translate.execute(message.id)).toBe('queued');
    const ops = await operations.listByMessage(message.id);
    await database.dataSource.query(`UPDATE operation SET status = 'delivered' WHERE id = $1`, [ops[1].id]);

    const pages: string[][] = [];
    for await (const page of operations.planEntryPages(message.id, 2)) {
      pages.push(page.map((entry) => `${entry.id} ${entry.status}`));
      expect(Object.keys(page[0]).sort()).toEqual(['bytes', 'id', 'kind', 'options', 'organisationId', 'status']);
    }
    // Settled rows too: they place a group's chunks.
    expect(pages).toEqual([
      [`${ops[0].id} pending`, `${ops[1].id} delivered`],
      [`${ops[2].id} pending`, `${ops[3].id} pending`],
      [`${ops[4].id} pending`],
    ]);

    // Re-queued from those pages: every unsettled operation once, nothing settled.
    queues.delivered.length = 0;
    expect(await translate.enqueueStored(message)).toBe(4);
    expect(queues.delivered).toEqual([ops[0].id, ops[2].id, ops[3].id, ops[4].id]);
  });

  describe('a large file, verified by a first read, delivered as it is translated', () => {
    /** Queues that also note, at each batch queued, how many operations were stored and the message's status. */
    class WatchingQueues extends RecordingQueues {
      readonly seen: { stored: number; status: string }[] = [];
      override async enqueueBatch(data: { messageId: string; operationIds: string[] }): Promise<void> {
        const [{ n }] = await database.dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM operation');
        this.seen.push({ stored: n, status: (await messages.findById(data.messageId))!.status });
        await super.enqueueBatch(data);
      }
    }
    let watching: WatchingQueues;
    /** Every X12 payload counts as large here; chunks of 125, 250, 500, then 1,000 documents. */
    const translatorOver = (
      ops: OperationRepository = operations,
      queued: RecordingQueues = watching,
      records: MessageRepository = messages,
      deliverWhileTranslatingOver = 0,
    ) =>
      mediumTranslator(database.dataSource, {
        queues: queued.asQueues(),
        messages: records,
        operations: ops,
        options: { batchThreshold: 10, batchSize: 1_000, deliverWhileTranslatingOver },
      });
    const pos = (n: number, prefix = 'PO') => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
    const queuedOnce = (batches: string[][]) => new Set(batches.flat());
    /** The operations of a worker that stores `batches` batches, then dies at the next. */
    const dyingAfter = (batches: number) => {
      let appends = 0;
      const dying = Object.create(operations) as OperationRepository;
      dying.appendStreamed = async (run, batch) => {
        if (++appends > batches) {
          throw new Error('the worker stopped');
        }
        return operations.appendStreamed(run, batch);
      };
      return dying;
    };

    beforeEach(() => {
      watching = new WatchingQueues();
    });

    it('queues the first chunks while the rest of the file is still read', async () => {
      const message = await upload(interchange(501, pos(2_500)));

      expect(await translatorOver().execute(message.id)).toBe('queued');

      const rows = await operations.listByMessage(message.id);
      expect(rows.map((r) => r.seq)).toEqual(pos(2_500).map((_, i) => i + 1));
      // The first three chunks (125 + 250 + 500) went once the first batch of 1,000 was stored.
      expect(watching.seen[0]).toEqual({ stored: 1_000, status: 'translating' });
      expect(watching.batches.slice(0, 3).map((b) => b.length)).toEqual([125, 250, 500]);
      expect(queuedOnce(watching.batches)).toEqual(new Set(rows.map((r) => r.id)));
      expect(watching.batches.flat()).toHaveLength(2_500);
      const found = await messages.findById(message.id);
      expect(found?.status).toBe('delivering');
      expect(found?.metadata).toMatchObject({ deliveredWhileTranslating: true, operationsThrough: 2_500 });
    });

    it('delivers nothing before the end of a file with an interchange refused at its end, as before', async () => {
      const message = await upload(
        interchange(601, pos(20, 'KEPT')) + interchange(602, pos(20, 'GONE'), 999) + interchange(603, pos(20, 'LATER')),
      );

      expect(await translatorOver().execute(message.id)).toBe('queued');

      expect(watching.seen.every((s) => s.status === 'delivering')).toBe(true);
      const rows = await operations.listByMessage(message.id);
      expect(rows.filter((r) => r.status === 'pending').map((r) => r.targetId)).toEqual([
        ...pos(20, 'KEPT'),
        ...pos(20, 'LATER'),
      ]);
      expect((await messages.findById(message.id))?.metadata?.deliveredWhileTranslating).toBeUndefined();
    });

    it('does not deliver an interchange received before while translating its file', async () => {
      await translatorOver().execute((await upload(interchange(801, pos(15, 'FIRST')))).id);
      watching = new WatchingQueues();
      const again = await upload(interchange(801, pos(15, 'FIRST')) + interchange(802, pos(15, 'NEW')));

      expect(await translatorOver().execute(again.id)).toBe('queued');

      expect(watching.seen.every((s) => s.status === 'delivering')).toBe(true);
      expect((await stored(again.id)).map((r) => r.target)).toEqual(pos(15, 'NEW'));
    });

    it('goes on after the operations a stopped translation stored: each stored and queued in the same chunks', async () => {
      const message = await upload(interchange(901, pos(3_500)));
      const dying = dyingAfter(2);
      await expect(translatorOver(dying).execute(message.id)).rejects.toThrow('the worker stopped');
      const before = await operations.listByMessage(message.id);
      expect(before.map((r) => r.seq)).toEqual(pos(2_000).map((_, i) => i + 1));
      expect((await messages.findById(message.id))?.status).toBe('translating');
      const firstRun = watching.batches.map((b) => [...b]);

      const again = new WatchingQueues();
      expect(await translatorOver(operations, again).execute(message.id)).toBe('queued');

      const rows = await operations.listByMessage(message.id);
      expect(rows.map((r) => r.seq)).toEqual(pos(3_500).map((_, i) => i + 1));
      expect(rows.slice(0, 2_000).map((r) => r.id)).toEqual(before.map((r) => r.id));
      // The chunks queued before are queued again the same (one job each), then the rest.
      expect(again.batches.slice(0, firstRun.length)).toEqual(firstRun);
      expect(again.batches.flat()).toHaveLength(3_500);
      expect(queuedOnce(again.batches)).toEqual(new Set(rows.map((r) => r.id)));
    });

    it('stores the refused sets once, in their place, when a translation stopped after its last operation was stored', async () => {
      const raw = interchange(1001, pos(40)).replace('BEG*00*SA*PO-7*', 'BEG*00*SA**');
      const message = await upload(raw);
      let transitions = 0;
      const stopping = Object.create(messages) as MessageRepository;
      stopping.transition = async (...args: Parameters<MessageRepository['transition']>) => {
        if (args[1] === 'delivering' && ++transitions === 1) {
          throw new Error('the worker stopped');
        }
        return messages.transition(...args);
      };
      const translator = translatorOver(operations, watching, stopping);
      await expect(translator.execute(message.id)).rejects.toThrow('the worker stopped');
      expect((await stored(message.id)).filter((r) => r.status === 'failed')).toHaveLength(1);

      expect(await translator.execute(message.id)).toBe('queued');

      const rows = await stored(message.id);
      expect(rows.map((r) => r.seq)).toEqual(pos(40).map((_, i) => i + 1));
      expect(rows.filter((r) => r.status === 'failed')).toHaveLength(1);
      expect(rows[6].status).toBe('failed');
    });

    it('leaves a message being translated alone when its first chunks are all delivered', async () => {
      const message = await upload(interchange(1101, pos(3)));
      await messages.transition(message.id, 'translating', 'worker');
      await storedOne(message.id, 'PO-1');
      await database.dataSource.query(`UPDATE operation SET status = 'delivered' WHERE message_id = $1`, [message.id]);

      expect((await messages.settleMessage(message.id, 'worker')).status).toBe('translating');
    });

    it('takes a message marked by another run up only where it stopped, and none that stopped translating', async () => {
      const message = await upload(interchange(1201, pos(3)));
      await messages.transition(message.id, 'translating', 'worker');
      const first = await operations.beginDeliveringWrite(message.id);
      await operations.appendStreamed(
        first.run,
        StreamedBatch.of(message.id, 1, [
          { kind: 'document.upsert', organisationId: ORG, targetId: 'PO-1', orderKey: 'a', payload: {} },
        ]),
      );
      // A run that read the message before it was marked would start it over: refused.
      await expect(operations.beginStreamedWrite(message.id)).rejects.toBeInstanceOf(StreamedWriteTakenOverError);
      expect(await operations.beginDeliveringWrite(message.id)).toMatchObject({ storedThrough: 1, lastTarget: 'PO-1' });
      await messages.transition(message.id, 'delivering', 'worker');
      await expect(operations.beginDeliveringWrite(message.id)).rejects.toBeInstanceOf(StreamedWriteTakenOverError);
      expect((await stored(message.id)).map((r) => r.target)).toEqual(['PO-1']);
    });

    it('stops, keeping what it stored, when the file no longer reads as it did when taken up again', async () => {
      const message = await upload(interchange(1301, pos(2_500)));
      const dying = dyingAfter(1);
      await expect(translatorOver(dying).execute(message.id)).rejects.toThrow('the worker stopped');
      // As if the partner's settings changed what its 1,000th operation writes.
      await database.dataSource.query(
        `UPDATE operation SET target_id = 'PO-other' WHERE message_id = $1 AND seq = 1000`,
        [message.id],
      );

      await expect(translatorOver().execute(message.id)).rejects.toThrow(/no longer reads as it did/);

      expect((await stored(message.id)).map((r) => r.seq)).toEqual(pos(1_000).map((_, i) => i + 1));
      expect((await messages.findById(message.id))?.status).toBe('translating');
    });

    it('stops when a set stored as refused reads as accepted when taken up again', async () => {
      const message = await upload(interchange(1351, pos(2_500)));
      const dying = dyingAfter(1);
      await expect(translatorOver(dying).execute(message.id)).rejects.toThrow('the worker stopped');
      // As if the partner's settings had refused its 1,000th set when it was stored.
      await database.dataSource.query(
        `UPDATE operation SET status = 'failed', order_key = NULL WHERE message_id = $1 AND seq = 1000`,
        [message.id],
      );

      await expect(translatorOver().execute(message.id)).rejects.toThrow(
        /operation 1000 of message .* writes PO-1000 now, refuses PO-1000 when it was stored: the file no longer reads as it did/,
      );
      expect((await stored(message.id)).map((r) => r.seq)).toEqual(pos(1_000).map((_, i) => i + 1));
    });

    it('given up, ends failed for good: what no call holds ends too, and the partner may send the file again', async () => {
      const raw = interchange(1401, pos(2_500));
      const message = await upload(raw);
      const dying = dyingAfter(1);
      const translator = translatorOver(dying);
      await expect(translator.execute(message.id)).rejects.toThrow('the worker stopped');
      // One document is being sent when the translation is given up.
      const sending = watching.batches[0][0];
      // Weighed as its streamed batch stored it: at least its document's text.
      const operation = await operations.findById(sending);
      expect(await operations.payloadWeightOf(sending)).toBeGreaterThan(
        JSON.stringify(operation!.payload.document).length,
      );
      expect(await operations.gate([sending], 60_000)).toMatchObject([{ verdict: 'go' }]);

      await translator.giveUp([message.id], new Error('the worker stopped'), 3);

      const ended = await operations.listByMessage(message.id);
      expect(ended.filter((op) => op.status === 'failed')).toHaveLength(999);
      expect(ended.find((op) => op.id === sending)?.status).toBe('delivering');
      expect(ended.find((op) => op.id !== sending)?.lastError).toMatch(/^its translation was given up: /);
      // A run of it still going stores nothing more.
      await expect(
        operations.appendStreamed(
          (await messages.findById(message.id))!.metadata!.translationRun!,
          StreamedBatch.of(message.id, 1_001, [
            { kind: 'document.upsert', organisationId: ORG, targetId: 'PO-late', orderKey: 'late', payload: {} },
          ]),
        ),
      ).rejects.toBeInstanceOf(StreamedWriteTakenOverError);
      // The one being sent is delivered after all: the message stays failed, its counts recorded.
      await operations.recordAttempt(
        sending,
        { startedAt: new Date(), durationMs: 5, httpStatus: 200, outcome: 'success' },
        { status: 'delivered' },
      );
      const settled = await messages.settleMessage(message.id, 'worker');
      expect(settled.status).toBe('failed');
      expect((await messages.findById(message.id))?.metadata?.operationCounts).toEqual({
        byStatus: { delivered: 1, failed: 999 },
        attempts: 1,
      });

      const resent = await upload(raw);
      expect(await translatorOver().execute(resent.id)).toBe('queued');
      expect(await stored(resent.id)).toHaveLength(2_500);
    });

    it('leaves a message another run took over to that run: its job has nothing to retry', async () => {
      const message = await upload(interchange(1451, pos(20)));
      const overtaken = Object.create(operations) as OperationRepository;
      overtaken.appendStreamed = async () => {
        throw new StreamedWriteTakenOverError(message.id);
      };
      expect(await translatorOver(overtaken).executeMany([message.id])).toEqual({ failed: [], error: undefined });
    });

    it('gives a normal translation whose run was taken over to the run that took it', async () => {
      const message = await upload(interchange(1461, pos(20)));
      // Another run takes the message over just as this one is about to move it on.
      const overtaken = Object.create(messages) as MessageRepository;
      overtaken.transition = async (...args: Parameters<MessageRepository['transition']>) => {
        if (args[1] === 'delivering') {
          await database.dataSource.query(
            `UPDATE message SET metadata = metadata || '{"translationRun": "another"}' WHERE id = $1`,
            [message.id],
          );
        }
        return messages.transition(...args);
      };
      const normal = translatorOver(operations, watching, overtaken, Infinity);

      expect(await normal.executeMany([message.id])).toEqual({ failed: [], error: undefined });

      expect((await messages.findById(message.id))?.status).toBe('translating');
      expect(watching.batches).toEqual([]);
    });

    it('given up, ends what a stopped normal translation stored, sparing a chunk between its tries', async () => {
      const message = await upload(interchange(1471, pos(1_500)));
      const normal = translatorOver(dyingAfter(1), watching, messages, Infinity);
      await expect(normal.execute(message.id)).rejects.toThrow('the worker stopped');
      const rows = await operations.listByMessage(message.id);
      expect(rows).toHaveLength(1_000);
      // A chunk's job claimed one, its try failed: between tries, no lease and no open attempt, but its job retries.
      const chunked = rows[0].id;
      await operations.gateChunk([chunked], 60_000, chunked);
      await database.dataSource.query(`UPDATE operation SET in_flight_until = NULL WHERE id = $1`, [chunked]);
      await database.dataSource.query(`UPDATE attempt SET outcome = 'retryable' WHERE operation_id = $1`, [chunked]);

      await normal.giveUp([message.id], new Error('the worker stopped'), 3);

      const after = await operations.listByMessage(message.id);
      expect(after.filter((op) => op.status === 'failed')).toHaveLength(999);
      expect(after.find((op) => op.id === chunked)?.status).toBe('delivering');
      expect((await messages.findById(message.id))?.status).toBe('failed');
    });

    it('plans its refused sets with its operations, as a plan from the stored rows does', async () => {
      // 8 operations and 2 refused sets: with them, the group reaches the threshold of 10.
      const raw = interchange(1501, pos(10)).replace(/PO1\*1\*12\*CA(?=[^~]*~\nSE\*7\*0009)/, 'PO1*1*twelve*CA');
      const message = await upload(raw.replace('BEG*00*SA*PO-10*', 'BEG*00*SA**'));
      expect(await translatorOver().execute(message.id)).toBe('queued');
      const rows = await stored(message.id);
      expect(rows.filter((r) => r.status === 'failed')).toHaveLength(2);

      const replanned = new RecordingQueues();
      await translatorOver(operations, replanned).enqueueStored(message);
      expect(watching.batches).toEqual(replanned.batches);
      expect(watching.delivered).toEqual(replanned.delivered);
    });
  });
});
