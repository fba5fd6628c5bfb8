import { createServer, IncomingMessage, Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { PartnerFileRepository, PartnerRepository, WebhookSecretRepository } from '@dockbridge/partners';
import { csvRecords, MessageQueues, QUEUES, RunExport } from '@dockbridge/pipeline';
import { seedWithBookings } from './support/bookings';
import { DEMO, startSandbox } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

const TOTAL = 1205;

/** A partner's HTTP endpoint on loopback: keeps what it receives. */
async function receiver(): Promise<{ url: string; received: { headers: IncomingMessage['headers']; body: string }[]; close(): Promise<void> }> {
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
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/exports`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
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
            { id: 'hourly-json', everyMs: 3_600_000, layoutId: DEMO.dailyLayout, format: 'json', sftp: false, url: endpoint.url },
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
    expect(message).toMatchObject({ channel: 'export', status: 'delivered', contentType: 'text/csv', metadata: expect.objectContaining({ rows: TOTAL, pages: 2 }) });

    const [file] = (await spine.app.get(PartnerFileRepository).list('harbour-tms', 'outbound')).filter((f) => f.messageId === messageId);
    const csv = (await spine.app.get(PartnerFileRepository).read('harbour-tms', 'outbound', file.name))!.content.toString('utf8');
    const [header, ...rows] = csvRecords(csv);
    expect(header).toBe('Booking,Status,Carrier,Requested,Pallets');
    expect(rows).toHaveLength(TOTAL);
    expect(new Set(rows.map((r) => r.split(',')[0])).size).toBe(TOTAL);
    expect(rows[0]).toBe('MDB-26-SEED-0000,Approved,Fast Freight,2026-01-01T00:00:00.000Z,1');
    expect(rows[TOTAL - 1].startsWith('MDB-26-SEED-1204,')).toBe(true);
  });

  it('posts a JSON export to the partner URL, signed with Standard Webhooks', async () => {
    const result = (await spine.app.get(RunExport).execute({ partnerId: 'harbour-tms', exportId: 'hourly-json' })) as { messageId: string };
    // The scheduler may post its own run meanwhile: take this run's delivery by its webhook id.
    const delivery = endpoint.received.find((d) => d.headers['webhook-id'] === result.messageId)!;
    expect(delivery).toBeDefined();
    const verified = new Webhook(secret).verify(delivery.body, {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    }) as { data: unknown[] };
    expect(verified.data).toHaveLength(TOTAL);
    expect((await spine.app.get(PartnerFileRepository).list('harbour-tms', 'outbound')).filter((f) => f.messageId === result.messageId)).toEqual([]);
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
    let scheduled = 0;
    while (Date.now() < deadline && scheduled < 4) {
      scheduled = await spine.messages.countBy({ partnerId: 'harbour-tms' });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(scheduled).toBeGreaterThanOrEqual(4); // 2 run by the tests above + 2 by the schedulers
  });

  it('keeps scheduling the other exports when one partner has an invalid schedule', async () => {
    await spine.app.get(PartnerRepository).upsert(
      { id: 'broken-cron', name: 'Broken cron', locationOrganisationId: DEMO.mainDc, settings: { exports: [{ id: 'bad', cron: 'a b c d e', layoutId: DEMO.dailyLayout, format: 'csv' }] } },
      'api',
    );
    await spine.app.get(PartnerRepository).upsert(
      { id: 'late-partner', name: 'Late partner', locationOrganisationId: DEMO.mainDc, settings: { exports: [{ id: 'weekly', cron: '0 5 * * 1', layoutId: DEMO.dailyLayout, format: 'csv' }] } },
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
});
