import type { OrgRef } from '@dockbridge/platform';
import { EMPTY_DIRECTORY, type EdiMappingSettings, type PartyDirectory } from './edi-types';
import { translateEdi } from './interchange-translation';

const LOCATION = '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f';
const FAST_FREIGHT: OrgRef = { id: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e10' };
const BASE: EdiMappingSettings = { organisationId: LOCATION, coreName: 'ACME', locationCodes: ['DC01'] };

interface Envelope {
  version?: '00401' | '00501';
  sender?: string;
  senderQualifier?: string;
  receiver?: string;
  receiverQualifier?: string;
  control?: string;
}

/** One interchange of the given sets (each: ST01 and the segments between ST and SE). */
function interchange(sets: [string, string[]][], e: Envelope = {}): string {
  const version = e.version ?? '00401';
  const control = e.control ?? '000000116';
  const sender = (e.sender ?? 'KETTLESUPPLY').padEnd(15);
  const receiver = (e.receiver ?? 'DOCKBRIDGE').padEnd(15);
  const body = sets.flatMap(([id, segments], i) => {
    const st = String(i + 1).padStart(4, '0');
    return [`ST*${id}*${st}`, ...segments, `SE*${segments.length + 2}*${st}`];
  });
  return [
    `ISA*00*          *00*          *${e.senderQualifier ?? 'ZZ'}*${sender}*${e.receiverQualifier ?? 'ZZ'}*${receiver}*260105*0930*${version === '00501' ? '^' : 'U'}*${version}*${control}*0*T*>`,
    `GS*${sets[0][0] === '850' ? 'PO' : 'SH'}*${e.sender ?? 'KETTLESUPPLY'}*${e.receiver ?? 'DOCKBRIDGE'}*20260105*0930*17*X*${version}0`,
    ...body,
    `GE*${sets.length}*17`,
    `IEA*1*${control}`,
  ].join('~\n');
}

const translate = (
  raw: string,
  settings: Partial<EdiMappingSettings> = {},
  directory: PartyDirectory = EMPTY_DIRECTORY,
) =>
  translateEdi({
    raw,
    settings: { ...BASE, ...settings },
    senderIds: ['KETTLESUPPLY', '925133417'],
    directory,
    nextControlNumber: async () => 5,
    now: new Date('2026-01-06T10:15:00Z'),
  });

const documentOf = (set: { operation?: unknown }) =>
  (set.operation as { document: Record<string, unknown> } | undefined)?.document;
const PARTIES = ['N1*ST*Main DC*92*DC01', 'N1*SF*Kettle*92*SUP-KETTLE'];
const po = (...lines: string[]): [string, string[]] => ['850', ['BEG*00*SA*PO-1', ...PARTIES, ...lines]];

describe('the carrier from N1*CA', () => {
  it('with N103 = 2 (SCAC) is the same organisation as a TD5 SCAC: {coreName: "SCAC", coreId}', async () => {
    const result = await translate(interchange([po('N1*CA*Fast Freight*2*FFRT', 'PO1*1*1*EA')]));
    expect(documentOf(result.sets[0])?.carrier).toEqual({ coreName: 'SCAC', coreId: 'FFRT' });
  });

  it('with N103 = 2 takes the partner’s {scac} directory entry', async () => {
    const directory: PartyDirectory = {
      byCode: () => undefined,
      byScac: (scac) => (scac === 'FFRT' ? FAST_FREIGHT : undefined),
    };
    const result = await translate(interchange([po('N1*CA*Fast Freight*2*FFRT', 'PO1*1*1*EA')]), {}, directory);
    expect(documentOf(result.sets[0])?.carrier).toEqual(FAST_FREIGHT);
  });

  it('with another qualifier is a party in the partner’s scheme; a TD5 SCAC still wins over N1*CA', async () => {
    const other = await translate(interchange([po('N1*CA*Fast Freight*92*CARRIER-7', 'PO1*1*1*EA')]));
    expect(documentOf(other.sets[0])?.carrier).toEqual({ coreName: 'ACME', coreId: 'CARRIER-7' });
    const both = await translate(interchange([po('TD5*B*2*ABCD', 'N1*CA*Fast Freight*2*FFRT', 'PO1*1*1*EA')]));
    expect(documentOf(both.sets[0])?.carrier).toEqual({ coreName: 'SCAC', coreId: 'ABCD' });
  });
});

describe('the order of each 856 load', () => {
  const asn = (...levels: string[]): [string, string[]] => [
    '856',
    ['BSN*00*ASN-1*20260105*0930', 'HL*1**S', ...PARTIES, ...levels],
  ];

  it('is PRF01 of its order level, so two loads of one product from two orders are told apart', async () => {
    const result = await translate(
      interchange([
        asn(
          'HL*2*1*O',
          'PRF*PO-7001',
          'HL*3*2*P',
          'HL*4*3*I',
          'LIN**SK*SKU-100',
          'SN1**12*CA',
          'HL*5*1*O',
          'PRF*PO-7002',
          'HL*6*5*I',
          'LIN**SK*SKU-100',
          'SN1**3*CA',
        ),
      ]),
    );
    const document = documentOf(result.sets[0])!;
    expect(document.loads).toEqual([
      { name: 'SKU-100', quantity: 12, loadTag: 'SKU-100' },
      { name: 'SKU-100', quantity: 3, loadTag: 'SKU-100' },
    ]);
    expect(document.attributes).toMatchObject({ loadOrders: '1=PO-7001; 2=PO-7002' });
  });

  it('is written as runs of consecutive loads of one order, a load without one ending a run', async () => {
    const item = (hl: number, parent: number, lin: string) => [`HL*${hl}*${parent}*I`, lin, 'SN1**1*EA'];
    const result = await translate(
      interchange([
        asn(
          'HL*2*1*O',
          'PRF*PO-A',
          ...item(3, 2, 'LIN**SK*1'),
          ...item(4, 2, 'LIN**SK*2'),
          ...item(5, 2, 'LIN**SK*3'),
          'HL*6*1*O',
          ...item(7, 6, 'LIN**SK*4'),
          ...item(8, 6, 'LIN**SK*5*PO*PO-B'),
          'HL*9*1*O',
          'PRF*PO-A',
          ...item(10, 9, 'LIN**SK*6'),
        ),
      ]),
    );
    expect(documentOf(result.sets[0])!.attributes).toMatchObject({ loadOrders: '1-3=PO-A; 5=PO-B; 6=PO-A' });
  });

  it('is the PO in its LIN when no order level names one (pick and pack, S/I)', async () => {
    const result = await translate(
      interchange([asn('HL*2*1*I', 'LIN**SK*SKU-1*PO*PO-9', 'SN1**1*EA', 'HL*3*1*I', 'LIN**SK*SKU-2', 'SN1**2*EA')]),
    );
    const attributes = documentOf(result.sets[0])!.attributes as Record<string, string>;
    expect(attributes.loadOrders).toBe('1=PO-9');
  });

  it('is found through the parent pointers when levels come out of input order', async () => {
    const result = await translate(
      interchange([asn('HL*3*2*I', 'LIN**SK*SKU-1', 'SN1**1*EA', 'HL*2*1*O', 'PRF*PO-5')]),
    );
    expect(documentOf(result.sets[0])!.attributes).toMatchObject({ loadOrders: '1=PO-5' });
    // Numbered in order, but an item under an order level closed before it.
    const late = await translate(
      interchange([asn('HL*2*1*O', 'PRF*PO-6', 'HL*3*1*O', 'PRF*PO-7', 'HL*4*2*I', 'LIN**SK*SKU-1', 'SN1**1*EA')]),
    );
    expect(documentOf(late.sets[0])!.attributes).toMatchObject({ loadOrders: '1=PO-6' });
  });
});

describe('our interchange id and the acknowledgment kind', () => {
  it('answers from the qualifier and id the partner addressed: 01 stays 01, GS02/GS03 swapped', async () => {
    const result = await translate(
      interchange([po('PO1*1*1*EA')], {
        sender: '925133417',
        senderQualifier: '01',
        receiverQualifier: '01',
        receiver: '5551234567',
      }),
    );
    const [isa, gs] = result.acknowledgments[0].content.split('\n');
    expect(isa).toContain('*01*5551234567     *01*925133417      *');
    expect(gs).toMatch(/^GS\*FA\*5551234567\*925133417\*/);
  });

  it('answers from the profile’s interchange id when it has one', async () => {
    const result = await translate(interchange([po('PO1*1*1*EA')]), {
      acknowledgment: { interchangeId: { qualifier: '12', id: '8005551234' } },
    });
    expect(result.acknowledgments[0].content.split('\n')[0]).toContain('*12*8005551234     *ZZ*KETTLESUPPLY   *');
  });

  it('writes a 999 for a 5010 interchange of a partner set to 999, and a 997 for its 4010 ones', async () => {
    const settings = { acknowledgment: { kind: '999' as const } };
    const five = await translate(interchange([po('PO1*1*three*EA')], { version: '00501' }), settings);
    expect(five.acknowledgments[0].kind).toBe('999');
    expect(five.acknowledgments[0].content).toContain('ST*999*0001*005010X231A1~');
    expect(five.acknowledgments[0].content).toContain('IK3*PO1*5**8~\nIK4*2**6*three~\nIK5*R*5~');
    const four = await translate(interchange([po('PO1*1*1*EA')]), settings);
    expect(four.acknowledgments[0].kind).toBe('997');
    expect(four.acknowledgments[0].content).toContain('ST*997*0001~');
  });
});

describe('sets with segment syntax errors', () => {
  // PO106 without PO107: syntax note P0607.
  const broken = interchange([po('PO1*1*4*EA***SK', 'PO1*2*5*EA***SK*SKU-2')]);

  it('are accepted with errors by default, and a load that lost its product id says so', async () => {
    const result = await translate(broken);
    expect(result.acknowledgments[0].content).toContain('AK5*E*5');
    const document = documentOf(result.sets[0])!;
    expect(document.loads).toEqual([
      { name: 'Item', quantity: 4 },
      { name: 'SKU-2', quantity: 5, loadTag: 'SKU-2' },
    ]);
    expect(document.attributes).toMatchObject({
      productIdErrors: 'load 1: PO107 missing (P0607), its product id dropped',
    });
  });

  it('are rejected, with nothing delivered, for a partner set to rejectSetsWithSegmentErrors', async () => {
    const result = await translate(broken, { rejectSetsWithSegmentErrors: true });
    expect(result.acknowledgments[0].content).toContain('AK5*R*5');
    expect(result.sets[0]).toMatchObject({ rejected: true, documentId: 'PO-1' });
    expect(result.sets[0].operation).toBeUndefined();
    expect(result.operations).toEqual([]);
    expect(result.sets[0].diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/^PO107: syntax note P0607 violated .*rejectSetsWithSegmentErrors/),
    ]);
  });
});

describe('sets of a refused interchange', () => {
  it('from an unknown sender are listed as refused with their document id, never with an operation', async () => {
    const result = await translate(interchange([po('PO1*1*1*EA')], { sender: 'STRANGER' }));
    expect(result.acknowledgments.map((a) => a.kind)).toEqual(['TA1']);
    expect(result.sets).toEqual([
      expect.objectContaining({ documentId: 'PO-1', rejected: true, interchangeRefused: true }),
    ]);
    expect(result.sets[0].operation).toBeUndefined();
    expect(result.sets[0].diagnostics[0].message).toMatch(
      /^interchange 000000116 was refused: interchange sender "STRANGER"/,
    );
  });

  it('refused by a TA1 at its end lose the operation they were mapped to', async () => {
    const raw = interchange([po('PO1*1*1*EA')]).replace('IEA*1*000000116', 'IEA*1*000000999');
    const result = await translate(raw);
    expect(result.acknowledgments.map((a) => a.kind)).toEqual(['TA1']);
    expect(result.sets[0]).toMatchObject({ rejected: true, interchangeRefused: true, documentId: 'PO-1' });
    expect(result.sets[0].operation).toBeUndefined();
    expect(result.operations).toEqual([]);
  });

  it('of a second copy in the file are refused; the first copy’s are delivered', async () => {
    const one = interchange([po('PO1*1*1*EA')]);
    const result = await translate(`${one}~\n${one}~`);
    expect(result.sets.map((s) => [s.interchangeRefused ?? false, s.operation !== undefined])).toEqual([
      [false, true],
      [true, false],
    ]);
  });
});

describe('envelope problems', () => {
  it('a truncated interchange names everything missing: no SE, no GE, no IEA', async () => {
    const raw = interchange([po('PO1*1*1*EA')])
      .split('~\n')
      .slice(0, -3)
      .join('~\n');
    const result = await translate(raw);
    expect(result.interchanges[0].refused).toBe(true);
    expect(result.interchanges[0].reason).toMatch(
      /has no SE.*functional group 17 has no GE.*interchange 000000116 has no IEA/,
    );
  });

  it('a set refused by the envelope check keeps its document id', async () => {
    const raw = interchange([['856', ['BSN*00*ASN-77*20260105*0930', 'HL*1**S']]]).replace('SE*4*0001', 'SE*9*0001');
    const result = await translate(raw);
    expect(result.sets[0]).toMatchObject({ envelopeRejected: true, rejected: true, documentId: 'ASN-77' });
  });
});
