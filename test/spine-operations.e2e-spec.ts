import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DEMO } from './support/sandbox';
import { PartnerRepository } from '@dockbridge/partners';
import { MessageQueues, QUEUES } from '@dockbridge/pipeline';
import { ADMIN_TOKEN, Spine, startSpine } from './support/spine';

const upsert = (id: string) => ({
  kind: 'document.upsert',
  organisationId: DEMO.mainDc,
  document: { id, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
});

describe('gateway operations surface', () => {
  let spine: Spine;
  beforeAll(async () => (spine = await startSpine()), 60_000);
  afterAll(() => spine?.close());

  it('reports Postgres, Redis and the platform on /health', async () => {
    const response = await spine.call('GET', '/health', { auth: null });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'ok',
      info: { postgres: { status: 'up' }, redis: { status: 'up' }, platform: { status: 'up' } },
    });
  });

  it('reports Redis down on /health when its queues do not work, though Redis still answers', async () => {
    const queues = spine.app.get(MessageQueues);
    const wait = queues.queue(QUEUES.deliver).toKey('wait');
    await queues.connection.set(wait, 'not a list');
    try {
      const broken = await spine.call('GET', '/health', { auth: null });
      expect(broken.status).toBe(503);
      expect(await broken.json()).toMatchObject({
        error: { redis: { status: 'down', message: expect.stringMatching(/WRONGTYPE/) } },
      });
    } finally {
      await queues.connection.del(wait);
    }
    expect((await spine.call('GET', '/health', { auth: null })).status).toBe(200);
  });

  it('exposes messages by status, attempts by outcome and queue depths on /metrics', async () => {
    const { messageId } = await (
      await spine.call('POST', '/v1/messages', { body: { operations: [upsert('M-1')] } })
    ).json();
    await spine.waitForStatus(messageId, ['delivered']);
    const text = await (await spine.call('GET', '/metrics', { auth: null })).text();
    expect(text).toMatch(/^dockbridge_messages\{status="delivered"\} [1-9]/m);
    expect(text).toMatch(/^dockbridge_delivery_attempts\{outcome="success"\} [1-9]/m);
    expect(text).toMatch(/^dockbridge_queue_jobs\{queue="deliver",state="waiting"\} \d+/m);
  });

  it('counts what this process did as it happens: received, platform calls, translations, refusals', async () => {
    const counted = async () => (await spine.call('GET', '/metrics', { auth: null })).text();
    const value = (text: string, series: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${series} `))
          ?.slice(series.length + 1) ?? 0,
      );
    const received = 'dockbridge_messages_received_total{partner="test-wms",channel="api"}';
    const calls = 'dockbridge_delivery_call_seconds_count{kind="document.upsert",outcome="success"}';
    const translated =
      'dockbridge_translate_seconds_count{content_type="application/vnd.dockbridge.operations+json",outcome="queued"}';
    const settled = 'dockbridge_messages_settled_total{partner="test-wms",channel="api",outcome="delivered"}';
    const before = await counted();
    const { messageId } = await (
      await spine.call('POST', '/v1/messages', { body: { operations: [upsert('M-2'), upsert('M-3')] } })
    ).json();
    await spine.waitForStatus(messageId, ['delivered']);
    await spine.app.get(PartnerRepository).upsert(
      {
        id: 'metrics-wms',
        name: 'Metrics WMS',
        locationOrganisationId: DEMO.mainDc,
        settings: { webhook: { verification: 'api-key', apiKeyHeader: 'x-hook-key' } },
      },
      'api',
    );
    const unsigned = await fetch(`${spine.url}/v1/webhooks/metrics-wms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unsigned.status).toBe(401);
    const after = await counted();
    expect(value(after, received) - value(before, received)).toBe(1);
    expect(value(after, calls) - value(before, calls)).toBe(2);
    expect(value(after, translated) - value(before, translated)).toBe(1);
    expect(value(after, settled) - value(before, settled)).toBe(1);
    const refused = 'dockbridge_webhooks_refused_total{partner="metrics-wms",kind="verification failed"}';
    expect(value(after, refused) - value(before, refused)).toBe(1);
    expect(after).toMatch(
      /^dockbridge_delivery_call_seconds_bucket\{le="0\.5",kind="document\.upsert",outcome="success"\} \d+/m,
    );
    expect(after).toMatch(/^dockbridge_process_resident_memory_bytes \d+/m);
    // Nothing waits once the message is delivered: the deliver queue's oldest waiting job is 0 s old.
    expect(after).toMatch(/^dockbridge_queue_oldest_waiting_seconds\{queue="deliver"\} 0$/m);
  });

  it('serves the read-only queue dashboard behind the admin token (Bearer, or Basic for browsers)', async () => {
    const refused = await fetch(`${spine.url}/admin/queues`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(
      (await fetch(`${spine.url}/admin/queues`, { headers: { authorization: 'Bearer not-the-token-0000' } })).status,
    ).toBe(401);

    const basic = `Basic ${Buffer.from(`ops:${ADMIN_TOKEN}`).toString('base64')}`;
    const page = await fetch(`${spine.url}/admin/queues`, { headers: { authorization: basic } });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);

    const api = await fetch(`${spine.url}/admin/queues/api/queues`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(api.status).toBe(200);
    const { queues } = (await api.json()) as { queues: { name: string; readOnlyMode: boolean }[] };
    expect(queues.map((q) => q.name).sort()).toEqual(['batch', 'deliver', 'export', 'replay', 'sweep', 'translate']);
    expect(queues.every((q) => q.readOnlyMode)).toBe(true);
  });

  it('answers a malformed search cursor with 400 naming it', async () => {
    const response = await spine.call('GET', '/v1/admin/messages?cursor=abc', { auth: 'admin' });
    expect(response.status).toBe(400);
    expect((await response.json()).details[0]).toMatch(/^cursor/);
  });

  it('serves the OpenAPI document at /docs', async () => {
    const spec = await (await spine.call('GET', '/docs-json', { auth: null })).json();
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/v1/messages',
        '/v1/admin/messages',
        '/v1/admin/messages/{id}/replay',
        '/health',
        '/metrics',
      ]),
    );
  });

  it('manages partners and keys through the admin API: a new key works at once, a revoked one no more', async () => {
    const put = await spine.call('PUT', '/v1/admin/partners/acme-tms', {
      auth: 'admin',
      body: { name: 'Acme TMS', locationOrganisationId: DEMO.mainDc },
    });
    expect(put.status).toBe(200);
    const invalid = await spine.call('PUT', '/v1/admin/partners/Bad_Id', {
      auth: 'admin',
      body: { name: 'x', locationOrganisationId: 'nope' },
    });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).details).toEqual(
      expect.arrayContaining([expect.stringMatching(/^id /), expect.stringMatching(/^locationOrganisationId /)]),
    );

    const issued = await (
      await spine.call('POST', '/v1/admin/partners/acme-tms/api-keys', { auth: 'admin', body: { label: 'prod' } })
    ).json();
    expect(issued.key).toMatch(/^dbk_/);
    const submit = () =>
      fetch(`${spine.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': issued.key, 'content-type': 'application/json' },
        body: JSON.stringify({ operations: [upsert('K-1')] }),
      });
    expect((await submit()).status).toBe(202);

    const detail = await (await spine.call('GET', '/v1/admin/partners/acme-tms', { auth: 'admin' })).json();
    expect(JSON.stringify(detail)).not.toContain(issued.key);
    expect(detail.apiKeys).toHaveLength(1);
    expect(
      (await spine.call('DELETE', `/v1/admin/partners/acme-tms/api-keys/${issued.record.id}`, { auth: 'admin' }))
        .status,
    ).toBe(200);
    expect((await submit()).status).toBe(401);
  });
});

describe('SFTP users through the admin API', () => {
  let spine: Spine;
  beforeAll(async () => (spine = await startSpine()), 60_000);
  afterAll(() => spine?.close());

  it('creates a password user, refuses a weak password naming the rule, and never returns the hash', async () => {
    await spine.call('PUT', '/v1/admin/partners/kettle-sftp', {
      auth: 'admin',
      body: { name: 'Kettle SFTP', locationOrganisationId: DEMO.mainDc },
    });
    const weak = await spine.call('POST', '/v1/admin/partners/kettle-sftp/sftp-users', {
      auth: 'admin',
      body: { username: 'kettle', password: 'short' },
    });
    expect(weak.status).toBe(400);
    expect((await weak.json()).details[0]).toMatch(/at least 12 characters/);
    const created = await spine.call('POST', '/v1/admin/partners/kettle-sftp/sftp-users', {
      auth: 'admin',
      body: { username: 'kettle', password: 'a long enough password' },
    });
    expect(created.status).toBe(201);
    const listed = await (
      await spine.call('GET', '/v1/admin/partners/kettle-sftp/sftp-users', { auth: 'admin' })
    ).json();
    expect(listed).toEqual([expect.objectContaining({ username: 'kettle' })]);
    expect(JSON.stringify(listed)).not.toMatch(/scrypt|a long enough password/);
    expect(
      (
        await spine.call('POST', '/v1/admin/partners/kettle-sftp/sftp-users', {
          auth: 'admin',
          body: { username: 'kettle2' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await spine.call('POST', '/v1/admin/partners/nobody/sftp-users', {
          auth: 'admin',
          body: { username: 'x1', password: 'a long enough password' },
        })
      ).status,
    ).toBe(404);
  });
});

describe('graceful shutdown', () => {
  it('lets a delivery in flight finish and record its attempt before the worker stops', async () => {
    const spine = await startSpine();
    try {
      await spine.sandbox.call('POST', '/__sandbox/faults', {
        token: null,
        body: { rules: [{ method: 'PUT', path: '/api/v2/organisations/*/documents/*', latencyMs: 800, status: 0 }] },
      });
      const { messageId } = await (
        await spine.call('POST', '/v1/messages', { body: { operations: [upsert('SHUT-1')] } })
      ).json();
      await spine.waitForStatus(messageId, ['delivering']);
      // Wait until a worker has claimed the operation: its PUT is then waiting at the sandbox.
      for (
        let i = 0;
        i < 100 && (await spine.messages.findDetail(messageId))?.operations[0]?.status !== 'delivering';
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await spine.messages.findDetail(messageId))?.operations[0]?.status).toBe('delivering');
      await spine.app.close(); // what SIGTERM triggers (enableShutdownHooks)

      const db = new Client({ connectionString: spine.database.url });
      await db.connect();
      try {
        const { rows } = await db.query(
          `SELECT m.status AS message, o.status AS operation, o.attempt_count, (SELECT count(*)::int FROM attempt a WHERE a.operation_id = o.id) AS attempts
             FROM message m JOIN operation o ON o.message_id = m.id WHERE m.id = $1`,
          [messageId],
        );
        expect(rows).toEqual([{ message: 'delivered', operation: 'delivered', attempt_count: 1, attempts: 1 }]);
      } finally {
        await db.end();
      }
    } finally {
      await spine.close();
    }
  }, 60_000);
});

describe('/metrics under load and behind a token', () => {
  let spine: Spine;
  const METRICS_TOKEN = 'metrics-scraper-token-0123';
  beforeAll(
    async () => (spine = await startSpine({ 'gateway.metricsToken': METRICS_TOKEN, 'gateway.metricsCacheMs': 60_000 })),
    60_000,
  );
  afterAll(() => spine?.close());
  const scrape = (token?: string) =>
    fetch(`${spine.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('answers only the configured bearer token', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('not-the-metrics-token')).status).toBe(401);
    expect((await scrape(ADMIN_TOKEN)).status).toBe(401);
    const ok = await scrape(METRICS_TOKEN);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/^dockbridge_queue_jobs\{queue="deliver"/m);
  });

  it('reads the whole-table counts once per cache period, however often it is scraped', async () => {
    const dataSource = spine.app.get(DataSource);
    const query = jest.spyOn(dataSource, 'query');
    try {
      const answers = await Promise.all(Array.from({ length: 30 }, () => scrape(METRICS_TOKEN)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      const counts = query.mock.calls.filter(([sql]) => /count\(\*\) AS n FROM/.test(String(sql)));
      expect(counts.length).toBeLessThanOrEqual(3);
    } finally {
      query.mockRestore();
    }
  });
});
