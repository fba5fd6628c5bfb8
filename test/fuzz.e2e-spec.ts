import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Client, SFTPWrapper } from 'ssh2';
import { Webhook } from 'standardwebhooks';
import {
  importPartners,
  PartnerMappingRepository,
  PartnerRepository,
  SftpCredentialRepository,
  WebhookSecretRepository,
} from '@dockbridge/partners';
import { SftpServer } from '../apps/gateway/src/sftp/sftp.server';
import { DEMO } from './support/sandbox';
import { ADMIN_TOKEN, Spine, startSpine } from './support/spine';

/**
 * Random and mutated input at a running gateway, for a bounded time per surface: HTTP requests
 * (methods, paths, headers, bodies; with and without credentials), signed webhooks with random
 * bodies, X12 mutated from the reader's fixtures, and random SFTP operations. Throughout: no 5xx,
 * no unhandled rejection, and `/health` answers within 1 s. Counts are printed for docs/security.md.
 */
const SECONDS_PER_SURFACE = Number(process.env.FUZZ_SECONDS ?? 8);
const SFTP_PASSWORD = 'fuzz-sftp-password-0123';

describe('fuzz: random and mutated input never takes the gateway down', () => {
  let spine: Spine;
  let wmsSecret: string;
  let sftpPort: number;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  const health = { probes: 0, slowest: 0, failures: [] as string[] };
  let probe: NodeJS.Timeout;
  const counts: Record<string, number> = {};

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    spine = await startSpine({ 'log.level': 'fatal', 'sftp.maxFileBytes': 1024 * 1024 });
    wmsSecret = `whsec_${randomBytes(32).toString('base64')}`;
    await importPartners(spine.app.get(PartnerRepository), join(__dirname, '../config/partners'), {
      env: { ACME_WMS_WEBHOOK_SECRET: wmsSecret, FAST_FREIGHT_WEBHOOK_SECRET: 'tms-shared-secret-0123456789' },
      mappings: spine.app.get(PartnerMappingRepository),
      secrets: spine.app.get(WebhookSecretRepository),
    });
    await spine.app.get(SftpCredentialRepository).setPassword('kettle-foods', 'fuzzer', SFTP_PASSWORD);
    sftpPort = spine.app.get(SftpServer).port!;
    probe = setInterval(() => void probeHealth(), 250);
    async function probeHealth() {
      const started = Date.now();
      try {
        const response = await fetch(`${spine.url}/health`, { signal: AbortSignal.timeout(5000) });
        if (response.status !== 200) {
          health.failures.push(`status ${response.status}: ${await response.text()}`);
        }
      } catch (error) {
        health.failures.push((error as Error).message);
      }
      health.probes++;
      health.slowest = Math.max(health.slowest, Date.now() - started);
    }
  }, 60_000);

  afterAll(async () => {
    clearInterval(probe);
    process.off('unhandledRejection', onUnhandled);
    console.log(`fuzz cases: ${JSON.stringify(counts)}; health probes ${health.probes}, slowest ${health.slowest} ms`);
    await spine?.close();
  });

  afterEach(() => {
    expect(unhandled).toEqual([]);
    expect(health.failures).toEqual([]);
    expect(health.slowest).toBeLessThan(1000);
  });

  /** Runs a property for the surface's time budget (at least `minRuns`), counting the cases. */
  const fuzz = async <T>(
    surface: string,
    arbitrary: fc.Arbitrary<T>,
    check: (value: T) => Promise<void>,
    minRuns = 50,
  ) => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(arbitrary, async (value) => {
        runs++;
        await check(value);
      }),
      { numRuns: 100_000, interruptAfterTimeLimit: SECONDS_PER_SURFACE * 1000, markInterruptAsFailure: false },
    );
    counts[surface] = runs;
    expect(runs).toBeGreaterThanOrEqual(minRuns);
  };

  const noServerError = async (what: string, response: Response) => {
    const body = await response.text();
    if (response.status >= 500) {
      throw new Error(`${what} answered ${response.status}: ${body.slice(0, 300)}`);
    }
  };

  const operation = fc.record({
    kind: fc.constantFrom(
      'document.upsert',
      'document.delete',
      'booking.create',
      'booking.status',
      'booking.tasks',
      'vehicle.update',
      'x',
    ),
    organisationId: fc.constantFrom(DEMO.mainDc, DEMO.crossDock, 'not-a-uuid', ''),
    document: fc.option(
      fc.record({
        id: fc.string({ maxLength: 120 }),
        direction: fc.constantFrom('Inbound', 'Outbound', 7),
        carrier: fc.anything(),
      }),
      { nil: undefined },
    ),
    documentId: fc.option(fc.string(), { nil: undefined }),
    bookingId: fc.option(fc.string(), { nil: undefined }),
    statusId: fc.option(fc.uuid(), { nil: undefined }),
    vehicleId: fc.option(fc.uuid(), { nil: undefined }),
    vehicle: fc.option(fc.object(), { nil: undefined }),
  });
  const jsonBody = fc.oneof(
    fc.record({ operations: fc.array(operation, { maxLength: 5 }) }).map((v) => JSON.stringify(v)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ unit: 'binary', maxLength: 2000 }),
    fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  );
  const path = fc.oneof(
    fc.constantFrom(
      '/v1/messages',
      '/v1/messages/00000000-0000-4000-8000-000000000000',
      '/v1/edi',
      '/v1/edi/preview',
      '/v1/webhooks/acme-wms',
      '/v1/webhooks/fast-freight',
      '/v1/webhooks/nobody',
      '/v1/admin/messages',
      '/v1/admin/messages/replay',
      '/v1/admin/partners',
      '/v1/admin/partners/acme-wms',
      '/v1/admin/partners/acme-wms/mapping',
      '/metrics',
      '/health',
      '/docs',
    ),
    fc
      .tuple(
        fc.constantFrom('/v1/messages/', '/v1/admin/messages/', '/v1/webhooks/', '/v1/admin/partners/'),
        fc.string({ maxLength: 80 }),
      )
      .map(([p, tail]) => p + encodeURIComponent(tail)),
    fc.webPath(),
  );
  const query = fc.option(
    fc.dictionary(
      fc.constantFrom(
        'status',
        'partner',
        'from',
        'to',
        'limit',
        'cursor',
        'documentId',
        'fileName',
        'interchange',
        'channel',
        'x',
      ),
      fc.string({ maxLength: 40 }),
    ),
    { nil: undefined },
  );
  const headers = fc.record(
    {
      'content-type': fc.constantFrom(
        'application/json',
        'application/edi-x12',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        '',
      ),
      'x-api-key': fc.oneof(fc.constant('valid'), fc.string({ maxLength: 60 })),
      authorization: fc.oneof(fc.constant('admin'), fc.string({ maxLength: 60 })),
      'webhook-id': fc.string({ maxLength: 60 }),
      'webhook-timestamp': fc.oneof(fc.integer().map(String), fc.string({ maxLength: 20 })),
      'webhook-signature': fc.string({ maxLength: 120 }),
      'x-tms-signature': fc.string({ maxLength: 120 }),
      'idempotency-key': fc.string({ maxLength: 300 }),
    },
    { requiredKeys: [] },
  );
  /** Header values fetch can send (visible ASCII), with the credentials put in where the case asks for them. */
  const sendable = (raw: Record<string, string>): Record<string, string> =>
    Object.fromEntries(
      Object.entries(raw)
        .map(([name, value]): [string, string] => [
          name,
          name === 'x-api-key' && value === 'valid'
            ? spine.partnerKey
            : name === 'authorization' && value === 'admin'
              ? `Bearer ${ADMIN_TOKEN}`
              : value.replace(/[^\x20-\x7e]/g, ''),
        ])
        .filter(([name, value]) => value.length > 0 || name === 'content-type'),
    );

  it('answers random requests on every route with a status below 500', async () => {
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
      path,
      query,
      headers,
      body: jsonBody,
    });
    await fuzz('http requests', request, async ({ method, path, query, headers, body }) => {
      const url = new URL(spine.url + path);
      for (const [k, v] of Object.entries(query ?? {})) {
        url.searchParams.set(k, v);
      }
      const response = await fetch(url, {
        method,
        headers: sendable(headers),
        body: method === 'GET' ? undefined : body,
      });
      await noServerError(`${method} ${path}`, response);
    });
  }, 120_000);

  it('answers authenticated canonical messages mutated from a valid one with 202 or a 4xx that names the problem', async () => {
    const valid = {
      kind: 'document.upsert',
      organisationId: DEMO.mainDc,
      document: { id: 'PO-FUZZ', direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
    };
    const mutated = fc
      .tuple(
        fc.constantFrom(
          'kind',
          'organisationId',
          'document',
          'document.id',
          'document.direction',
          'document.carrier',
          'document.loads',
          'extra',
        ),
        fc.jsonValue(),
      )
      .map(([at, value]) => {
        const op: Record<string, any> = structuredClone(valid);
        const [head, tail] = at.split('.');
        if (tail) {
          op[head][tail] = value;
        } else {
          op[head] = value;
        }
        return JSON.stringify({ operations: [op] });
      });
    await fuzz('canonical messages', mutated, async (body) => {
      const response = await fetch(`${spine.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/json' },
        body,
      });
      if (response.status !== 202) {
        const answer = (await response.json().catch(() => null)) as { details?: string[]; error?: string } | null;
        if (response.status >= 500 || response.status < 400) {
          throw new Error(`answered ${response.status}: ${JSON.stringify(answer)}`);
        }
        if (!answer?.details?.length && !answer?.error) {
          throw new Error(`a ${response.status} without a reason`);
        }
      }
    });
  }, 120_000);

  it('takes correctly signed webhooks whatever their body, without a 5xx', async () => {
    const signer = new Webhook(wmsSecret);
    const body = fc.oneof(
      jsonBody,
      fc
        .record({
          event: fc.constantFrom('purchase_order.created', 'purchase_order.cancelled', 'x'),
          data: fc.anything(),
        })
        .map((v) => JSON.stringify(v)),
    );
    await fuzz('signed webhooks', body, async (raw) => {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const at = new Date();
      const response = await fetch(`${spine.url}/v1/webhooks/acme-wms`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signer.sign(id, at, raw),
        },
        body: raw,
      });
      await noServerError('signed webhook', response);
    });
  }, 120_000);

  it('previews and accepts X12 mutated from the reader fixtures without a 5xx', async () => {
    const dir = join(__dirname, '../libs/x12/src/fixtures');
    const samples = readdirSync(dir)
      .filter((name) => /\.(edi|x12)$/.test(name))
      .map((name) => readFileSync(join(dir, name), 'latin1'));
    const mutation = fc
      .tuple(
        fc.constantFrom(...samples),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 40 }), fc.string({ unit: 'binary-ascii', maxLength: 20 })), {
          maxLength: 6,
        }),
      )
      .map(([text, edits]) =>
        edits.reduce((t, [at, cut, insert]) => {
          const i = t.length ? at % t.length : 0;
          return t.slice(0, i) + insert + t.slice(i + cut);
        }, text),
      );
    await fuzz(
      'x12 payloads',
      fc.tuple(mutation, fc.constantFrom('/v1/edi/preview', '/v1/edi')),
      async ([text, route]) => {
        const response = await fetch(spine.url + route, {
          method: 'POST',
          headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/edi-x12' },
          body: Buffer.from(text, 'latin1'),
        });
        await noServerError(route, response);
      },
    );
  }, 120_000);

  it('answers every random SFTP operation with a status, and the session stays usable', async () => {
    const connection = new Client();
    const sftp = await new Promise<SFTPWrapper>((resolve, reject) => {
      connection.on('ready', () => connection.sftp((error, channel) => (error ? reject(error) : resolve(channel))));
      connection.on('error', reject);
      connection.connect({
        host: '127.0.0.1',
        port: sftpPort,
        username: 'fuzzer',
        password: SFTP_PASSWORD,
        readyTimeout: 10_000,
      });
    });
    const handles: Buffer[] = [];
    /** Every request is answered: with data or a status error (a thrown SFTP status is an answer too). */
    const answered = <T>(call: (done: (error: Error | null | undefined, value?: T) => void) => void) =>
      new Promise<T | undefined>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5000);
        call((error, value) => {
          clearTimeout(timer);
          resolve(error ? undefined : value);
        });
      });
    const name = fc.oneof(
      fc.constantFrom(
        '/inbound/a.edi',
        '/inbound/b.tmp',
        '/outbound/x',
        '/',
        '/inbound',
        '../../etc/passwd',
        '/inbound/../outbound/y',
      ),
      fc.string({ maxLength: 300 }).map((s) => `/inbound/${s}`),
    );
    const step = fc.oneof(
      fc.record({ op: fc.constant('open' as const), path: name, flags: fc.constantFrom('r', 'w', 'a', 'wx', 'r+') }),
      fc.record({
        op: fc.constant('write' as const),
        handle: fc.nat(),
        offset: fc.oneof(fc.nat({ max: 4096 }), fc.nat({ max: 2 ** 31 })),
        data: fc.uint8Array({ maxLength: 4096 }),
      }),
      fc.record({
        op: fc.constant('read' as const),
        handle: fc.nat(),
        offset: fc.nat({ max: 2 ** 31 }),
        length: fc.nat({ max: 1 << 20 }),
      }),
      fc.record({ op: fc.constant('close' as const), handle: fc.nat() }),
      fc.record({
        op: fc.constantFrom(
          'stat' as const,
          'remove' as const,
          'opendir' as const,
          'realpath' as const,
          'mkdir' as const,
        ),
        path: name,
      }),
      fc.record({ op: fc.constant('rename' as const), path: name, to: name }),
    );
    try {
      await fuzz(
        'sftp operations',
        fc.array(step, { minLength: 1, maxLength: 12 }),
        async (steps) => {
          for (const s of steps) {
            const handle = () =>
              handles[('handle' in s ? s.handle : 0) % Math.max(1, handles.length)] ?? Buffer.alloc(4);
            switch (s.op) {
              case 'open': {
                const h = await answered<Buffer>((done) => sftp.open(s.path, s.flags, done));
                if (h) {
                  handles.push(h);
                }
                break;
              }
              case 'write':
                await answered((done) => sftp.write(handle(), Buffer.from(s.data), 0, s.data.length, s.offset, done));
                break;
              case 'read':
                await answered((done) =>
                  sftp.read(
                    handle(),
                    Buffer.alloc(Math.min(s.length, 65536) || 1),
                    0,
                    Math.min(s.length, 65536) || 1,
                    s.offset,
                    (error) => done(error),
                  ),
                );
                break;
              case 'close': {
                const h = handle();
                await answered((done) => sftp.close(h, done));
                handles.splice(handles.indexOf(h), 1);
                break;
              }
              case 'stat':
                await answered((done) => sftp.stat(s.path, done));
                break;
              case 'remove':
                await answered((done) => sftp.unlink(s.path, done));
                break;
              case 'opendir': {
                const h = await answered<Buffer>((done) => sftp.opendir(s.path, done));
                if (h) {
                  handles.push(h); // a directory handle counts against the session's open handles too
                }
                break;
              }
              case 'realpath':
                await answered((done) => sftp.realpath(s.path, done));
                break;
              case 'mkdir':
                await answered((done) => sftp.mkdir(s.path, done));
                break;
              case 'rename':
                await answered((done) => sftp.rename(s.path, s.to, done));
                break;
            }
          }
          // The session allows 64 open handles and refuses more, rightly: keep ours under that, so
          // the listing below needs one and tells a stuck session from a full one.
          while (handles.length > 32) {
            const oldest = handles.shift()!;
            await answered((done) => sftp.close(oldest, done));
          }
          // Still the same session, still serving: a listing is answered.
          expect(await answered((done) => sftp.readdir('/inbound', done))).toBeDefined();
        },
        20,
      );
    } finally {
      connection.end();
    }
  }, 120_000);
});
