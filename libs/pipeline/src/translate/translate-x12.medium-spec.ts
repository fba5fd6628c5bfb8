import { DataSource } from 'typeorm';
import {
  InterchangeRepository,
  MessageRepository,
  OperationRepository,
  StreamedBatch,
  StreamedWriteTakenOverError,
} from '@dockbridge/audit';
import { PartnerFileRepository, PartnerMappingRepository, PartnerRepository } from '@dockbridge/partners';
import { RecordingQueues, startMediumDatabase } from '../../../../test/support/medium';
import { MessagePayloads } from './message-payloads';
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
    const { dataSource } = database;
    translate = new TranslateMessage(
      messages,
      operations,
      new InterchangeRepository(dataSource),
      new PartnerRepository(dataSource),
      new PartnerMappingRepository(dataSource),
      queues.asQueues(),
      null,
      { batchThreshold: 1_000, batchSize: 100 },
      new MessagePayloads(new PartnerFileRepository(dataSource), messages),
    );
  });

  const upload = (raw: string) =>
    messages.record({ partnerId: 'kettle', channel: 'http-edi', rawPayload: raw, contentType: X12_CONTENT_TYPE });
  const stored = async (messageId: string) =>
    (await operations.listByMessage(messageId)).map((op) => ({
      seq: op.seq,
      status: op.status,
      target: op.targetId,
    }));

  it('stores the operations in file order, then the refused sets, then the refused interchanges; queues only the operations', async () => {
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
      [3, 'pending', 'PO-5'],
      [4, 'failed', 'PO-4'],
      [5, 'failed', null],
    ]);
    const ops = await operations.listByMessage(message.id);
    expect(ops[4].lastError).toMatch(/^interchange 000000102: /);
    expect(queues.delivered.sort()).toEqual(
      ops
        .slice(0, 3)
        .map((op) => op.id)
        .sort(),
    );
    expect((await messages.findById(message.id))?.status).toBe('delivering');
  });

  it('keeps only the new interchanges of a file that repeats an earlier one, and stores nothing for a whole duplicate', async () => {
    const first = await upload(interchange(201, ['PO-A']));
    await translate.execute(first.id);
    const again = await upload(interchange(201, ['PO-A']));
    expect(await translate.execute(again.id)).toBe('duplicate');
    expect(await stored(again.id)).toEqual([]);

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
    const run = await operations.beginStreamedWrite(message.id);
    await operations.appendStreamed(
      run,
      StreamedBatch.of(message.id, 1, [
        { kind: 'document.upsert', organisationId: ORG, targetId: 'PO-X', orderKey: 'x', payload: {} },
      ]),
    );

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
});
