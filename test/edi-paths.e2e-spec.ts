import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import {
  PartnerFileRepository,
  PartnerRepository,
  sshFingerprint,
  SftpCredentialRepository,
} from '@dockbridge/partners';
import {
  acknowledgeGroup,
  build997,
  buildTA1,
  parseX12,
  readX12,
  ta1NoteCode,
  type Problem,
  type X12Event,
} from '@dockbridge/x12';
import { SftpServer } from '../apps/gateway/src/sftp/sftp.server';
import { DEMO } from './support/sandbox';
import { Spine, startSpine } from './support/spine';
import { withUsualSeparators } from './support/x12-text';

/**
 * The project's own X12 files (test/fixtures/edi-paths, see its README), one per behaviour the
 * public samples of ../shared/x12-samples check (x12-samples and edi-samples e2e suites), so a
 * clone without ../shared checks them too: each file is read (sets, problems, acknowledgments,
 * streamed alike), then uploaded over SFTP, translated, delivered to the sandbox, and acknowledged
 * in /outbound, and ends as the table says.
 */
const FIXTURES = path.join(__dirname, 'fixtures/edi-paths');
const PARTNER = 'edi-paths';
const USERNAME = 'edipaths';
const PASSWORD = 'edi paths sftp password 1';
const FINAL = ['delivered', 'partially_failed', 'failed', 'rejected', 'duplicate'];

interface Expectation {
  /** What the reader finds: set ids per interchange, per group; problem codes in order; TA1 note and AK5s of the first interchange. */
  read: { sets: string[][][]; problems?: Problem['code'][]; ta1?: string; ak5?: string[] };
  status: string;
  /** Operations delivered to the sandbox. */
  delivered: number;
  /** lastError of each failed operation, in order. */
  failed?: RegExp[];
  statusReason?: RegExp;
  /** A reason recorded somewhere in the message (statusReason, an operation's lastError, an event's reason). */
  recorded?: RegExp;
  /** Documents at the sandbox (Main DC) afterwards, matched with toMatchObject; `absent`: never delivered. */
  documents?: Record<string, Record<string, unknown>>;
  absent?: string[];
  /** Acknowledgments of the message in /outbound by kind: how many files, and lines their text holds. */
  acks: { '997'?: { files: number; holds: RegExp[] }; TA1?: { files: number; holds: RegExp[] } };
}

const po = {
  type: { name: 'PurchaseOrder' },
  occupant: { id: DEMO.mainDc },
  offsite: { id: DEMO.kettleFoods },
  carrier: { id: DEMO.fastFreight },
};
const qty = (...quantities: number[]) => quantities.map((quantity) => expect.objectContaining({ quantity }));
const ack = (...lines: string[]) => lines.map((l) => new RegExp(`^${l.replace(/\*/g, '\\*')}~$`, 'm'));

const EXPECTED: Record<string, Expectation> = {
  // The same interchange twice in one file: the first copy is delivered, the second refused with TA1 025.
  'repeated-interchange.edi': {
    read: { sets: [[['850']], [['850']]] },
    status: 'partially_failed',
    delivered: 1,
    failed: [
      /^interchange 000000801: interchange 000000801 from KETTLE appears twice in this file; the second copy is not delivered$/,
    ],
    documents: { 'PO-8011': { ...po, loads: qty(12) } },
    acks: {
      '997': { files: 1, holds: ack('AK5*A', 'AK9*A*1*1*1') },
      TA1: { files: 1, holds: ack('TA1*000000801*261120*0830*R*025') },
    },
  },
  // ST02 0001 twice in one group: the second set is rejected (AK5 R 23), the first delivered.
  'duplicate-st02.edi': {
    read: { sets: [[['850', '850']]], problems: ['DUPLICATE_ST02'], ak5: ['A', 'R'] },
    status: 'partially_failed',
    delivered: 1,
    failed: [/^850 0001: ST02 "0001" is used twice in this group/],
    documents: { 'PO-8021': { ...po, loads: qty(5) } },
    absent: ['PO-8022'],
    acks: { '997': { files: 1, holds: ack('AK2*850*0001', 'AK5*A', 'AK5*R*23', 'AK9*P*2*2*1') } },
  },
  // Hard-wrapped at 80 columns, inside the ISA and inside elements: read as if unwrapped.
  'wrapped-80-columns.edi': {
    read: { sets: [[['850']]] },
    status: 'delivered',
    delivered: 1,
    documents: {
      'PO-8031': {
        ...po,
        loads: [
          expect.objectContaining({ name: 'Kettle chips 24x', quantity: 7, loadTag: 'SKU-100' }),
          expect.objectContaining({ name: 'Sea salt 12x', quantity: 8, loadTag: 'SKU-200' }),
        ],
      },
    },
    acks: { '997': { files: 1, holds: ack('AK1*PO*803', 'AK5*A', 'AK9*A*1*1*1') } },
  },
  // `|` element separator, two sets in one group, one single line.
  'pipe-separator-two-sets.edi': {
    read: { sets: [[['850', '850']]] },
    status: 'delivered',
    delivered: 2,
    documents: { 'PO-8041': { ...po, loads: qty(1) }, 'PO-8042': { ...po, loads: qty(2) } },
    acks: { '997': { files: 1, holds: ack('AK2*850*0001', 'AK2*850*0002', 'AK9*A*2*2*2') } },
  },
  // `~` is the element separator, `|` the component separator and LF the terminator.
  'tilde-element-separator.edi': {
    read: { sets: [[['850']]] },
    status: 'delivered',
    delivered: 1,
    documents: { 'PO-8051': { ...po, loads: qty(3) } },
    acks: { '997': { files: 1, holds: ack('AK5*A', 'AK9*A*1*1*1') } },
  },
  // Two ASNs for the same shipment in one file: the later set supersedes the earlier, delivered once.
  'asn-sent-twice.edi': {
    read: { sets: [[['856', '856']]] },
    status: 'delivered',
    delivered: 1,
    recorded: /operation 1 \(document ASN-8061\) is superseded by operation 2 of the same message/,
    documents: {
      'ASN-8061': {
        type: { name: 'AdvanceShipNotice' },
        occupant: { id: DEMO.mainDc },
        carrier: { id: DEMO.blueLine },
        loads: qty(14),
      },
    },
    acks: { '997': { files: 1, holds: ack('AK1*SH*806', 'AK2*856*0001', 'AK2*856*0002', 'AK9*A*2*2*2') } },
  },
  // PO106 without PO107 (P0607): accepted with errors, delivered, the 997 names PO1 (set position 8) and element 7.
  'po1-qualifier-without-id.edi': {
    read: { sets: [[['850']]], problems: ['SYNTAX_NOTE'], ak5: ['E'] },
    status: 'delivered',
    delivered: 1,
    recorded: /PO1|syntax/i,
    documents: { 'PO-8071': { ...po, loads: qty(9) } },
    acks: { '997': { files: 1, holds: ack('AK3*PO1*8**8', 'AK4*7**2', 'AK5*E*5', 'AK9*E*1*1*1') } },
  },
  // IEA02 is not ISA13: the envelope is refused (TA1 001), nothing delivered.
  'isa13-iea02-mismatch.edi': {
    read: { sets: [[['850']]], problems: ['ISA13_IEA02_MISMATCH'], ta1: '001' },
    status: 'rejected',
    delivered: 0,
    statusReason: /^interchange 000000808: IEA02 "000000888" does not match ISA13 "000000808"/,
    absent: ['PO-8081'],
    acks: { TA1: { files: 1, holds: ack('TA1*000000808*261120*0830*R*001') } },
  },
  // SE01 says 30, the set has 11: the set is rejected (AK5 R 4), recorded as a failed operation.
  'se01-mismatch.edi': {
    read: { sets: [[['850']]], problems: ['SE01_SEGMENT_COUNT'], ak5: ['R'] },
    status: 'failed',
    delivered: 0,
    failed: [/^850 0001: SE01 "30" but the set has 11 segments/],
    absent: ['PO-8091'],
    acks: { '997': { files: 1, holds: ack('AK2*850*0001', 'AK5*R*4', 'AK9*R*1*1*0') } },
  },
  // An invoice group and an order group: the 810 is refused as not supported (AK5 R 1), the 850 delivered.
  'invoice-and-order.edi': {
    read: { sets: [[['810'], ['850']]] },
    status: 'partially_failed',
    delivered: 1,
    failed: [/^810 0001: transaction set 810 is not supported/],
    documents: { 'PO-8101': { ...po, loads: qty(12) } },
    acks: { '997': { files: 1, holds: ack('AK1*IN*810', 'AK2*810*0001', 'AK5*R*1', 'AK1*PO*811', 'AK5*A') } },
  },
  // A 997 sent to us: refused with the reason, and never acknowledged (no 997 answers a 997).
  'inbound-997.edi': {
    read: { sets: [[['997']]] },
    status: 'failed',
    delivered: 0,
    failed: [/^997 0001: transaction set 997 is not supported/],
    acks: {},
  },
  // The buyer (N1*BY) is the only party: it is where the goods go.
  'buyer-only-850.edi': {
    read: { sets: [[['850']]] },
    status: 'delivered',
    delivered: 1,
    documents: { 'PO-8121': { type: { name: 'PurchaseOrder' }, occupant: { id: DEMO.mainDc }, loads: qty(2) } },
    acks: { '997': { files: 1, holds: ack('AK5*A', 'AK9*A*1*1*1') } },
  },
};

const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.edi'))
  .sort();
const ackOptions = { senderId: 'DOCKBRIDGE', controlNumber: 1, date: new Date('2026-01-02T03:04:00Z') };

describe('the X12 paths of test/fixtures/edi-paths: read, then over SFTP to the platform and back', () => {
  it('has an expectation for every fixture, and a fixture for every expectation', () => {
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  describe('read', () => {
    it.each(files)('%s', async (file) => {
      const { read } = EXPECTED[file];
      const text = readFileSync(path.join(FIXTURES, file), 'utf8');
      const doc = parseX12(text);
      expect(doc.interchanges.map((i) => i.groups.map((g) => g.summaries.map((s) => s.id)))).toEqual(read.sets);
      expect(doc.problems.map((p) => p.code)).toEqual(read.problems ?? []);
      for (const p of doc.problems) {
        expect(p.line).toBeGreaterThan(0);
      }
      expect(ta1NoteCode(doc.interchanges[0])).toBe(read.ta1);
      if (read.ak5) {
        expect(acknowledgeGroup(doc.interchanges[0].groups[0]).sets.map((s) => s.status)).toEqual(read.ak5);
      }
      for (const interchange of doc.interchanges) {
        expect(parseX12(build997(interchange, ackOptions)).problems).toEqual([]);
        expect(parseX12(buildTA1(interchange, undefined, ackOptions)).problems).toEqual([]);
      }
      // Streamed in small chunks, the same sets (as plain data: streamed segments point into other texts).
      const streamed: X12Event[] = [];
      for await (const e of readX12(createReadStream(path.join(FIXTURES, file), { highWaterMark: 64 }))) {
        streamed.push(e);
      }
      const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
      const sets = streamed.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet] : []));
      expect(plain(sets)).toEqual(plain(doc.interchanges.flatMap((i) => i.groups.flatMap((g) => g.transactionSets))));
    });

    it('wrapped-80-columns reads as the same segments as its unwrapped text', () => {
      const text = readFileSync(path.join(FIXTURES, 'wrapped-80-columns.edi'), 'utf8');
      const rows = (t: string) =>
        parseX12(t).interchanges[0].groups[0].transactionSets.flatMap((s) =>
          s.segments.map((g) => [g.tag, ...g.elements]),
        );
      expect(rows(text)).toEqual(rows(text.replace(/\n/g, '')));
      expect(JSON.stringify(rows(text))).toContain('Kettle chips 24x');
    });
  });

  describe('end to end over SFTP', () => {
    let spine: Spine;
    let partnerFiles: PartnerFileRepository;
    let client: SftpClient;

    beforeAll(async () => {
      spine = await startSpine();
      await spine.app.get(PartnerRepository).upsert(
        {
          id: PARTNER,
          name: 'EDI paths',
          locationOrganisationId: DEMO.mainDc,
          settings: { edi: { senderIds: ['KETTLE'], coreName: 'ACME', locationCodes: ['DC01'] } },
        },
        'api',
      );
      await spine.app.get(SftpCredentialRepository).setPassword(PARTNER, USERNAME, PASSWORD);
      partnerFiles = spine.app.get(PartnerFileRepository);
      const server = spine.app.get(SftpServer);
      client = new SftpClient();
      await client.connect({
        host: '127.0.0.1',
        port: server.port!,
        username: USERNAME,
        password: PASSWORD,
        hostVerifier: (key: Buffer) => sshFingerprint(key) === server.hostKeyFingerprint,
      });
    }, 60_000);
    afterAll(async () => {
      await client?.end().catch(() => undefined);
      await spine?.close();
    });
    beforeEach(() => spine.sandbox.reset());

    it.each(files)('%s', async (file) => {
      const expected = EXPECTED[file];
      const raw = readFileSync(path.join(FIXTURES, file));
      await client.put(raw, `/inbound/${file}`);
      const upload = (await partnerFiles.list(PARTNER, 'inbound')).find((f) => f.name === file);
      expect(upload?.messageId).toBeTruthy();
      const messageId = upload!.messageId!;
      const status = await spine.waitForStatus(messageId, FINAL, 20_000);
      const detail = (await spine.messages.findDetail(messageId))!;
      const failed = detail.operations.filter((o) => o.status === 'failed').map((o) => o.lastError);
      const delivered = detail.operations.filter((o) => o.status === 'delivered').length;

      // What the partner fetches from /outbound over SFTP.
      const listing = (await client.list('/outbound')).map((f) => f.name);
      const acks: Record<string, string[]> = {};
      for (const f of (await partnerFiles.list(PARTNER, 'outbound'))
        .filter((f) => f.messageId === messageId)
        .sort((x, y) => x.name.localeCompare(y.name, undefined, { numeric: true }))) {
        expect(listing).toContain(f.name);
        (acks[f.kind ?? '?'] ??= []).push(((await client.get(`/outbound/${f.name}`)) as Buffer).toString('utf8'));
      }
      const documents: Record<string, unknown> = {};
      for (const id of [...Object.keys(expected.documents ?? {}), ...(expected.absent ?? [])]) {
        const response = await spine.sandbox.call(
          'GET',
          `/api/v2/organisations/${DEMO.mainDc}/documents/${encodeURIComponent(id)}`,
        );
        documents[id] = response.status === 200 ? await response.json() : `HTTP ${response.status}`;
      }
      const recorded = [
        detail.message.statusReason,
        ...detail.operations.map((o) => o.lastError),
        ...detail.events.map((e) => e.reason),
      ]
        .filter(Boolean)
        .join('\n');

      // One view of the outcome first, so a failure shows everything that happened to the file.
      expect({ file, status, delivered }).toEqual({ file, status: expected.status, delivered: expected.delivered });
      expect(failed).toEqual((expected.failed ?? []).map((r) => expect.stringMatching(r)));
      if (expected.statusReason) {
        expect(detail.message.statusReason).toMatch(expected.statusReason);
      }
      if (expected.recorded) {
        expect(recorded).toMatch(expected.recorded);
      }
      if (!expected.failed && !expected.statusReason && !expected.recorded) {
        expect(recorded).toBe('');
      }
      expect(Object.fromEntries(Object.entries(acks).map(([k, v]) => [k, v.length]))).toEqual(
        Object.fromEntries(Object.entries(expected.acks).map(([k, v]) => [k, v.files])),
      );
      // Answered in the partner's own element separator (that of its first ISA).
      const separator = String.fromCharCode(raw[raw.indexOf('ISA') + 3]);
      expect(Object.values(acks).flatMap((texts) => texts.map((t) => `${t.slice(0, 3)}${t[3]}`))).toEqual(
        Object.values(acks).flatMap((texts) => texts.map(() => `ISA${separator}`)),
      );
      for (const [kind, want] of Object.entries(expected.acks)) {
        const text = acks[kind].map(withUsualSeparators).join('\n');
        for (const line of want.holds) {
          expect(text).toMatch(line);
        }
      }
      for (const id of expected.absent ?? []) {
        expect({ id, document: documents[id] }).toEqual({ id, document: 'HTTP 404' });
      }
      for (const [id, want] of Object.entries(expected.documents ?? {})) {
        expect({ id, document: documents[id] }).toMatchObject({ id, document: want });
      }
    });
  });
});
