import { createServer, IncomingMessage, Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { PartnerFileRepository, PartnerRepository, WebhookSecretRepository } from '@dockbridge/partners';
import {
  csvRecords,
  MessageQueues,
  QUEUES,
  RetryPolicy,
  RunExport,
  SweepStuck,
  translateJobId,
} from '@dockbridge/pipeline';
import { seedWithBookings } from './support/bookings';
import { DEMO, startSandbox } from './support/sandbox';
import { bulkReplay } from './support/replay-runs';
import { Spine, startSpine } from './support/spine';

const TOTAL = 1205;

/** A partner's HTTP endpoint on loopback: keeps what it receives. */
async function receiver(): Promise<{
  url: string;
  received: { headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}> {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/exports`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A partner endpoint that answers 503 to its first `failures` posts, then 204. */
async function flakyReceiver(failures: number): Promise<{ url: string; posts: number; close(): Promise<void> }> {
  const state = { posts: 0 };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(++state.posts <= failures ? 503 : 204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/exports`,
    get posts() {
      return state.posts;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('scheduled bookings exports to partners', () => {
  let spine: Spine;
  let endpoint: Awaited<ReturnType<typeof receiver>>;
  let secret: string;

  beforeAll(async () => {
    const sandbox = await startSandbox({ seed: seedWithBookings(TOTAL) });
    spine = await startSpine({ 'delivery.sweepEveryMs': 1000 }, { sandbox });
    endpoint = await receiver();
    const partners = spine.app.get(PartnerRepository);
    await partners.upsert(
      {
        id: 'harbour-tms',
        name: 'Harbour TMS',
        locationOrganisationId: DEMO.mainDc,
        settings: {
          exports: [
            { id: 'daily-csv', everyMs: 3_600_000, layoutId: DEMO.dailyLayout, format: 'csv' },
            {
              id: 'hourly-json',
              everyMs: 3_600_000,
              layoutId: DEMO.dailyLayout,
              format: 'json',
              sftp: false,
              url: endpoint.url,
            },
          ],
        },
      },
      'api',
    );
    secret = (await spine.app.get(WebhookSecretRepository).add('harbour-tms', { label: 'exports' })).secret;
  }, 60_000);
  afterAll(async () => {
    await endpoint?.close();
    await spine?.close();
    await spine?.sandbox.close();
  });

  it('pages past 1,000 rows and lands the complete CSV in the partner outbound folder, audited as a message', async () => {
    const result = await spine.app.get(RunExport).execute({ partnerId: 'harbour-tms', exportId: 'daily-csv' });
    expect(result).toMatchObject({ rows: TOTAL });
    const { messageId } = result as { messageId: string };
    const message = await spine.messages.findById(messageId);
    expect(message).toMatchObject({
      channel: 'export',
      status: 'delivered',
      contentType: 'text/csv',
      metadata: expect.objectContaining({ rows: TOTAL, pages: 2 }),
    });

    const [file] = (await spine.app.get(PartnerFileRepository).list('harbour-tms', 'outbound')).filter(
      (f) => f.messageId === messageId,
    );
    const csv = (await spine.app
      .get(PartnerFileRepository)
      .read('harbour-tms', 'outbound', file.name))!.content.toString('utf8');
    const [header, ...rows] = csvRecords(csv);
    expect(header).toBe('Booking,Status,Carrier,Requested,Pallets');
    expect(rows).toHaveLength(TOTAL);
    expect(new Set(rows.map((r) => r.split(',')[0])).size).toBe(TOTAL);
    expect(rows[0]).toBe('MDB-26-SEED-0000,Approved,Fast Freight,2026-01-01T00:00:00.000Z,1');
    expect(rows[TOTAL - 1].startsWith('MDB-26-SEED-1204,')).toBe(true);
  });

  it('posts a JSON export to the partner URL, signed with Standard Webhooks', async () => {
    const result = (await spine.app.get(RunExport).execute({ partnerId: 'harbour-tms', exportId: 'hourly-json' })) as {
      messageId: string;
    };
    // The scheduler may post its own run meanwhile: take this run's delivery by its webhook id.
    const delivery = endpoint.received.find((d) => d.headers['webhook-id'] === result.messageId)!;
    expect(delivery).toBeDefined();
    const verified = new Webhook(secret).verify(delivery.body, {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    }) as { data: unknown[] };
    expect(verified.data).toHaveLength(TOTAL);
    expect(
      (await spine.app.get(PartnerFileRepository).list('harbour-tms', 'outbound')).filter(
        (f) => f.messageId === result.messageId,
      ),
    ).toEqual([]);
  });

  it('schedules each configured export with a BullMQ job scheduler, and runs it', async () => {
    const queue = spine.app.get(MessageQueues).queue(QUEUES.export);
    const deadline = Date.now() + 20_000;
    let ids: string[] = [];
    while (Date.now() < deadline && ids.length < 2) {
      ids = (await queue.getJobSchedulers(0, -1)).map((s) => s.key);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ids.sort()).toEqual(['export-harbour-tms-daily-csv', 'export-harbour-tms-hourly-json']);
    // The first run of an `every` schedule is due at once: the worker records it as an export message.
    // Each scheduler's own run is found by its job (job id `repeat:<scheduler>:<due time>`), so what
    // other tests ran by hand neither counts nor is needed.
    const scheduledRuns = async () => {
      const runs: Record<string, string> = {};
      for (const job of await queue.getJobs(['completed'])) {
        const scheduler = /^repeat:(export-harbour-tms-[^:]+):\d+$/.exec(job.id ?? '')?.[1];
        const messageId =
          (job.returnvalue as { messageId?: string } | null)?.messageId ??
          (job.data as { messageId?: string }).messageId;
        if (scheduler && messageId) {
          runs[scheduler] = messageId;
        }
      }
      return runs;
    };
    let runs: Record<string, string> = {};
    while (Date.now() < deadline && Object.keys(runs).length < 2) {
      runs = await scheduledRuns();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(Object.keys(runs).sort()).toEqual(['export-harbour-tms-daily-csv', 'export-harbour-tms-hourly-json']);
    for (const [scheduler, messageId] of Object.entries(runs)) {
      const message = await spine.messages.findById(messageId);
      expect({ scheduler, message }).toMatchObject({
        scheduler,
        message: {
          partnerId: 'harbour-tms',
          channel: 'export',
          status: 'delivered',
          metadata: { exportId: scheduler.replace('export-harbour-tms-', '') },
        },
      });
    }
  });

  it('names a scheduled run by when it was due, and a switch from cron to an interval adds no run', async () => {
    const partners = spine.app.get(PartnerRepository);
    const queue = spine.app.get(MessageQueues).queue(QUEUES.export);
    const scheduler = async () =>
      (await queue.getJobSchedulers(0, -1)).find((s) => s.key === 'export-switching-tms-nightly');
    const exportsOf = (spec: Record<string, unknown>) => ({
      id: 'switching-tms',
      name: 'Switching',
      locationOrganisationId: DEMO.mainDc,
      settings: { exports: [{ id: 'nightly', layoutId: DEMO.dailyLayout, format: 'csv' as const, ...spec }] },
    });
    await partners.upsert(exportsOf({ cron: '0 3 * * *' }), 'api');
    const until = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 100 && !(await check()); i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    await until(async () => (await scheduler())?.pattern === '0 3 * * *');
    const cronNext = (await scheduler())!.next!;
    expect(cronNext).toBeGreaterThan(Date.now());
    // Re-asserted by every sweep (each second here): an unchanged schedule keeps its next run.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await scheduler())!.next).toBe(cronNext);
    // Now every hour: the first interval run comes no earlier than the cron's next (no extra run today).
    await partners.upsert(exportsOf({ everyMs: 3_600_000 }), 'api');
    await until(async () => (await scheduler())?.every === 3_600_000);
    expect((await scheduler())!.next).toBeGreaterThanOrEqual(cronNext);
    const delayed = (await queue.getDelayed()).filter((job) => job.data.partnerId === 'switching-tms');
    expect(delayed.length).toBeLessThanOrEqual(1);
    expect(await spine.messages.countBy({ partnerId: 'switching-tms' })).toBe(0);
    await partners.upsert({ ...exportsOf({}), settings: { exports: [] } }, 'api');
  });

  it('keeps scheduling the other exports when one partner has an invalid schedule', async () => {
    await spine.app.get(PartnerRepository).upsert(
      {
        id: 'broken-cron',
        name: 'Broken cron',
        locationOrganisationId: DEMO.mainDc,
        settings: { exports: [{ id: 'bad', cron: 'a b c d e', layoutId: DEMO.dailyLayout, format: 'csv' }] },
      },
      'api',
    );
    await spine.app.get(PartnerRepository).upsert(
      {
        id: 'late-partner',
        name: 'Late partner',
        locationOrganisationId: DEMO.mainDc,
        settings: { exports: [{ id: 'weekly', cron: '0 5 * * 1', layoutId: DEMO.dailyLayout, format: 'csv' }] },
      },
      'api',
    );
    const queue = spine.app.get(MessageQueues).queue(QUEUES.export);
    const deadline = Date.now() + 15_000;
    let ids: string[] = [];
    while (Date.now() < deadline && !ids.includes('export-late-partner-weekly')) {
      ids = (await queue.getJobSchedulers(0, -1)).map((s) => s.key);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ids).toEqual(expect.arrayContaining(['export-harbour-tms-daily-csv', 'export-late-partner-weekly']));
    expect(ids).not.toContain('export-broken-cron-bad');
  });

  /** Runs an export through the export queue (as its scheduler would) and waits until the job is finished. */
  async function runQueued(partnerId: string, exportId: string) {
    const queue = spine.app.get(MessageQueues).queue(QUEUES.export);
    const job = await queue.add(QUEUES.export, { partnerId, exportId }, spine.app.get(RetryPolicy).jobOptions());
    const deadline = Date.now() + 20_000;
    let state = '';
    while (Date.now() < deadline && !['completed', 'failed'].includes((state = await job.getState()))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { state, job: (await queue.getJob(job.id!))! };
  }
  // Yearly schedules: the schedulers the worker keeps in sync never run them during the test.
  const YEARLY = '0 0 1 1 *';

  it('ends an export the platform refuses (an unknown layout) at once with its reason, instead of retrying it', async () => {
    await spine.app.get(PartnerRepository).upsert(
      {
        id: 'bad-layout',
        name: 'Bad layout',
        locationOrganisationId: DEMO.mainDc,
        settings: {
          exports: [{ id: 'x', cron: YEARLY, layoutId: '1a400000-0000-4000-8000-0000000000ff', format: 'csv' }],
        },
      },
      'api',
    );
    const { state, job } = await runQueued('bad-layout', 'x');
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/permanent, HTTP 400.*layoutId: no layout/);
    // The run is audited though it never had a file.
    const { items } = await spine.messages.search({ partnerId: 'bad-layout', limit: 10 });
    expect(items).toEqual([
      expect.objectContaining({
        channel: 'export',
        status: 'failed',
        statusReason: expect.stringMatching(/^the export run failed before it had a file: .*layoutId: no layout/),
      }),
    ]);
  });

  it('retries an export whose partner URL fails as one message, delivered once the URL answers', async () => {
    const flaky = await flakyReceiver(2);
    try {
      await spine.app.get(PartnerRepository).upsert(
        {
          id: 'flaky-url',
          name: 'Flaky URL',
          locationOrganisationId: DEMO.mainDc,
          settings: {
            exports: [
              { id: 'y', cron: YEARLY, layoutId: DEMO.dailyLayout, format: 'json', sftp: false, url: flaky.url },
            ],
          },
        },
        'api',
      );
      await spine.app.get(WebhookSecretRepository).add('flaky-url', { label: 'exports' });
      const { state, job } = await runQueued('flaky-url', 'y');
      expect(state).toBe('completed');
      expect(job.attemptsMade).toBe(3);
      expect(flaky.posts).toBe(3);
      const { items } = await spine.messages.search({ partnerId: 'flaky-url', limit: 10 });
      expect(items.map((m) => m.status)).toEqual(['delivered']); // one run, one message
      const events = (await spine.messages.findDetail(items[0].id))!.events;
      expect(events.map((e) => e.toStatus)).toEqual(['received', 'failed', 'delivered']);
      expect(events[1].reason).toMatch(/answered HTTP 503/);
    } finally {
      await flaky.close();
    }
  });

  it('names the host and the cause when the partner URL cannot be reached, never the URL (it may hold credentials)', async () => {
    await spine.app.get(PartnerRepository).upsert(
      {
        id: 'down-url',
        name: 'Down URL',
        locationOrganisationId: DEMO.mainDc,
        settings: {
          exports: [
            {
              id: 'z',
              cron: YEARLY,
              layoutId: DEMO.dailyLayout,
              format: 'json',
              sftp: false,
              url: 'http://user:s3cret@127.0.0.1:1/exports',
            },
          ],
        },
      },
      'api',
    );
    await spine.app.get(WebhookSecretRepository).add('down-url', { label: 'exports' });
    await expect(spine.app.get(RunExport).execute({ partnerId: 'down-url', exportId: 'z' })).rejects.toThrow(
      /^posting the export to 127\.0\.0\.1:1 failed: /,
    );
    const { items } = await spine.messages.search({ partnerId: 'down-url', limit: 10 });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ status: 'failed' });
    expect(items[0].statusReason).toMatch(/URL that includes credentials/);
    expect(items[0].statusReason).not.toMatch(/s3cret/);
  });

  it('never translates or replays an export file; the sweeper marks one its run left undelivered as failed', async () => {
    const recorded = await spine.messages.record({
      partnerId: 'harbour-tms',
      channel: 'export',
      rawPayload: 'id\nB-1\n',
      contentType: 'text/csv',
      metadata: { exportId: 'daily-csv', fileName: 'export_x.csv', rows: 1, pages: 1 },
      actor: 'worker',
    });
    const sweep = spine.app.get(SweepStuck);
    // A minute later the run may still be delivering: left alone.
    await sweep.execute(new Date(Date.now() + 60_000));
    expect((await spine.messages.findById(recorded.id))?.status).toBe('received');
    // An hour later its run has stopped: failed with the reason, and no translate job (it has no translator).
    const report = await sweep.execute(new Date(Date.now() + 3_600_000));
    expect(report.exports).toBeGreaterThanOrEqual(1);
    const swept = await spine.messages.findById(recorded.id);
    expect(swept).toMatchObject({
      status: 'failed',
      statusReason: expect.stringMatching(/^the export run stopped before delivering this file/),
    });
    expect(
      await spine.app.get(MessageQueues).queue(QUEUES.translate).getJob(translateJobId(recorded.id)),
    ).toBeUndefined();
    // Replay refuses it by name, one or in bulk.
    const one = await spine.call('POST', `/v1/admin/messages/${recorded.id}/replay`, { auth: 'admin', body: {} });
    expect(one.status).toBe(422);
    expect((await one.json()).details[0]).toMatch(/is a bookings export .*run the export again/);
    const bulk = await bulkReplay(spine, { partner: 'harbour-tms', channel: ['export'] });
    expect(bulk).toMatchObject({ status: 'completed', replayed: 0 });
    expect(bulk.skips).toEqual(
      expect.arrayContaining([{ id: recorded.id, reason: expect.stringMatching(/is a bookings export/) }]),
    );
  });
});
