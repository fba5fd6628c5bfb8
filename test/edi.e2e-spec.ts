import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import { DataSource } from 'typeorm';
import {
  FILE_CHUNK_BYTES,
  PartnerFileRepository,
  PartnerRepository,
  sshFingerprint,
  SftpCredentialRepository,
} from '@dockbridge/partners';
import { parseX12 } from '@dockbridge/x12';
import { SftpServer } from '../apps/gateway/src/sftp/sftp.server';
import { DEMO, TestResponse } from './support/sandbox';
import { ADMIN_TOKEN, Spine, startSpine } from './support/spine';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures/edi', name), 'utf8');
const PARTNER = 'kettle-edi';
const PASSWORD = 'kettle sftp password 1';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The EDI partner these tests send as, on `spine`; answers its API key. */
async function addEdiPartner(spine: Spine): Promise<string> {
  const partners = spine.app.get(PartnerRepository);
  await partners.upsert(
    {
      id: PARTNER,
      name: 'Kettle Foods (EDI)',
      locationOrganisationId: DEMO.mainDc,
      settings: { edi: { senderIds: ['KETTLE'], coreName: 'ACME', locationCodes: ['DC01'] } },
    },
    'api',
  );
  return (await partners.issueApiKey(PARTNER, { label: 'tests' })).key;
}

describe('EDI ingress: X12 850/856 to documents, with 997/TA1 acknowledgments', () => {
  let spine: Spine;
  let key: string;
  let files: PartnerFileRepository;
  let sftpPort: number;
  let hostKey: string;

  beforeAll(async () => {
    spine = await startSpine();
    key = await addEdiPartner(spine);
    await spine.app.get(SftpCredentialRepository).setPassword(PARTNER, 'kettle', PASSWORD);
    files = spine.app.get(PartnerFileRepository);
    const server = spine.app.get(SftpServer);
    sftpPort = server.port!;
    hostKey = server.hostKeyFingerprint!;
  }, 60_000);
  afterAll(() => spine?.close());
  beforeEach(() => spine.sandbox.reset());

  const post = (path: string, body: string): Promise<TestResponse> =>
    fetch(`${spine.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/edi-x12' },
      body,
    });
  /** The partner's SFTP session, the server's host key checked. */
  const sftp = async () => {
    const client = new SftpClient();
    await client.connect({
      host: '127.0.0.1',
      port: sftpPort,
      username: 'kettle',
      password: PASSWORD,
      hostVerifier: (k: Buffer) => sshFingerprint(k) === hostKey,
    });
    return client;
  };
  const document = async (id: string) =>
    (await spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/${id}`)).json();
  const outbound = async (messageId: string) =>
    (await files.list(PARTNER, 'outbound')).filter((f) => f.messageId === messageId);
  const ackText = async (messageId: string, kind: string) => {
    const [file] = (await outbound(messageId)).filter((f) => f.kind === kind);
    expect(file).toBeDefined();
    return (await files.read(PARTNER, 'outbound', file.name))!.content.toString('utf8');
  };

  it('turns an HTTP upload of an 850 and an 856 into documents at the platform, and answers each interchange with a 997', async () => {
    const response = await post('/v1/edi', fixture('kettle-850-856.edi'));
    expect(response.status).toBe(202);
    const { messageId } = await response.json();
    expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed', 'rejected'])).toBe(
      'delivered',
    );

    expect(await document('PO-7001')).toMatchObject({
      id: 'PO-7001',
      direction: 'Inbound',
      occupant: { id: DEMO.mainDc },
      offsite: { id: DEMO.kettleFoods },
      carrier: { id: DEMO.fastFreight },
      loads: [
        { name: 'Kettle chips 24x', quantity: 12, loadTag: 'SKU-100' },
        { name: '012345678912', quantity: 3, loadTag: '012345678912' },
      ],
      validDates: { begin: '2026-12-01T00:00:00Z', end: '2026-12-03T23:59:59Z' },
      type: { name: 'PurchaseOrder' },
      status: { name: 'Original' },
      attributes: { interchangeSender: 'KETTLE', interchangeControl: '000000101', department: '042' },
    });
    expect(await document('ASN-7001')).toMatchObject({
      type: { name: 'AdvanceShipNotice' },
      carrier: { id: DEMO.blueLine },
      loads: [{ quantity: 12, loadTag: 'SKU-100' }],
    });

    const acks = (await outbound(messageId)).filter((f) => f.kind === '997');
    expect(acks).toHaveLength(2);
    for (const ack of acks) {
      const text = (await files.read(PARTNER, 'outbound', ack.name))!.content.toString('utf8');
      const read = parseX12(text);
      expect(read.problems.filter((p) => p.severity === 'error')).toEqual([]);
      const segments = read.interchanges[0].groups[0].transactionSets[0].segments.map((s) =>
        [s.tag, ...s.elements].join('*'),
      );
      expect(segments).toEqual(
        expect.arrayContaining([expect.stringMatching(/^AK5\*A$/), expect.stringMatching(/^AK9\*A\*1\*1\*1$/)]),
      );
    }
  });

  it('takes the same file over SFTP, and the partner fetches its 997 from outbound/', async () => {
    const client = await sftp();
    try {
      // Another interchange control number: the HTTP test's interchanges are duplicates now.
      const edi = fixture('kettle-850-856.edi')
        .replaceAll('000000101', '000000111')
        .replaceAll('000000102', '000000112');
      await client.put(Buffer.from(edi), '/inbound/kettle-0001.edi');
      const [message] = (await spine.messages.search({ partnerId: PARTNER, limit: 1 })).items;
      expect(message).toMatchObject({
        channel: 'sftp',
        metadata: expect.objectContaining({ fileName: 'kettle-0001.edi' }),
      });
      expect(await spine.waitForStatus(message.id, ['delivered', 'failed', 'partially_failed', 'rejected'])).toBe(
        'delivered',
      );
      expect((await document('PO-7001')).attributes.interchangeControl).toBe('000000111');

      const listing = (await client.list('/outbound')).map((f) => f.name);
      const names = (await outbound(message.id)).map((f) => f.name);
      expect(listing).toEqual(expect.arrayContaining(names));
      const fetched = (await client.get(`/outbound/${names[0]}`)) as Buffer;
      expect(fetched.toString('utf8')).toMatch(/^ISA\*.*\nGS\*FA\*/s);
      await client.delete(`/outbound/${names[0]}`);
      expect((await client.list('/outbound')).map((f) => f.name)).not.toContain(names[0]);
    } finally {
      await client.end();
    }
  });

  it('lets engineers find an upload by file name or ISA13 and see its files: the upload, its 997, and whether the partner fetched it', async () => {
    const client = await sftp();
    try {
      const edi = fixture('kettle-850-856.edi')
        .replaceAll('000000101', '000000121')
        .replaceAll('000000102', '000000122');
      await client.put(Buffer.from(edi), '/inbound/find-me 0121.edi');
      const search = async (query: string) => {
        const response = await spine.call('GET', `/v1/admin/messages?${query}`, { auth: 'admin' });
        expect(response.status).toBe(200);
        return ((await response.json()).items as { id: string }[]).map((m) => m.id);
      };
      const [messageId] = await search(`fileName=${encodeURIComponent('find-me 0121.edi')}`);
      expect(messageId).toBeDefined();
      expect(await search('fileName=find-me')).toEqual([]); // exact names only
      expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed', 'rejected'])).toBe(
        'delivered',
      );
      // The interchanges are recorded by translation; a carrier quotes ISA13 with or without its zeros.
      expect(await search('interchange=000000122')).toEqual([messageId]);
      expect(await search(`interchange=121&partner=${PARTNER}`)).toEqual([messageId]);
      expect(await search('interchange=121&channel=webhook')).toEqual([]);
      expect((await spine.messages.findById(messageId))!.metadata.interchanges).toEqual([
        { sender: 'KETTLE', control: '000000121', refused: false },
        { sender: 'KETTLE', control: '000000122', refused: false },
      ]);

      const filesOf = async () =>
        (await (await spine.call('GET', `/v1/admin/messages/${messageId}`, { auth: 'admin' })).json()).files as Record<
          string,
          unknown
        >[];
      const acks = (await outbound(messageId)).map((f) => f.name);
      expect(acks).toHaveLength(2);
      const detail = await (await spine.call('GET', `/v1/admin/messages/${messageId}`, { auth: 'admin' })).json();
      expect(detail.fileCount).toBe(3);
      expect(await filesOf()).toEqual([
        expect.objectContaining({
          folder: 'inbound',
          name: 'find-me 0121.edi',
          kind: null,
          size: Buffer.byteLength(edi),
          removedAt: null,
        }),
        ...acks.map((name) => expect.objectContaining({ folder: 'outbound', name, kind: '997', removedAt: null })),
      ]);
      await client.get(`/outbound/${acks[0]}`);
      await client.delete(`/outbound/${acks[0]}`);
      const after = await filesOf();
      expect(after.find((f) => f.name === acks[0])).toMatchObject({ removedAt: expect.any(String) });
      expect(after.find((f) => f.name === acks[1])).toMatchObject({ removedAt: null });
    } finally {
      await client.end();
    }
    // A refused interchange is findable too (and its TA1 listed).
    const { messageId: refused } = await (
      await post('/v1/edi', fixture('stranger-850.edi').replaceAll('000000301', '000000321'))
    ).json();
    expect(await spine.waitForStatus(refused, ['rejected', 'delivered', 'failed'])).toBe('rejected');
    const found = await (await spine.call('GET', '/v1/admin/messages?interchange=321', { auth: 'admin' })).json();
    expect(found.items.map((m: { id: string }) => m.id)).toEqual([refused]);
    expect(found.items[0].metadata.interchanges).toEqual([{ sender: 'STRANGER', control: '000000321', refused: true }]);
    const detail = await (await spine.call('GET', `/v1/admin/messages/${refused}`, { auth: 'admin' })).json();
    // An HTTP upload is stored as a file too, named after its id when it gave no name.
    expect(detail.files).toEqual([
      expect.objectContaining({
        folder: 'inbound',
        name: expect.stringMatching(/^http-[0-9a-f-]{36}\.x12$/),
        kind: null,
      }),
      expect.objectContaining({ folder: 'outbound', kind: 'TA1' }),
    ]);
  });

  it('records the file name an HTTP upload gives, and refuses one that is not a plain file name', async () => {
    const edi = fixture('kettle-850-856.edi').replaceAll('000000101', '000000131').replaceAll('000000102', '000000132');
    const { messageId } = await (await post('/v1/edi?fileName=ASN%200131.edi', edi)).json();
    expect((await spine.messages.findById(messageId))!.metadata).toMatchObject({
      fileName: 'ASN 0131.edi',
      via: 'http',
    });
    expect((await spine.messages.search({ fileName: 'ASN 0131.edi' })).items.map((m) => m.id)).toEqual([messageId]);
    for (const bad of ['..%2Fetc%2Fpasswd', '', 'a%00b', 'x&fileName=y']) {
      const response = await post(`/v1/edi?fileName=${bad}`, edi);
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toMatch(/fileName: 1 to 255 characters/);
    }
  });

  it('answers a search filter that is too long with 400 naming it', async () => {
    const response = await spine.call('GET', `/v1/admin/messages?interchange=${'9'.repeat(16)}`, { auth: 'admin' });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toMatch(/interchange/);
  });

  it('does not deliver an interchange again: the same sender and ISA13 make the message a duplicate', async () => {
    const file = fixture('kettle-850-bad-quantity.edi').replace('three', '3').replaceAll('000000201', '000000501');
    const first = await (await post('/v1/edi', file)).json();
    await spine.waitForStatus(first.messageId, ['delivered', 'failed', 'partially_failed']);
    const puts = async () =>
      (await (await spine.sandbox.call('GET', '/__sandbox/stats', { token: null })).json()).requests[
        'PUT /api/v2/organisations/:orgId/documents/:docId'
      ]?.['200'] ?? 0;
    const before = await puts();
    const again = await (await post('/v1/edi', file)).json();
    expect(await spine.waitForStatus(again.messageId, ['duplicate', 'delivered'])).toBe('duplicate');
    expect((await spine.messages.findById(again.messageId))?.statusReason).toMatch(/received before/);
    expect(await puts()).toBe(before);
    // Each copy has its own 997 in outbound/ (the second does not replace the first: same ISA13, same minute).
    const [firstAck] = await outbound(first.messageId);
    const [againAck] = await outbound(again.messageId);
    expect(firstAck?.name).toMatch(/^997_000000501_/);
    expect(againAck?.name).toMatch(/^997_000000501_/);
    expect(againAck.name).not.toBe(firstAck.name);
  });

  it('delivers only the new interchanges of a file that repeats an earlier one, and looks back as far as the partner window', async () => {
    const FINAL = ['delivered', 'failed', 'partially_failed', 'rejected', 'duplicate'];
    const base = fixture('kettle-850-856.edi').replaceAll('PO-7001', 'PO-7701').replaceAll('ASN-7001', 'ASN-7701');
    const file = (po: string, asn: string, quantities: { po: number; asn: number }) =>
      base
        .replaceAll('000000101', po)
        .replaceAll('000000102', asn)
        .replace('PO1*1*12*CA', `PO1*1*${quantities.po}*CA`)
        .replace('SN1**12*CA', `SN1**${quantities.asn}*CA`);
    const send = async (text: string) => {
      const { messageId } = await (await post('/v1/edi', text)).json();
      return { messageId, status: await spine.waitForStatus(messageId, FINAL) };
    };
    const quantity = async (id: string) => (await document(id)).loads[0].quantity;

    const first = await send(file('000000701', '000000702', { po: 12, asn: 12 }));
    expect(first.status).toBe('delivered');
    // 701 again (its PO changed: not delivered, it was received before) and a new 703: only 703 is delivered.
    const partial = await send(file('000000701', '000000703', { po: 99, asn: 15 }));
    expect(partial.status).toBe('delivered');
    expect((await spine.messages.findDetail(partial.messageId))!.operations.map((o) => o.targetId)).toEqual([
      'ASN-7701',
    ]);
    expect([await quantity('PO-7701'), await quantity('ASN-7701')]).toEqual([12, 15]);

    // Receipts 31 days old are outside the default 30-day window: 701 is delivered again.
    const db = spine.app.get(DataSource);
    const age = (days: number) =>
      db.query(`UPDATE interchange_receipt SET received_at = now() - make_interval(days => $2) WHERE partner_id = $1`, [
        PARTNER,
        days,
      ]);
    await age(31);
    expect((await send(file('000000701', '000000704', { po: 20, asn: 15 }))).status).toBe('delivered');
    expect(await quantity('PO-7701')).toBe(20);
    // A partner window of 60 days makes the same 31-day-old interchange a duplicate.
    const partners = spine.app.get(PartnerRepository);
    const profile = (await partners.findById(PARTNER))!;
    await partners.upsert(
      { ...profile, settings: { ...profile.settings, edi: { ...profile.settings.edi!, duplicateWindowDays: 60 } } },
      'api',
    );
    try {
      await age(31);
      const repeat = await send(file('000000701', '000000704', { po: 30, asn: 30 }));
      expect(repeat.status).toBe('duplicate');
      expect([await quantity('PO-7701'), await quantity('ASN-7701')]).toEqual([20, 15]);
    } finally {
      await partners.upsert(profile, 'api');
    }
  });

  it('rejects a set whose data cannot be mapped, with a 997 naming segment and element, and records the reason', async () => {
    const { messageId } = await (await post('/v1/edi', fixture('kettle-850-bad-quantity.edi'))).json();
    expect(await spine.waitForStatus(messageId, ['failed', 'partially_failed', 'delivered', 'rejected'])).toBe(
      'failed',
    );
    const detail = (await spine.messages.findDetail(messageId))!;
    expect(detail.operations).toEqual([
      expect.objectContaining({
        status: 'failed',
        errorClass: 'permanent',
        lastError: expect.stringMatching(/PO102 must be a non-negative quantity, got "three"/),
      }),
    ]);
    const ack = await ackText(messageId, '997');
    expect(ack).toMatch(/AK3\*PO1\*11\*\*8/); // the second PO1 is the 11th segment of the set (ST = 1)
    expect(ack).toMatch(/AK4\*2\*\*6\*three~/); // 6: invalid character in data element (X12 table 723)
    expect(ack).toMatch(/AK5\*R\*5/);
    expect(ack).toMatch(/AK9\*R\*1\*1\*0/);
  });

  it('replays an EDI message (rerun) without calling its own interchange a duplicate', async () => {
    const edi = fixture('kettle-850-856.edi').replaceAll('000000101', '000000601').replaceAll('000000102', '000000602');
    const { messageId } = await (await post('/v1/edi', edi)).json();
    expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'duplicate'])).toBe('delivered');
    const replay = await (
      await spine.call('POST', `/v1/admin/messages/${messageId}/replay`, { auth: 'admin', body: { mode: 'rerun' } })
    ).json();
    expect(await spine.waitForStatus(replay.messageId, ['delivered', 'failed', 'duplicate'])).toBe('delivered');
    // Each records the interchanges it carried; an edited payload without any is not found under the original's.
    const edited = await (
      await spine.call('POST', `/v1/admin/messages/${messageId}/replay`, {
        auth: 'admin',
        body: { payload: 'not X12 at all' },
      })
    ).json();
    expect(await spine.waitForStatus(edited.messageId, ['rejected', 'delivered', 'failed'])).toBe('rejected');
    expect((await spine.messages.findById(edited.messageId))!.metadata.interchanges).toBeUndefined();
    expect((await spine.messages.search({ interchange: '601' })).items.map((m) => m.id).sort()).toEqual(
      [messageId, replay.messageId].sort(),
    );
  });

  it("refuses an interchange from a sender id that is not the partner's, with a TA1", async () => {
    const { messageId } = await (await post('/v1/edi', fixture('stranger-850.edi'))).json();
    expect(await spine.waitForStatus(messageId, ['rejected', 'delivered', 'failed'])).toBe('rejected');
    expect((await spine.messages.findById(messageId))?.statusReason).toMatch(
      /sender "STRANGER" \(ISA06\) is not one of this partner's sender ids/,
    );
    expect(await ackText(messageId, 'TA1')).toMatch(/TA1\*000000301\*261120\*0830\*R\*006/);
  });

  it('refuses a broken envelope with the reason (SE01 count) and a 997 rejecting the set', async () => {
    const broken =
      fixture('kettle-850-856.edi')
        .split('IEA*1*000000101~\n')[0]
        .replace('SE*13*0001', 'SE*12*0001')
        .replace('000000101', '000000401') + 'IEA*1*000000401~\n';
    const { messageId } = await (await post('/v1/edi', broken)).json();
    expect(await spine.waitForStatus(messageId, ['failed', 'rejected', 'delivered'])).toBe('failed');
    expect((await spine.messages.findDetail(messageId))!.operations[0].lastError).toMatch(/SE01/);
    expect(await ackText(messageId, '997')).toMatch(/AK5\*R\*4/);
  });

  it('previews the documents of a file and its diagnostics without recording or delivering anything', async () => {
    const before = await spine.messages.countBy({ partnerId: PARTNER });
    const response = await post('/v1/edi/preview', fixture('kettle-850-bad-quantity.edi'));
    expect(response.status).toBe(200);
    const preview = await response.json();
    expect(preview.documents).toEqual([]);
    expect(preview.transactionSets).toEqual([
      expect.objectContaining({
        setId: '850',
        rejected: true,
        diagnostics: [expect.objectContaining({ segmentTag: 'PO1', element: 2 })],
      }),
    ]);
    const good = await (await post('/v1/edi/preview', fixture('kettle-850-856.edi'))).json();
    expect(good.documents.map((d: { document: { id: string } }) => d.document.id)).toEqual(['PO-7001', 'ASN-7001']);
    expect(await spine.messages.countBy({ partnerId: PARTNER })).toBe(before);
  });

  it('lets an operator preview a file as any partner would be told, and a viewer not', async () => {
    const before = await spine.messages.countBy({ partnerId: PARTNER });
    const admin = (path: string, body: string, token = ADMIN_TOKEN): Promise<TestResponse> =>
      fetch(`${spine.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/edi-x12' },
        body,
      });
    const asPartner = await (await post('/v1/edi/preview', fixture('kettle-850-bad-quantity.edi'))).json();
    const response = await admin(`/v1/admin/edi/preview?partner=${PARTNER}`, fixture('kettle-850-bad-quantity.edi'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(asPartner);
    const missing = await admin('/v1/admin/edi/preview', fixture('kettle-850-856.edi'));
    expect(missing.status).toBe(400);
    expect((await missing.json()).details).toEqual([expect.stringMatching(/^partner: /)]);
    expect((await admin('/v1/admin/edi/preview?partner=nobody-here', fixture('kettle-850-856.edi'))).status).toBe(404);
    // test-wms has no settings.edi: said so, not a crash.
    const unset = await admin('/v1/admin/edi/preview?partner=test-wms', fixture('kettle-850-856.edi'));
    expect(unset.status).toBe(400);
    expect((await unset.json()).details).toEqual(['partner test-wms has no settings.edi (senderIds, coreName)']);
    const viewer = await (
      await spine.call('POST', '/v1/admin/operators', { auth: 'admin', body: { name: 'edi-viewer', role: 'viewer' } })
    ).json();
    expect(
      (await admin(`/v1/admin/edi/preview?partner=${PARTNER}`, fixture('kettle-850-856.edi'), viewer.token)).status,
    ).toBe(403);
    expect(await spine.messages.countBy({ partnerId: PARTNER })).toBe(before);
  });

  it('previews a file of many sets counted whole, its sets a page at a time with their documents', async () => {
    const sets = Array.from({ length: 250 }, (_, i) => {
      const st = String(i + 1).padStart(4, '0');
      return [
        `ST*850*${st}`,
        `BEG*00*SA*PO-P${i + 1}**20261120`,
        'TD5*B*2*FFRT*M',
        'N1*ST*Main DC*92*DC01',
        'N1*SF*Kettle Foods*92*SUP-KETTLE',
        'PO1*1*12*CA*9.50**SK*SKU-100',
        `SE*7*${st}`,
      ];
    }).flat();
    const file = [
      'ISA*00*          *00*          *ZZ*KETTLE         *ZZ*ACMEDC         *261120*0830*U*00401*000000777*0*T*>',
      'GS*PO*KETTLE*ACMEDC*20261120*0830*777*X*004010',
      ...sets,
      'GE*250*777',
      'IEA*1*000000777',
    ].join('~\n');
    const page = async (query: string) => {
      const response = await post(`/v1/edi/preview${query}`, `${file}~\n`);
      expect(response.status).toBe(200);
      return response.json();
    };
    const first = await page('');
    expect(first.summary).toEqual({ interchanges: 1, sets: 250, accepted: 250, rejected: 0, documents: 250 });
    expect(first.transactionSets).toHaveLength(100);
    expect(first.documents.map((d: { document: { id: string } }) => d.document.id).slice(0, 2)).toEqual([
      'PO-P1',
      'PO-P2',
    ]);
    expect(first.nextSetsAfter).toBe(100);
    const last = await page('?setsAfter=200&setsLimit=100');
    expect(last.transactionSets.map((s: { documentId: string }) => s.documentId)[0]).toBe('PO-P201');
    expect(last.transactionSets).toHaveLength(50);
    expect(last.nextSetsAfter).toBeNull();
    const bad = await post('/v1/edi/preview?setsLimit=5000', `${file}~\n`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).details).toEqual(['setsLimit must be a whole number from 1 to 1000']);

    // full=1: every set as a line, as it is mapped, the summary last.
    const full = await post('/v1/edi/preview?full=1', `${file}~\n`);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await full.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(252);
    expect(lines.filter((l) => l.type === 'set').map((l) => l.documentId)).toEqual(
      Array.from({ length: 250 }, (_, i) => `PO-P${i + 1}`),
    );
    expect(lines[0].operation.document.id).toBe('PO-P1');
    expect(lines[250]).toMatchObject({
      type: 'interchange',
      control: '000000777',
      refused: false,
      refusedAtEnd: false,
    });
    expect(lines[250].acknowledgment.kind).toBe('997');
    expect(lines[251]).toEqual({
      type: 'summary',
      interchanges: 1,
      sets: 250,
      accepted: 250,
      rejected: 0,
      documents: 250,
    });
    const asOperator = await fetch(`${spine.url}/v1/admin/edi/preview?partner=${PARTNER}&full=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/edi-x12' },
      body: `${file}~\n`,
    });
    expect((await asOperator.text()).trimEnd().split('\n')).toHaveLength(252);
    for (const [query, detail] of [
      ['?full=yes', 'full must be 1 (every set, as NDJSON) or 0'],
      ['?full=1&setsLimit=10', 'full=1 answers every set: send setsAfter and setsLimit only for a page (without full)'],
    ]) {
      const refused = await post(`/v1/edi/preview${query}`, `${file}~\n`);
      expect(refused.status).toBe(400);
      expect((await refused.json()).details).toEqual([detail]);
    }
  });

  it('answers a missing body with 400 naming it', async () => {
    const response = await post('/v1/edi', '');
    expect(response.status).toBe(400);
    expect((await response.json()).details[0]).toMatch(/^body/);
  });
});

describe('EDI over HTTP: the body streamed into the upload store, under the SFTP size limit', () => {
  const UPLOAD_LIMIT = 1536 * 1024;
  let spine: Spine;
  let key: string;
  let db: DataSource;

  beforeAll(async () => {
    // Bodies of other routes stop at 64 KiB here; an upload's at the (small) SFTP limit.
    spine = await startSpine({
      'gateway.bodyLimitBytes': 64 * 1024,
      'sftp.maxFileBytes': UPLOAD_LIMIT,
      'gateway.requestTimeoutMs': 5000,
      'sftp.maxConcurrentUploads': 1, // an upload that kept its place would refuse the next
    });
    key = await addEdiPartner(spine);
    db = spine.app.get(DataSource);
  }, 60_000);
  afterAll(() => spine?.close());

  /** An interchange of `asns` ASNs of 60 items each (~3.6 KB an ASN). */
  const asnFile = (control: string, asns: number) => {
    const sets = Array.from({ length: asns }, (_, n) => {
      const segments = [
        `ST*856*${String(n + 1).padStart(4, '0')}`,
        `BSN*00*ASN-HTTP-${control}-${n}*20261201*1200`,
        'HL*1**S',
        'TD5*O*2*BLUE',
        'N1*SF*Kettle Foods*92*SUP-KETTLE',
        'N1*ST*Main DC*92*DC01',
        'HL*2*1*O',
        `PRF*PO-HTTP-${n}`,
      ];
      for (let i = 1; i <= 60; i++) {
        segments.push(`HL*${i + 2}*2*I`, `LIN**SK*SKU-${i}`, `SN1**${i}*CA`, `PID*F****Item ${i}`);
      }
      segments.push('CTT*60');
      segments.push(`SE*${segments.length + 1}*${String(n + 1).padStart(4, '0')}`);
      return segments.map((s) => `${s}~\n`).join('');
    });
    return [
      `ISA*00*          *00*          *ZZ*KETTLE         *ZZ*ACMEDC         *261120*0830*U*00401*${control}*0*T*>~\n`,
      'GS*SH*KETTLE*ACMEDC*20261120*0830*1*X*004010~\n',
      ...sets,
      `GE*${asns}*1~\n`,
      `IEA*1*${control}~\n`,
    ].join('');
  };
  const count = async (sql: string, params: unknown[] = []) =>
    Number(((await db.query(sql, params)) as { n: string }[])[0].n);
  /** Chunks no file owns: an upload in progress, or one left behind. */
  const looseChunks = () =>
    count(
      `SELECT count(*) AS n FROM partner_file_chunk c WHERE NOT EXISTS (SELECT 1 FROM partner_file f WHERE f.id = c.file_id)`,
    );
  const filesNamed = (name: string) =>
    count(`SELECT count(*) AS n FROM partner_file WHERE partner_id = $1 AND name = $2`, [PARTNER, name]);
  const messagesNamed = async (name: string) => (await spine.messages.search({ fileName: name })).items.length;
  const until = async (what: string, check: () => Promise<boolean>) => {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > deadline) {
        throw new Error(`${what}: not within 10 s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  /**
   * A POST whose body is written in pieces (chunked: no length declared). `holdAt`: past this many
   * bytes, wait for the answer before writing more; `cutAt`: past this many, `beforeCut`, then the
   * client goes away; `pace` after each piece.
   */
  const stream = (
    path: string,
    pieces: Buffer[],
    options: {
      holdAt?: number;
      cutAt?: number;
      beforeCut?: () => Promise<void>;
      pace?: (sent: number) => Promise<void>;
    } = {},
  ): Promise<{ status: number; body: string; sent: number } | 'cut off'> =>
    new Promise((resolve, reject) => {
      let answered = false;
      let cut = false;
      let sent = 0;
      const request = httpRequest(`${spine.url}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/edi-x12', 'transfer-encoding': 'chunked' },
      });
      request.on('response', (response) => {
        answered = true;
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () => {
          resolve({ status: response.statusCode!, body: Buffer.concat(parts).toString(), sent });
          request.destroy();
        });
      });
      request.on('error', (error) => (answered || cut ? undefined : reject(error)));
      const write = async () => {
        for (const piece of pieces) {
          if (answered || request.destroyed) {
            return;
          }
          if (options.cutAt !== undefined && sent >= options.cutAt) {
            await options.beforeCut?.();
            cut = true;
            request.destroy();
            resolve('cut off');
            return;
          }
          if (options.holdAt !== undefined && sent >= options.holdAt) {
            return until('an answer', () => Promise.resolve(answered));
          }
          if (!request.write(piece)) {
            await new Promise((drained) => request.once('drain', drained));
          }
          sent += piece.length;
          await options.pace?.(sent);
        }
        request.end();
      };
      write().catch(reject);
    });
  const pieces = (text: string, size = 64 * 1024) => {
    const bytes = Buffer.from(text);
    return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
  };

  it('takes a body far over gateway.bodyLimitBytes, stores it in chunks as it arrives, and delivers it', async () => {
    const file = asnFile('000000901', 330);
    expect(Buffer.byteLength(file)).toBeGreaterThan(FILE_CHUNK_BYTES); // 1.2 MB: 18 times the body limit, two chunks
    const answer = await stream('/v1/edi?fileName=big-asns.edi', pieces(file));
    expect(answer).toMatchObject({ status: 202 });
    const { messageId, status } = JSON.parse((answer as { body: string }).body) as {
      messageId: string;
      status: string;
    };
    expect(status).toBe('received');

    const message = (await spine.messages.findById(messageId))!;
    expect(message).toMatchObject({ channel: 'http-edi', rawPayload: '', sha256: sha256(file) });
    expect(message.metadata).toMatchObject({ via: 'http', fileName: 'big-asns.edi', size: Buffer.byteLength(file) });
    const fileId = message.metadata.payloadFile!;
    expect(await count(`SELECT count(*) AS n FROM partner_file_chunk WHERE file_id = $1`, [fileId])).toBe(2);
    const [stored] = (await spine.app.get(PartnerFileRepository).listByMessage(messageId, 100)).files;
    expect(stored).toMatchObject({
      id: fileId,
      folder: 'inbound',
      name: 'big-asns.edi',
      size: Buffer.byteLength(file),
    });

    expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed', 'rejected'], 60_000)).toBe(
      'delivered',
    );
    expect(
      await count(`SELECT count(*) AS n FROM operation WHERE message_id = $1 AND status = 'delivered'`, [messageId]),
    ).toBe(330);
    const last = await spine.sandbox.call(
      'GET',
      `/api/v2/organisations/${DEMO.mainDc}/documents/ASN-HTTP-000000901-329`,
    );
    expect(last.status).toBe(200);
    // Other routes keep their limit: the preview takes text up to gateway.bodyLimitBytes.
    const preview = await fetch(`${spine.url}/v1/edi/preview`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/edi-x12' },
      body: file,
    });
    expect(preview.status).toBe(413);
  }, 90_000);

  it('names a file without fileName after its id, and records no fileName for it', async () => {
    const response = await fetch(`${spine.url}/v1/edi`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'text/plain' },
      body: asnFile('000000902', 1),
    });
    expect(response.status).toBe(202);
    const message = (await spine.messages.findById(((await response.json()) as { messageId: string }).messageId))!;
    expect(message.metadata.fileName).toBeUndefined();
    const [stored] = (await spine.app.get(PartnerFileRepository).listByMessage(message.id, 100)).files;
    expect(stored.name).toBe(`http-${message.metadata.payloadFile}.x12`);
  });

  it('refuses a body as it crosses the upload limit with 413 naming it, and keeps nothing', async () => {
    const file = asnFile('000000903', 500); // 1.8 MB, over the 1.5 MiB limit
    const answer = await stream('/v1/edi?fileName=too-big.edi', pieces(file, 16 * 1024), {
      holdAt: UPLOAD_LIMIT + 64 * 1024, // the answer comes before the client is done
    });
    expect(answer).toMatchObject({ status: 413 });
    const error = JSON.parse((answer as { body: string }).body) as { details: string[] };
    expect(error.details).toEqual([
      expect.stringMatching(new RegExp(`over the limit of ${UPLOAD_LIMIT} bytes \\(sftp\\.maxFileBytes\\)`)),
    ]);
    await until('its chunks removed', async () => (await looseChunks()) === 0);
    expect(await filesNamed('too-big.edi')).toBe(0);
    expect(await messagesNamed('too-big.edi')).toBe(0);

    // A declared length over the limit is refused before a byte is read.
    const declared = await fetch(`${spine.url}/v1/edi?fileName=too-big.edi`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/edi-x12' },
      body: file,
    });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { details: string[] }).details[0]).toMatch(/declares \d+ bytes, over the limit/);
    expect(await filesNamed('too-big.edi')).toBe(0);
  });

  it('keeps nothing of a request cut off mid-body (the client gone, or the request timeout past), though it was being stored', async () => {
    const file = asnFile('000000904', 400); // 1.4 MB
    const answer = await stream('/v1/edi?fileName=cut-off.edi', pieces(file), {
      cutAt: 1.2 * FILE_CHUNK_BYTES,
      // The first MiB is stored while the body arrives; then the client goes away.
      beforeCut: () => until('a chunk stored while the body arrives', async () => (await looseChunks()) > 0),
    });
    expect(answer).toBe('cut off');
    await until('its chunks removed', async () => (await looseChunks()) === 0);
    expect(await filesNamed('cut-off.edi')).toBe(0);
    expect(await messagesNamed('cut-off.edi')).toBe(0);

    // One that trickles is cut off at the request timeout (5 s here), keeping nothing either.
    const slow = pieces(file, 256);
    const started = Date.now();
    const trickled = await stream('/v1/edi?fileName=trickled.edi', slow.slice(0, 4096 + 100), {
      pace: async (sent) => {
        if (sent > FILE_CHUNK_BYTES) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
    });
    expect(trickled).toMatchObject({ status: 408 });
    expect(Date.now() - started).toBeLessThan(9000);
    await until('its chunks removed', async () => (await looseChunks()) === 0);
    expect(await filesNamed('trickled.edi')).toBe(0);
    // Neither kept its place: the next upload goes through.
    const next = await fetch(`${spine.url}/v1/edi?fileName=after.edi`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/edi-x12' },
      body: asnFile('000000905', 1),
    });
    expect(next.status).toBe(202);
  });
});
