import { DEMO } from './support/sandbox';
import { PrivateRedis } from './support/redis-server';
import { Spine, startSpine } from './support/spine';

describe('nothing accepted is lost: Redis outage', () => {
  let redis: PrivateRedis;
  let spine: Spine;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    spine = await startSpine({ 'redis.url': redis.url, 'delivery.sweepEveryMs': 1000, 'delivery.sweepStaleMs': 1000 });
  }, 60_000);
  afterAll(async () => {
    await spine?.close();
    await redis?.down();
  });

  it('accepts a message while Redis is stopped, and delivers it once Redis returns (sweeper)', async () => {
    await redis.down();
    const started = Date.now();
    const response = await spine.call('POST', '/v1/messages', {
      body: {
        operations: [
          {
            kind: 'document.upsert',
            organisationId: DEMO.mainDc,
            document: { id: 'OUTAGE-1', direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
          },
        ],
      },
    });
    expect(response.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(5000); // fails fast instead of waiting for Redis
    const { messageId } = await response.json();
    expect((await spine.messages.findById(messageId))?.status).toBe('received');

    await redis.up(); // an empty Redis: no jobs, no schedules survive
    expect(await spine.waitForStatus(messageId, ['delivered', 'failed'], 30_000)).toBe('delivered');
    expect((await spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/OUTAGE-1`)).status).toBe(
      200,
    );
    const events = (await spine.messages.findDetail(messageId))?.events.map((e) => e.toStatus);
    expect(events).toEqual(['received', 'translating', 'delivering', 'delivered']);
  }, 60_000);
});
