import { EMPTY_DIRECTORY } from './edi-types';
import { translateEdi } from './interchange-translation';

/**
 * Each element problem the mapping finds, as its 997 says it: AK3 at the segment (position in the
 * set, ST = 1), AK4 with the X12 table 723 code and, for a wrong value, a copy of it (AK404).
 * 1 mandatory missing, 2 conditional required missing, 4 too short, 5 too long, 6 invalid
 * character, 7 invalid code value, 8 invalid date, 9 invalid time.
 */

const LOCATION = '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f';

/** One interchange with one set of the given body (segments after ST, before SE). */
function interchange(setId: string, body: string[]): string {
  const set = [`ST*${setId}*0001`, ...body, `SE*${body.length + 2}*0001`];
  return [
    'ISA*00*          *00*          *ZZ*KETTLESUPPLY   *ZZ*DOCKBRIDGE     *260105*0930*U*00401*000000116*0*T*>',
    `GS*${setId === '850' ? 'PO' : 'SH'}*KETTLESUPPLY*DOCKBRIDGE*20260105*0930*17*X*004010`,
    ...set,
    'GE*1*17',
    'IEA*1*000000116',
  ].join('~\n');
}

async function acknowledge(setId: string, body: string[]) {
  const result = await translateEdi({
    raw: interchange(setId, body),
    settings: { organisationId: LOCATION, coreName: 'ACME', locationCodes: ['DC01'] },
    senderIds: ['KETTLESUPPLY'],
    directory: EMPTY_DIRECTORY,
    nextControlNumber: async () => 1,
    now: new Date('2026-01-06T10:15:00Z'),
  });
  const ack = result.acknowledgments[0].content.split('\n').map((l) => l.replace(/~$/, ''));
  // AK3/AK4/AK5 of the set (between AK2 and AK9).
  const from = ack.findIndex((l) => l.startsWith('AK2')) + 1;
  return {
    notes: ack.slice(
      from,
      ack.findIndex((l) => l.startsWith('AK9')),
    ),
    set: result.sets[0],
  };
}

const PO_PARTIES = ['N1*ST*Main DC*92*DC01', 'N1*VN*Kettle Foods*92*SUP-KETTLE'];
const po = (beg: string, ...rest: string[]) => [beg, ...PO_PARTIES, ...(rest.length ? rest : ['PO1*1*12*EA'])];
const ASN_HEAD = ['BSN*00*ASN-1*20260105*0930', 'HL*1**S', 'N1*ST*Main DC*92*DC01', 'N1*SF*Kettle*92*SUP-KETTLE'];

describe('850: the AK4 code of each element problem', () => {
  it.each([
    ['BEG01 missing: 1', po('BEG**SA*PO-1'), ['AK3*BEG*2**8', 'AK4*1**1']],
    ['BEG01 not a purpose handled: 7 with the value', po('BEG*04*SA*PO-1'), ['AK3*BEG*2**8', 'AK4*1**7*04']],
    ['BEG03 missing: 1', po('BEG*00*SA**R2'), ['AK3*BEG*2**8', 'AK4*3**1']],
    [
      'BEG03 longer than a document id can be: 5',
      po(`BEG*00*SA*${'P'.repeat(101)}`),
      ['AK3*BEG*2**8', `AK4*3**5*${'P'.repeat(99)}`],
    ],
    // `..` would be DELETE /organisations/{id}/documents/.. = the organisation's own URL.
    ['BEG03 a dot segment: 7', po('BEG*00*SA*..'), ['AK3*BEG*2**8', 'AK4*3**7*..']],
    ['PO102 missing: 1', po('BEG*00*SA*PO-1', 'PO1*1**EA'), ['AK3*PO1*5**8', 'AK4*2**1']],
    ['PO102 not a number: 6', po('BEG*00*SA*PO-1', 'PO1*1*three*EA'), ['AK3*PO1*5**8', 'AK4*2**6*three']],
    // A minus sign is valid in an R element: -3 is a number, but not a quantity (7), unlike 3- (6).
    ['PO102 negative: 7', po('BEG*00*SA*PO-1', 'PO1*1*-3*EA'), ['AK3*PO1*5**8', 'AK4*2**7*-3']],
    ['PO102 with a sign in the wrong place: 6', po('BEG*00*SA*PO-1', 'PO1*1*3-*EA'), ['AK3*PO1*5**8', 'AK4*2**6*3-']],
    [
      'PO102 over R 1/15: 5',
      po('BEG*00*SA*PO-1', 'PO1*1*1234567890123456*EA'),
      ['AK3*PO1*5**8', 'AK4*2**5*1234567890123456'],
    ],
  ])('%s', async (_name, body, expected) => {
    const { notes, set } = await acknowledge('850', body);
    expect(notes).toEqual([...expected, 'AK5*R*5']);
    expect(set.rejected).toBe(true);
  });

  it('the 850 without a BEG: a mandatory segment missing (AK3 code 3), no AK4', async () => {
    const { notes } = await acknowledge('850', [...PO_PARTIES, 'PO1*1*12*EA']);
    expect(notes).toEqual(['AK3*BEG*2**3', 'AK5*R*5']);
  });
});

describe('dates (DTM): 2, 4, 5, 8 and 9', () => {
  it.each([
    ['an impossible date: 8', 'DTM*038*20261332', ['AK3*DTM*4**8', 'AK4*2**8*20261332']],
    ['a date of letters: 8', 'DTM*038*2026DEC1', ['AK3*DTM*4**8', 'AK4*2**8*2026DEC1']],
    ['a date too short for CCYYMMDD: 4', 'DTM*038*2026121', ['AK3*DTM*4**8', 'AK4*2**4*2026121']],
    ['a date too long: 5', 'DTM*038*202612011', ['AK3*DTM*4**8', 'AK4*2**5*202612011']],
    ['no date at all (DTM02 is conditional, R020305): 2', 'DTM*038', ['AK3*DTM*4**8', 'AK4*2**2']],
    ['an impossible time: 9', 'DTM*038*20261201*2599', ['AK3*DTM*4**8', 'AK4*3**9*2599']],
    ['a time of letters: 9', 'DTM*038*20261201*12AM', ['AK3*DTM*4**8', 'AK4*3**9*12AM']],
    ['a time too short for HHMM: 4', 'DTM*038*20261201*12', ['AK3*DTM*4**8', 'AK4*3**4*12']],
    ['a time too long: 5', 'DTM*038*20261201*123456789', ['AK3*DTM*4**8', 'AK4*3**5*123456789']],
  ])('%s', async (_name, dtm, expected) => {
    const { notes } = await acknowledge('850', [
      'BEG*00*SA*PO-1',
      'DTM*037*20261130',
      dtm,
      ...PO_PARTIES,
      'PO1*1*12*EA',
    ]);
    expect(notes).toEqual([...expected, 'AK5*R*5']);
  });

  it('an end before the begin: the end date is invalid for the window (8)', async () => {
    const { notes } = await acknowledge('850', [
      'BEG*00*SA*PO-1',
      'DTM*037*20261203',
      'DTM*038*20261201',
      ...PO_PARTIES,
    ]);
    expect(notes).toEqual(['AK3*DTM*4**8', 'AK4*2**8*20261201', 'AK5*R*5']);
  });

  it.each([
    ['D8', ['DTM*037****D8*20261130', 'DTM*038****D8*20261201'], '2026-11-30T00:00:00Z', '2026-12-01T23:59:59Z'],
    ['D6', ['DTM*037****D6*261130', 'DTM*038****D6*261201'], '2026-11-30T00:00:00Z', '2026-12-01T23:59:59Z'],
    [
      'DT',
      ['DTM*037****DT*202611300815', 'DTM*038****DT*202612011730'],
      '2026-11-30T08:15:00Z',
      '2026-12-01T17:30:00Z',
    ],
    [
      'RD8',
      ['DTM*037****RD8*20261130-20261202', 'DTM*038****RD8*20261130-20261201'],
      '2026-11-30T00:00:00Z',
      '2026-12-01T23:59:59Z',
    ],
  ])(
    'reads a date sent as a period (DTM05 %s, DTM06), which R020305 allows in place of DTM02',
    async (_f, dtms, begin, end) => {
      const { notes, set } = await acknowledge('850', ['BEG*00*SA*PO-1', ...dtms, ...PO_PARTIES]);
      expect(notes).toEqual(['AK5*A']);
      const document = (set.operation as { document: { validDates: unknown } }).document;
      expect(document.validDates).toEqual({ begin, end });
    },
  );

  it.each([
    ['a period format not read: 7 on DTM05', 'DTM*038****TM*1730', ['AK3*DTM*4**8', 'AK4*5**7*TM']],
    ['a D8 period that is no date: 8 on DTM06', 'DTM*038****D8*20261332', ['AK3*DTM*4**8', 'AK4*6**8*20261332']],
    [
      'an RD8 range ending before it begins: 8',
      'DTM*038****RD8*20261203-20261201',
      ['AK3*DTM*4**8', 'AK4*6**8*20261203-20261201'],
    ],
  ])('%s', async (_name, dtm, expected) => {
    const { notes } = await acknowledge('850', ['BEG*00*SA*PO-1', 'DTM*037*20261130', dtm, ...PO_PARTIES]);
    expect(notes).toEqual([...expected, 'AK5*R*5']);
  });

  it('an end before the begin, both sent as periods: DTM06 of the end is the invalid date (8)', async () => {
    const { notes } = await acknowledge('850', [
      'BEG*00*SA*PO-1',
      'DTM*037****D8*20261202',
      'DTM*038****D8*20261130',
      ...PO_PARTIES,
    ]);
    expect(notes).toEqual(['AK3*DTM*4**8', 'AK4*6**8*20261130', 'AK5*R*5']);
  });

  it('takes HHMMSS and HHMMSSDD as times', async () => {
    const { notes, set } = await acknowledge('850', [
      'BEG*00*SA*PO-1',
      'DTM*037*20261130*081500',
      'DTM*038*20261201*08150012',
      ...PO_PARTIES,
    ]);
    expect(notes).toEqual(['AK5*A']);
    const document = (set.operation as { document: { validDates: unknown } }).document;
    expect(document.validDates).toEqual({ begin: '2026-11-30T08:15:00Z', end: '2026-12-01T08:15:00Z' });
  });
});

describe('856: the AK4 code of each element problem', () => {
  const items = ['HL*2*1*I', 'LIN**SK*SKU-1', 'SN1**12*EA'];
  it.each([
    ['BSN01 missing: 1', ['BSN**ASN-1', ...ASN_HEAD.slice(1), ...items], ['AK3*BSN*2**8', 'AK4*1**1']],
    ['BSN01 not handled: 7', ['BSN*04*ASN-1', ...ASN_HEAD.slice(1), ...items], ['AK3*BSN*2**8', 'AK4*1**7*04']],
    ['BSN02 missing: 1', ['BSN*00**20260105', ...ASN_HEAD.slice(1), ...items], ['AK3*BSN*2**8', 'AK4*2**1']],
    ['BSN02 a dot segment: 7', ['BSN*00*.*20260105', ...ASN_HEAD.slice(1), ...items], ['AK3*BSN*2**8', 'AK4*2**7*.']],
    ['SN102 not a number: 6', [...ASN_HEAD, 'HL*2*1*I', 'SN1**12X*EA'], ['AK3*SN1*7**8', 'AK4*2**6*12X']],
    ['HL02 naming no level: 7', [...ASN_HEAD, 'HL*2*9*I', 'SN1**1*EA'], ['AK3*HL*6**8', 'AK4*2**7*9']],
    ['an item without SN1: segment missing (3)', [...ASN_HEAD, 'HL*2*1*I', 'LIN**SK*A'], ['AK3*SN1*7**3']],
  ])('%s', async (_name, body, expected) => {
    const { notes } = await acknowledge('856', body);
    expect(notes).toEqual([...expected, 'AK5*R*5']);
  });
});

describe('parties and carriers', () => {
  it('an N1 with neither N102 nor N104: conditional required missing (2), said once with the syntax note', async () => {
    const { notes } = await acknowledge('850', ['BEG*00*SA*PO-1', 'N1*ST', 'PO1*1*12*EA']);
    expect(notes).toEqual(['AK3*N1*3**8', 'AK4*2**2', 'AK5*R*5']);
  });

  it.each([
    ['TD503 of one character: 4', 'TD5*B*2*F', ['AK3*TD5*3**8', 'AK4*3**4*F']],
    ['TD503 of five: 5', 'TD5*B*2*FFRTX', ['AK3*TD5*3**8', 'AK4*3**5*FFRTX']],
    // N104 is AN 2/80: five characters fit the element, they are only no SCAC (7).
    ['N1*CA SCAC (N103 = 2) of five: 7', 'N1*CA*Fast Freight*2*FFRTX', ['AK3*N1*3**8', 'AK4*4**7*FFRTX']],
    ['N1*CA SCAC (N103 = 2) of one character: 4', 'N1*CA*Fast Freight*2*F', ['AK3*N1*3**8', 'AK4*4**4*F']],
  ])('a SCAC is 2 to 4 characters: %s', async (_name, carrier, expected) => {
    const { notes } = await acknowledge('850', ['BEG*00*SA*PO-1', carrier, ...PO_PARTIES, 'PO1*1*12*EA']);
    expect(notes).toEqual([...expected, 'AK5*R*5']);
  });
});
