import { randomBytes } from 'node:crypto';
import { MessageQueues, RetryPolicy } from '@dockbridge/pipeline';
import { DEMO } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

const upsert = (id: string) => ({
  kind: 'document.upsert',
  organisationId: DEMO.mainDc,
  document: { id, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
});

describe("the console's dashboard figures", () => {
  let spine: Spine;
  beforeAll(async () => {
    spine = await startSpine();
    const send = async (id: string) =>
      (await (await spine.call('POST', '/v1/messages', { body: { operations: [upsert(id)] } })).json())
        .messageId as string;
    for (const id of ['DASH-1', 'DASH-2']) {
      expect(await spine.waitForStatus(await send(id), ['delivered'])).toBe('delivered');
    }
    await spine.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ method: 'PUT', path: '/api/v2/organisations/*/documents/DASH-BAD', status: 400 }] },
    });
    expect(await spine.waitForStatus(await send('DASH-BAD'), ['failed'])).toBe('failed');
    await spine.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
  }, 90_000);
  afterAll(() => spine?.close());

  it('counts what was received, delivered and failed per minute, with latency, failure classes, queues and partners', async () => {
    const response = await spine.call('GET', '/v1/admin/stats?hours=2', { auth: 'admin' });
    expect(response.status).toBe(200);
    const stats = await response.json();
    expect(stats.bucketSeconds).toBe(60);
    expect(stats.series).toHaveLength(120);
    const total = (key: string) => stats.series.reduce((sum: number, b: Record<string, number>) => sum + b[key], 0);
    expect([total('received'), total('delivered'), total('failed')]).toEqual([3, 2, 1]);
    // Buckets are whole minutes, oldest first, and the last one holds now.
    expect(new Date(stats.series[0].at).getUTCSeconds()).toBe(0);
    expect(Date.parse(stats.series[119].at)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(stats.to)).toBeGreaterThan(Date.now());
    expect(stats.latencyMs.p50).toEqual(expect.any(Number));
    expect(stats.latencyMs.p99).toBeGreaterThanOrEqual(stats.latencyMs.p50);
    expect(stats.failuresByClass).toEqual({ retryable: 0, permanent: 1, auth: 0 });
    expect(stats.queues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'deliver', waiting: expect.any(Number), oldestWaitingSeconds: null }),
      ]),
    );
    expect(stats.partners).toEqual([
      { partner: 'test-wms', received: 3, delivered: 2, failed: 1, lastReceivedAt: expect.any(String) },
    ]);
  });

  it('counts messages by status for a filter, and finds them by words of their reason', async () => {
    const counts = await (
      await spine.call('GET', '/v1/admin/messages/counts?partner=test-wms', { auth: 'admin' })
    ).json();
    expect(counts.byStatus).toMatchObject({ delivered: 2, failed: 1, received: 0, rejected: 0 });
    const none = await (await spine.call('GET', '/v1/admin/messages/counts?partner=nobody', { auth: 'admin' })).json();
    expect(Object.values(none.byStatus).every((n) => n === 0)).toBe(true);
    const found = await (await spine.call('GET', '/v1/admin/messages?text=injected%20FAULT', { auth: 'admin' })).json();
    expect(found.items.map((m: { status: string }) => m.status)).toEqual(['failed']);
    // % and _ are letters here, not wildcards.
    const literal = await (await spine.call('GET', '/v1/admin/messages?text=%25', { auth: 'admin' })).json();
    expect(literal.items).toEqual([]);
    const faultCounts = await (
      await spine.call('GET', '/v1/admin/messages/counts?text=Injected', { auth: 'admin' })
    ).json();
    expect(faultCounts.byStatus).toMatchObject({ failed: 1, delivered: 0 });
  });

  it('widens the buckets for a long window, and refuses a window it does not keep', async () => {
    const day = await (await spine.call('GET', '/v1/admin/stats?hours=48', { auth: 'admin' })).json();
    expect(day.bucketSeconds).toBe(480);
    expect(day.series).toHaveLength(360);
    for (const hours of ['0', '49', '1.5', 'x']) {
      const refused = await spine.call('GET', `/v1/admin/stats?hours=${hours}`, { auth: 'admin' });
      expect(refused.status).toBe(400);
    }
  });

  it("tells how long a queue's oldest waiting job has waited, when no worker takes it", async () => {
    const queues = new MessageQueues({
      redis: { url: 'redis://127.0.0.1:6379' },
      prefix: `{dbtest-idle-${randomBytes(4).toString('hex')}}`,
      policy: spine.app.get(RetryPolicy),
    });
    try {
      await queues.enqueueDeliveries(['00000000-0000-7000-8000-000000000001']);
      const later = Date.now() + 90_000;
      const deliver = (await queues.states(later)).find((queue) => queue.name === 'deliver');
      expect(deliver).toMatchObject({ waiting: 1, active: 0 });
      expect(deliver!.oldestWaitingSeconds).toBeGreaterThanOrEqual(89);
      expect(deliver!.oldestWaitingSeconds).toBeLessThanOrEqual(91);
      expect((await queues.states()).find((queue) => queue.name === 'translate')?.oldestWaitingSeconds).toBeNull();
    } finally {
      await Promise.all(queues.all().map((queue) => queue.obliterate({ force: true })));
      await queues.close();
    }
  });
});
