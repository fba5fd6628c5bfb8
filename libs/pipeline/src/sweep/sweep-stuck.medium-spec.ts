import { DataSource } from 'typeorm';
import {
  InterchangeRepository,
  MessageRepository,
  OperationRepository,
  ReplayRunRepository,
  type MessageChannel,
  type MessageMetadata,
  type OperationStatus,
} from '@dockbridge/audit';
import { mediumTranslator, RecordingQueues, startMediumDatabase } from '../../../../test/support/medium';
import { replayRunJobId } from '../queues';
import { MAX_TRANSLATION_REQUEUES, SweepStuck } from './sweep-stuck';

/**
 * SweepStuck on a real Postgres, the queues recorded and their job states scripted (no Redis): what
 * the sweeper finds stuck, what it queues again and what it leaves to the jobs still holding it.
 */
const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
/** Sweeps look an hour ahead with a one-minute staleness: everything recorded counts as stale. */
const later = () => new Date(Date.now() + 3_600_000);
const STALE_MS = 60_000;

describe('SweepStuck (medium: real Postgres, recorded queues)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let messages: MessageRepository;
  let operations: OperationRepository;
  let runs: ReplayRunRepository;
  let queues: RecordingQueues;
  let sweep: SweepStuck;

  beforeAll(async () => {
    database = await startMediumDatabase();
    const { dataSource } = database;
    messages = new MessageRepository(dataSource);
    operations = new OperationRepository(dataSource);
    runs = new ReplayRunRepository(dataSource);
  }, 60_000);
  afterAll(() => database?.close());
  beforeEach(async () => {
    await database.dataSource.query('TRUNCATE message, replay_run CASCADE');
    queues = new RecordingQueues();
    sweep = new SweepStuck(
      messages,
      queues.asQueues(),
      translatorOver(operations),
      { staleMs: STALE_MS, limit: 2 },
      runs,
    );
  });

  /** The translation the sweeper drives, over these operations (a failing copy, for a test). */
  const translatorOver = (over: OperationRepository) =>
    mediumTranslator(database.dataSource, { queues: queues.asQueues(), messages, operations: over });

  const message = (metadata: MessageMetadata = {}, channel: MessageChannel = 'api') =>
    messages.record({ partnerId: 'medium', channel, rawPayload: '{}', contentType: 'application/json', metadata });

  /** A `delivering` message with one upsert per status given; returns it and its operation ids. */
  const delivering = async (statuses: OperationStatus[]) => {
    const m = await message();
    await messages.transition(m.id, 'translating', 'worker');
    await messages.transition(m.id, 'delivering', 'worker');
    const rows = await operations.addMany(
      m.id,
      statuses.map((_, i) => ({
        kind: 'document.upsert' as const,
        organisationId: ORG,
        targetId: `${m.id}-${i}`,
        orderKey: `doc:${m.id}-${i}`,
        payload: {},
      })),
    );
    for (const [i, row] of rows.entries()) {
      await database.dataSource.query(`UPDATE operation SET status = $2 WHERE id = $1`, [row.id, statuses[i]]);
    }
    return { id: m.id, operationIds: rows.map((row) => row.id) };
  };

  it('queues translation again only for messages whose commit job and own job are both gone', async () => {
    const waitingInCommit = await message({ ingressJob: 'ingress-live' });
    const waitingAlone = await message({ ingressJob: 'ingress-gone' });
    const lost = await message({ ingressJob: 'ingress-gone' });
    const lostLong = await message(); // recorded before ingress jobs, or by a replay
    queues.live.add('ingress-live').add(waitingAlone.id);
    queues.finished.add(lost.id); // its own job ran once and finished: removed so the id can be used again

    const report = await sweep.execute(later(), STALE_MS);

    expect(report.translations).toBe(2);
    expect(queues.translated.sort()).toEqual([lost.id, lostLong.id].sort());
    expect(queues.removed).toEqual([lost.id]);
    expect(queues.translated).not.toContain(waitingInCommit.id);
  });

  it('ends a message whose translation job was lost too many times failed, naming why', async () => {
    // Its worker stops each time it translates it (its job then fails by stalling, never reaching giveUp).
    const poison = await message({ ingressJob: 'ingress-gone' });
    await messages.transition(poison.id, 'translating', 'worker');
    for (let sweepNo = 1; sweepNo <= MAX_TRANSLATION_REQUEUES; sweepNo++) {
      queues.finished.add(poison.id);
      expect((await sweep.execute(later(), STALE_MS)).translations).toBe(1);
      expect((await messages.findById(poison.id))?.metadata.translationRequeues).toBe(sweepNo);
    }
    expect(queues.translated).toEqual(Array(MAX_TRANSLATION_REQUEUES).fill(poison.id));

    const lostOnce = await message();
    expect((await sweep.execute(later(), STALE_MS)).translations).toBe(1);
    expect(queues.translated.slice(MAX_TRANSLATION_REQUEUES)).toEqual([lostOnce.id]);
    const ended = await messages.findById(poison.id);
    expect(ended?.status).toBe('failed');
    expect(ended?.statusReason).toMatch(/^translation never finished: its job was lost 6 times/);
    expect((await messages.findById(lostOnce.id))?.metadata.translationRequeues).toBe(1);
  });

  it('finishes the cleanup of a given-up translation the database cut short', async () => {
    const { dataSource } = database;
    const m = await message();
    await messages.transition(m.id, 'translating', 'worker');
    await operations.addMany(m.id, [
      { kind: 'document.upsert', organisationId: ORG, targetId: 'PO-1', orderKey: 'doc:PO-1', payload: {} },
    ]);
    const interchanges = new InterchangeRepository(dataSource);
    await interchanges.claim('medium', ['ZZ/KETTLE/000000501'], m.id, 30);
    // The database goes away after the message was moved to failed, before its operations were ended.
    const failing = Object.create(operations) as OperationRepository;
    failing.endUnsettled = async () => {
      throw new Error('connection terminated');
    };
    await expect(translatorOver(failing).abandon(m.id, 'worker', 'the worker stopped')).rejects.toThrow(
      'connection terminated',
    );
    const cutShort = (await messages.findById(m.id))!;
    expect([cutShort.status, cutShort.metadata.abandoning]).toEqual(['failed', true]);
    expect((await operations.listByMessage(m.id)).map((op) => op.status)).toEqual(['pending']);

    const report = await sweep.execute(later(), STALE_MS);

    expect(report.abandoned).toBe(1);
    const [ended] = await operations.listByMessage(m.id);
    expect([ended.status, ended.lastError]).toEqual(['failed', 'its translation was given up: the worker stopped']);
    expect((await messages.findById(m.id))!.metadata).not.toHaveProperty('abandoning');
    // Its interchange released: the partner's resend is not a duplicate.
    expect(await interchanges.claim('medium', ['ZZ/KETTLE/000000501'], (await message()).id, 30)).toEqual(new Set());
    // Done once: the next sweep finds nothing.
    expect((await sweep.execute(later(), STALE_MS)).abandoned).toBe(0);
  });

  it('re-queues the unsettled operations of delivering messages and settles those with none left', async () => {
    const half = await delivering(['delivered', 'pending', 'failed', 'delivering']);
    const done = await delivering(['delivered', 'failed']);

    const report = await sweep.execute(later(), STALE_MS);

    expect(queues.delivered.sort()).toEqual([half.operationIds[1], half.operationIds[3]].sort());
    expect(report).toMatchObject({ deliveries: 2, settled: 1 });
    expect((await messages.findById(done.id))?.status).toBe('partially_failed');
    expect((await messages.findById(half.id))?.status).toBe('delivering');
  });

  it('marks an export file its run never delivered failed, and never translates it', async () => {
    const file = await message({ exportId: 'daily', fileName: 'export_daily.csv', rows: 3, pages: 1 }, 'export');

    const report = await sweep.execute(later(), STALE_MS);

    expect(report).toMatchObject({ exports: 1, translations: 0 });
    const after = await messages.findById(file.id);
    expect(after?.status).toBe('failed');
    expect(after?.statusReason).toMatch(/export run stopped before delivering this file/);
  });

  it('queues again the bulk replay runs whose job is gone, not those still held by one', async () => {
    const lostRun = await runs.create({ filter: {}, request: { mode: 'rerun' }, actor: 'operator:x' });
    const heldRun = await runs.create({ filter: {}, request: { mode: 'rerun' }, actor: 'operator:x' });
    queues.live.add(replayRunJobId(heldRun.id));

    const report = await sweep.execute(later(), STALE_MS);

    expect(report.replayRuns).toBe(1);
    expect(queues.replayRuns).toEqual([lostRun.id]);
  });
});
