import { DataSource } from 'typeorm';
import { MessageRepository, OperationRepository, type OperationStatus } from '@dockbridge/audit';
import { orderKeyOf, type CanonicalOperation } from '@dockbridge/mapping';
import { PartnerRepository } from '@dockbridge/partners';
import { RecordingQueues, startMediumDatabase } from '../../../../test/support/medium';
import { CANONICAL_CONTENT_TYPE } from '../translate/translators';
import { ReplayError, ReplayMessage } from './replay-message';

/**
 * ReplayMessage on a real Postgres, the queues recorded (no Redis, no platform): what a replay
 * records and sends, for messages of several operations in several states.
 */
const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const OTHER_ORG = '0b7e2a51-93c4-4d8e-a1f0-5c6d7e8f9a02';
const upsert = (id: string, organisationId = ORG): CanonicalOperation =>
  ({
    kind: 'document.upsert',
    organisationId,
    document: { id, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
  }) as CanonicalOperation;

describe('ReplayMessage (medium: real Postgres, recorded queues)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let messages: MessageRepository;
  let operations: OperationRepository;
  let queues: RecordingQueues;
  let replays: ReplayMessage;

  beforeAll(async () => {
    database = await startMediumDatabase();
    messages = new MessageRepository(database.dataSource);
    operations = new OperationRepository(database.dataSource);
    const partners = new PartnerRepository(database.dataSource);
    await partners.upsert({ id: 'medium', name: 'Medium', locationOrganisationId: ORG }, 'api');
    queues = new RecordingQueues();
    replays = new ReplayMessage(messages, operations, queues.asQueues(), partners);
  }, 60_000);
  afterAll(() => database?.close());

  /** A delivered-to message whose operations ended in `statuses`, one upsert each (documents D1, D2, ...). */
  const original = async (statuses: OperationStatus[], metadata = {}) => {
    const ops = statuses.map((_, i) => upsert(`D${i + 1}`));
    const message = await messages.record({
      partnerId: 'medium',
      channel: 'api',
      rawPayload: JSON.stringify({ operations: ops }),
      contentType: CANONICAL_CONTENT_TYPE,
      metadata,
    });
    const rows = await operations.addMany(
      message.id,
      ops.map((op, i) => ({
        kind: 'document.upsert' as const,
        organisationId: ORG,
        targetId: `D${i + 1}`,
        orderKey: orderKeyOf(op),
        payload: op as never,
      })),
    );
    for (const [i, row] of rows.entries()) {
      await database.dataSource.query(`UPDATE operation SET status = $2 WHERE id = $1`, [row.id, statuses[i]]);
    }
    return message;
  };

  it('failed-only resends exactly the failed operations of a many-operation message, in their order', async () => {
    const message = await original(['delivered', 'failed', 'delivered', 'failed', 'superseded']);
    const replay = await replays.replay(message.id, { mode: 'failed-only', actor: 'operator:ops' });
    const sent = JSON.parse(replay.rawPayload) as { operations: CanonicalOperation[] };
    expect(sent.operations.map((op) => (op as { document: { id: string } }).document.id)).toEqual(['D2', 'D4']);
    expect(replay.contentType).toBe(CANONICAL_CONTENT_TYPE);
    expect(replay.replayOf).toBe(message.id);
    expect(queues.translated).toContain(replay.id);
  });

  it('rerun resends the raw payload, records who asked and why, and keeps its place in arrival order', async () => {
    const message = await original(['delivered', 'delivered'], {
      idempotencyKey: 'k1',
      ingressJob: 'ingress-1',
      fileName: 'a.json',
    });
    const replay = await replays.replay(message.id, { mode: 'rerun', actor: 'operator:ana', reason: 'platform fixed' });
    expect(replay.rawPayload).toBe(message.rawPayload);
    expect(replay.metadata).toMatchObject({
      fileName: 'a.json',
      orderArrival: await messages.orderArrivalOf(message.id),
      replay: { mode: 'rerun', edited: false, by: 'operator:ana', reason: 'platform fixed', mapping: 'original' },
    });
    // What belonged to the receipt alone stays with the original.
    expect(replay.metadata.idempotencyKey).toBeUndefined();
    expect(replay.metadata.ingressJob).toBeUndefined();
    const forced = await replays.replay(message.id, { mode: 'rerun', actor: 'operator:ana', force: true });
    expect(forced.metadata.orderArrival).toBeUndefined();
    expect(forced.metadata.replay).toMatchObject({ force: true });
  });

  it('refuses what cannot be replayed, recording nothing', async () => {
    const delivered = await original(['delivered', 'delivered']);
    const refused = await original([], { refusedAtIngress: true });
    const before = queues.translated.length;
    await expect(replays.replay(delivered.id, { mode: 'failed-only', actor: 'operator:x' })).rejects.toMatchObject({
      code: 'nothing-to-retry',
    });
    await expect(replays.replay(refused.id, { mode: 'rerun', actor: 'operator:x' })).rejects.toBeInstanceOf(
      ReplayError,
    );
    await expect(
      replays.replay('0191d6a4-0000-7000-8000-000000000000', { mode: 'rerun', actor: 'operator:x' }),
    ).rejects.toMatchObject({ code: 'not-found' });
    expect(await messages.replaysOf(delivered.id)).toEqual([]);
    expect(queues.translated).toHaveLength(before);
  });

  it('holds an edited payload to the partner’s organisations unless the operator overrides it', async () => {
    const message = await original(['failed']);
    const outside = JSON.stringify({ operations: [upsert('D9', OTHER_ORG)] });
    await expect(
      replays.replay(message.id, { mode: 'rerun', actor: 'operator:x', payload: outside }),
    ).rejects.toMatchObject({
      code: 'invalid-payload',
      message: expect.stringContaining('acts outside the organisations partner medium may act on') as string,
    });
    const overridden = await replays.replay(message.id, {
      mode: 'rerun',
      actor: 'operator:x',
      payload: outside,
      overrideOrganisations: true,
    });
    expect(overridden.rawPayload).toBe(outside);
    expect(overridden.metadata.replay).toMatchObject({ edited: true, organisationOverride: true });
  });

  it('in bulk, skips a message whose latest replay was delivered unless includeReplayed, and says why', async () => {
    const first = await original(['failed']);
    const second = await original(['failed']);
    const earlier = await replays.replay(first.id, { mode: 'rerun', actor: 'operator:x' });
    await messages.transition(earlier.id, 'delivered', 'worker');
    const request = { mode: 'rerun' as const, actor: 'operator:x' as const };
    const outcomes = await replays.replayEach([first, second], request, { dryRun: true });
    expect(outcomes).toEqual([
      { id: first.id, skipped: expect.stringContaining(`replay ${earlier.id} was delivered`) as string },
      { id: second.id, replayId: second.id },
    ]);
    expect(await messages.replaysOf(second.id)).toEqual([]); // a dry run records nothing
    const again = await replays.replayEach([first], { ...request, includeReplayed: true });
    expect(again).toEqual([{ id: first.id, replayId: expect.any(String) as string }]);
  });
});
