import { DEFAULT_MAX_SET_SEGMENTS } from '@dockbridge/x12';
import { EMPTY_DIRECTORY } from './edi-types';
import {
  type EdiEvent,
  MAX_GROUPS_PER_INTERCHANGE,
  MAX_INTERCHANGES_PER_PAYLOAD,
  translateEdi,
  translateEdiEvents,
} from './interchange-translation';

const inputOf = (raw: string) => ({
  raw,
  settings: { organisationId: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f', coreName: 'ACME', locationCodes: ['DC01'] },
  senderIds: ['KETTLESUPPLY'],
  directory: EMPTY_DIRECTORY,
  nextControlNumber: async () => 1,
  now: new Date('2026-01-06T10:15:00Z'),
});
const translate = (raw: string) => translateEdi(inputOf(raw));

/** A functional group (GS06 `n`) of one 850, PO-`n`. */
const groupOfOnePo = (n: number) => [
  `GS*PO*KETTLESUPPLY*DOCKBRIDGE*20260106*1015*${n}*X*004010`,
  'ST*850*0001',
  `BEG*00*SA*PO-${n}**20260106`,
  'N1*ST*ACME DC 01*92*DC01',
  'PO1*1*12*CA*9.50**SK*SKU-100',
  'SE*5*0001',
  `GE*1*${n}`,
];
const isa = (control: string) =>
  `ISA*00*          *00*          *ZZ*KETTLESUPPLY   *ZZ*DOCKBRIDGE     *260106*1015*U*00401*${control}*0*P*>`;

/** Interchange 000000001 of `lines` (its IEA01 counting their groups); `isaOf` may change its ISA. */
const interchangeOf = (lines: string[], isaOf = (text: string) => text) =>
  [isaOf(isa('000000001')), ...lines, `IEA*${lines.filter((l) => l.startsWith('GS*')).length}*000000001`].join('~\n') +
  '~';
/** A group of one 997: the partner's own acknowledgment. */
const GROUP_OF_997S = [
  'GS*FA*KETTLESUPPLY*DOCKBRIDGE*20260106*1015*2*X*004010',
  'ST*997*0001',
  'AK1*PO*77',
  'AK9*A*1*1*1',
  'SE*4*0001',
  'GE*1*2',
];
/** A group (GS06 1) holding the set `lines`. */
const groupOf = (...lines: string[]) => ['GS*PO*KETTLESUPPLY*DOCKBRIDGE*20260106*1015*1*X*004010', ...lines, 'GE*1*1'];

describe('translateEdi: payloads that open no interchange', () => {
  it.each([
    ['text that is not X12', 'hello', /^data outside any interchange/],
    ['an ISA cut short', 'ISA*00*          *00*   ', /^input ends inside an ISA segment \(line 1, column 1\)/],
    ['an ISA without its 16 elements', `ISA*${'x'.repeat(600)}~`, /^ISA without 16 elements separated by "\*"/],
    [
      'an ISA whose delimiters clash',
      'ISA*00*          *00*          *ZZ*KETTLESUPPLY   *ZZ*DOCKBRIDGE     *260106*1015*U*00401*000000001*0*P**~',
      /^ISA delimiters unusable/,
    ],
  ])('names the problem of %s', async (_what, raw, reason) => {
    const result = await translate(raw);
    expect(result.interchanges).toEqual([]);
    expect(result.acknowledgments).toEqual([]);
    expect(result.problems).toEqual([expect.stringMatching(reason)]);
  });

  it('says that nothing was found when the payload is empty', async () => {
    expect((await translate('')).problems).toEqual(['no X12 interchange found (the payload must start with ISA)']);
  });
});

describe('translateEdiEvents: interchanges a payload may hold', () => {
  /** `count` interchanges of one 850 each. */
  const interchanges = (count: number) =>
    Array.from({ length: count }, (_, i) => {
      const control = String(i + 1).padStart(9, '0');
      return [isa(control), ...groupOfOnePo(i + 1), `IEA*1*${control}`].join('~\n');
    }).join('~\n') + '~\n';
  const events = async (raw: string, maxInterchanges?: number) => {
    const seen: EdiEvent[] = [];
    for await (const event of translateEdiEvents({
      ...inputOf(raw),
      ...(maxInterchanges !== undefined && { maxInterchanges }),
    })) {
      seen.push(event);
    }
    return seen;
  };

  it('reads as many as the limit', async () => {
    const seen = await events(interchanges(3), 3);
    expect(seen.filter((e) => e.type === 'interchange')).toHaveLength(3);
    expect(seen.filter((e) => e.type === 'problem')).toEqual([]);
  });

  it('refuses the payload whole at the first one past it, and reads no further', async () => {
    const seen = await events(interchanges(5), 3);
    expect(seen.filter((e) => e.type === 'interchange')).toHaveLength(3);
    expect(seen.filter((e) => e.type === 'set')).toHaveLength(3);
    expect(seen.at(-1)).toEqual({
      type: 'problem',
      refusesPayload: true,
      message:
        'the payload holds more than 3 interchanges (the next is ISA13 000000004): nothing of it is delivered or ' +
        'acknowledged; send at most 3 interchanges in a file',
    });
  });

  it(`holds ${MAX_INTERCHANGES_PER_PAYLOAD} by default`, async () => {
    const seen = await events(interchanges(MAX_INTERCHANGES_PER_PAYLOAD + 1));
    expect(seen.filter((e) => e.type === 'interchange')).toHaveLength(MAX_INTERCHANGES_PER_PAYLOAD);
    expect(seen.at(-1)).toMatchObject({ type: 'problem', refusesPayload: true });
  });
});

describe('translateEdiEvents: functional groups an interchange may hold', () => {
  /** One interchange of `count` groups of one 850 each. */
  const groups = (count: number) =>
    [
      isa('000000001'),
      ...Array.from({ length: count }, (_, i) => groupOfOnePo(i + 1)).flat(),
      `IEA*${count}*000000001`,
    ].join('~\n') + '~\n';

  it(`reads ${MAX_GROUPS_PER_INTERCHANGE} and refuses the payload whole at the next`, async () => {
    const at = await translate(groups(MAX_GROUPS_PER_INTERCHANGE));
    expect(at.problems).toEqual([]);
    expect(at.operations).toHaveLength(MAX_GROUPS_PER_INTERCHANGE);
    const over = await translate(groups(MAX_GROUPS_PER_INTERCHANGE + 1));
    expect(over.problems).toEqual([
      `interchange 000000001 holds more than ${MAX_GROUPS_PER_INTERCHANGE} functional groups (the next is GS06 ${MAX_GROUPS_PER_INTERCHANGE + 1}): nothing of the payload is delivered or acknowledged; send at most ${MAX_GROUPS_PER_INTERCHANGE} groups in an interchange`,
    ]);
    expect(over.interchanges).toEqual([]);
    expect(over.acknowledgments).toEqual([]);
  });
});

describe('translateEdi: a transaction set too long to hold', () => {
  it(`refuses a set of more than ${DEFAULT_MAX_SET_SEGMENTS} segments (AK5 R 5) and delivers the others`, async () => {
    const refs = Array.from({ length: DEFAULT_MAX_SET_SEGMENTS }, (_, i) => `REF*BM*${i}`);
    const raw =
      [
        'ISA*00*          *00*          *ZZ*KETTLESUPPLY   *ZZ*DOCKBRIDGE     *260106*1015*U*00401*000000001*0*P*>',
        'GS*PO*KETTLESUPPLY*DOCKBRIDGE*20260106*1015*1*X*004010',
        'ST*850*0001',
        'BEG*00*SA*PO-LONG**20260106',
        'N1*ST*ACME DC 01*92*DC01',
        ...refs,
        'PO1*1*12*CA*9.50**SK*SKU-100',
        `SE*${DEFAULT_MAX_SET_SEGMENTS + 5}*0001`,
        'ST*850*0002',
        'BEG*00*SA*PO-SHORT**20260106',
        'N1*ST*ACME DC 01*92*DC01',
        'PO1*1*12*CA*9.50**SK*SKU-100',
        'SE*5*0002',
        'GE*2*1',
        'IEA*1*000000001',
      ].join('~\n') + '~\n';
    const result = await translate(raw);
    expect(result.sets.filter((s) => !s.rejected).map((s) => s.documentId)).toEqual(['PO-SHORT']);
    const [long] = result.sets;
    expect(long.rejected).toBe(true);
    expect(long.diagnostics.map((d) => d.message)).toContain(
      `transaction set 850 0001 has more than ${DEFAULT_MAX_SET_SEGMENTS} segments: not read past them (line 100003, column 1)`,
    );
    const ack = result.acknowledgments[0].content;
    expect(ack).toMatch(/AK2\*850\*0001~\nAK3\*REF\*100001\*\*5~\nAK5\*R\*5~/);
    expect(ack).toMatch(/AK2\*850\*0002~\nAK5\*A~/);
    expect(ack).toMatch(/AK9\*P\*2\*2\*1~/);
  });
});

describe('translateEdi: a group whose own envelope is wrong', () => {
  const withTrailer = (trailer: string[]) => interchangeOf([...groupOfOnePo(1).slice(0, -1), ...trailer]);

  it.each([
    ['GE01 counting 3 sets', ['GE*3*1'], '5'],
    ['GE02 naming another group', ['GE*1*9'], '4'],
    ['no GE', [], '3'],
  ])('delivers its accepted set and says so: AK5 A, AK9 E with the group code (%s)', async (_what, trailer, code) => {
    const result = await translate(withTrailer(trailer));
    expect(result.operations.map((o) => o.operation.kind)).toEqual(['document.upsert']);
    const ack = result.acknowledgments[0];
    expect(ack.kind).toBe('997');
    expect(ack.content).toContain('AK5*A~');
    expect(ack.content).toContain(`AK9*E*${trailer.length ? trailer[0].split('*')[1] : '1'}*1*1*${code}~`);
  });
});

describe('translateEdi: the partner’s own acknowledgments', () => {
  it('are never acknowledged: a group of 997s beside a group of orders gets no AK1 (X12 997 notes)', async () => {
    const raw = interchangeOf([...GROUP_OF_997S, ...groupOfOnePo(1)]);
    const { acknowledgments, operations } = await translate(raw);
    expect(operations).toHaveLength(1);
    const rows = acknowledgments[0].content.split('~\n');
    // Answered to the application that sent the orders, with its one 997.
    expect(rows.filter((r) => /^(GS|ST|AK1|AK2|AK5|AK9|SE|GE)\*/.test(r))).toEqual([
      'GS*FA*DOCKBRIDGE*KETTLESUPPLY*20260106*1015*1*X*004010',
      'ST*997*0001',
      'AK1*PO*1',
      'AK2*850*0001',
      'AK5*A',
      'AK9*A*1*1*1',
      'SE*6*0001',
      'GE*1*1',
    ]);
  });
});

describe('translateEdi: the acknowledgment’s separators', () => {
  it('are the partner’s own, so what it echoes (ids holding `*` and `~`) stays whole', async () => {
    const raw =
      [
        isa('000000001').replace(/\*/g, '|').replace(/>$/, ':'),
        'GS|PO|KETTLE*SUP|DOCK~BRIDGE|20260106|1015|1|X|004010',
        'ST|850|0001',
        'BEG|00|SA|PO-1||20260106',
        'N1|ST|ACME DC 01|92|DC01',
        'PO1|1|12|CA|9.50||SK|SKU-100',
        'SE|5|0001',
        'GE|1|1',
        'IEA|1|000000001',
      ].join('!\n') + '!';
    const { acknowledgments, operations } = await translate(raw);
    expect(operations).toHaveLength(1);
    const text = acknowledgments[0].content;
    expect(text.split('\n')[0]).toMatch(/^ISA\|00\|.*\|:!$/);
    const read = await translate(text);
    expect(read.problems).toEqual([]);
    const lines = text.split('\n');
    expect(lines[1]).toBe('GS|FA|DOCK~BRIDGE|KETTLE*SUP|20260106|1015|1|X|004010!');
    expect(lines.slice(2, 8)).toEqual([
      'ST|997|0001!',
      'AK1|PO|1!',
      'AK2|850|0001!',
      'AK5|A!',
      'AK9|A|1|1|1!',
      'SE|6|0001!',
    ]);
  });
});

describe('translateEdi: ISA values a strict translator refuses', () => {
  it.each([
    ['a date that is no day (ISA09 261306)', (s: string) => s.replace('*260106*', '*261306*'), '014'],
    ['a time that is none (ISA10 2575)', (s: string) => s.replace('*1015*U', '*2575*U'), '015'],
    ['an unknown id qualifier (ISA05 99)', (s: string) => s.replace('*ZZ*KETTLESUPPLY', '*99*KETTLESUPPLY'), '005'],
    ['a version no X12 has (ISA12 99999)', (s: string) => s.replace('*00401*', '*99999*'), '017'],
  ])('refuses %s with its TA1 note, delivering nothing', async (_what, change, note) => {
    const raw = interchangeOf(groupOfOnePo(1), change);
    const { acknowledgments, operations } = await translate(raw);
    expect(operations).toEqual([]);
    expect(acknowledgments.map((a) => a.kind)).toEqual(['TA1']);
    expect(acknowledgments[0].content).toMatch(new RegExp(`^TA1\\*000000001\\*\\d{6}\\*\\d{4}\\*R\\*${note}~$`, 'm'));
  });

  it('takes a leap day', async () => {
    const raw = interchangeOf(groupOfOnePo(1), (text) => text.replace('*260106*', '*280229*'));
    expect((await translate(raw)).operations).toHaveLength(1);
  });
});

describe('translateEdi: a 997 that a strict translator reads', () => {
  const one = (set: string[]) => interchangeOf(groupOf(...set));
  const body = ['BEG*00*SA*PO-1**20260106', 'N1*ST*ACME DC 01*92*DC01', 'PO1*1*12*CA*9.50**SK*SKU-100'];
  const lines = async (raw: string) =>
    (await translate(raw)).acknowledgments[0].content.split('~\n').filter((l) => /^(AK[1-9])\*/.test(l));

  it.each([
    ['no ST02', ['ST*850', ...body, 'SE*5']],
    ['an ST01 of two characters', ['ST*85*0001', ...body, 'SE*5*0001']],
  ])('counts a set it cannot name (%s) in AK9 without an AK2', async (_what, set) => {
    expect(await lines(one(set))).toEqual(['AK1*PO*1', 'AK9*R*1*1*0']);
  });

  it('names no segment by a tag that is none (AK301 is ID 2/3): the AK5 says it', async () => {
    const found = await lines(one(['ST*850*0001', 'BEG*00*SA*PO-1**20260106', 'X*1', ...body.slice(1), 'SE*6*0001']));
    expect(found.filter((l) => l.startsWith('AK3'))).toEqual([]);
    expect(found).toContainEqual(expect.stringMatching(/^AK5\*R\*5/));
  });

  it('ends a segment at its last value: a 5010 group without GS08 is AK1*PO*1, not AK1*PO*1*', async () => {
    const raw = one(['ST*850*0001', ...body, 'SE*5*0001'])
      .replace('*00401*', '*00501*')
      .replace('*1*X*004010', '*1*X');
    expect((await lines(raw))[0]).toBe('AK1*PO*1');
  });
});

describe('translateEdi: a set of many problems', () => {
  const setOf = (body: string[]) =>
    interchangeOf(
      groupOf(
        'ST*850*0001',
        'BEG*00*SA*PO-1**20260106',
        'N1*ST*ACME DC 01*92*DC01',
        ...body,
        `SE*${body.length + 4}*0001`,
      ),
    );

  it('lists the first 50 of its diagnostics and counts the rest; its 997 names every segment', async () => {
    const { sets, acknowledgments } = await translate(setOf(Array.from({ length: 1_000 }, () => 'PO1*1*x*EA')));
    const diagnostics = sets[0].diagnostics;
    expect(sets[0].rejected).toBe(true);
    expect(diagnostics).toHaveLength(51);
    expect(diagnostics[50]).toMatchObject({
      level: 'error',
      message: 'and 950 more problem(s) in this set (its 997 names each)',
    });
    expect(acknowledgments[0].content.match(/^AK3\*PO1\*/gm)).toHaveLength(1_000);
  });

  it('lists the first 50 of its notes (segment syntax errors) and counts the rest', async () => {
    const parties = Array.from({ length: 1_000 }, () => 'N1*BY'); // R0203: neither N102 nor N104
    const { sets, acknowledgments } = await translate(setOf([...parties, 'PO1*1*12*EA']));
    expect(sets[0].rejected).toBe(false);
    expect(sets[0].notes).toHaveLength(51);
    expect(sets[0].notes[50]).toBe('and 950 more notes');
    expect(acknowledgments[0].content.match(/^AK3\*N1\*/gm)).toHaveLength(1_000);
  });
});

describe('translateEdi: from a review of the acknowledgments', () => {
  it('answers an interchange of 997s whose ISA14 asks for a TA1 with that TA1 alone, and one that does not with nothing', async () => {
    const asked = interchangeOf(GROUP_OF_997S, (text) => text.replace('*0*P*', '*1*P*'));
    const { acknowledgments } = await translate(asked);
    expect(acknowledgments.map((a) => a.kind)).toEqual(['TA1']);
    expect(acknowledgments[0].content).toMatch(/^TA1\*000000001\*260106\*1015\*A\*000~$/m);
    const notAsked = interchangeOf(GROUP_OF_997S);
    expect((await translate(notAsked)).acknowledgments).toEqual([]);
  });

  it('does not echo a qualifier outside table I05 in the TA1 that refuses it', async () => {
    const raw = interchangeOf(groupOfOnePo(1), (text) => text.replace('*ZZ*KETTLESUPPLY', '*99*KETTLESUPPLY'));
    const ta1 = (await translate(raw)).acknowledgments[0].content;
    expect(ta1).toMatch(/^ISA\*00\* {10}\*00\* {10}\*ZZ\*DOCKBRIDGE {5}\*ZZ\*KETTLESUPPLY {3}\*/);
    expect(ta1).toMatch(/^TA1\*000000001\*\d{6}\*\d{4}\*R\*005~$/m);
  });

  it('names a set whose ST02 holds a space (AN allows it) in its AK2', async () => {
    const raw = interchangeOf(groupOfOnePo(1).map((line) => line.replace('*0001', '*PO 1')));
    expect((await translate(raw)).acknowledgments[0].content).toContain('AK2*850*PO 1~');
  });
});
