import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  acknowledgeGroup,
  acknowledgeSet,
  build997,
  build999,
  buildTA1,
  FunctionalAcknowledgmentWriter,
  ta1NoteCode,
} from './acknowledgment';
import { summaryOf } from './envelope.reader';
import { parseX12, readX12 } from './reader';
import type { Problem, Segment } from './x12.types';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const options = { senderId: 'DOCKBRIDGE', controlNumber: 42, date: new Date('2026-01-02T03:04:00Z') };
const rows = (segments: Segment[]) => segments.map((s) => [s.tag, ...s.elements].join('*'));

/** Reads an acknowledgment back with our reader: it must be a clean interchange. */
function readBack(text: string) {
  const doc = parseX12(text);
  expect(doc.problems).toEqual([]);
  return doc.interchanges[0];
}

describe('997 functional acknowledgment', () => {
  it('accepts a clean group: AK1, AK2/AK5 A per set, AK9 A with counts', () => {
    const received = parseX12(fixture('pipe-single-line-4-sets.x12')).interchanges[0];
    const ack = readBack(build997(received, options));
    expect(ack.fields).toMatchObject({
      senderId: 'DOCKBRIDGE     ',
      receiverId: 'KETTLESUPPLY   ',
      controlNumber: '000000042',
      usage: 'T',
      version: '00401',
    });
    expect(ack.groups[0]).toMatchObject({
      functionalId: 'FA',
      senderCode: 'DOCKBRIDGE',
      receiverCode: 'KETTLESUPPLY',
      control: '42',
    });
    const set = ack.groups[0].transactionSets[0];
    expect(set.id).toBe('997');
    expect(rows(set.segments.slice(1, -1))).toEqual([
      'AK1*PO*2',
      'AK2*850*0001',
      'AK5*A',
      'AK2*850*0002',
      'AK5*A',
      'AK2*850*0003',
      'AK5*A',
      'AK2*850*0004',
      'AK5*A',
      'AK9*A*4*4*4',
    ]);
  });

  it('leads with a TA1 when ISA14 asks for an interchange acknowledgment (table I13: 1)', () => {
    const text = fixture('pipe-single-line-4-sets.x12');
    const asked = parseX12(text.replace(/^(ISA(\|[^|]*){13})\|0\|/, '$1|1|')).interchanges[0];
    expect(asked.fields.acknowledgmentRequested).toBe('1');
    const f = asked.fields;
    const lines = build997(asked, options).split('\n');
    expect(lines[1]).toBe(`TA1*${f.controlNumber}*${f.date}*${f.time}*A*000~`);
    expect(lines[2]).toMatch(/^GS\*FA\*/);
    expect(readBack(lines.join('\n')).groups).toHaveLength(1);
    const notAsked = parseX12(text).interchanges[0];
    expect(notAsked.fields.acknowledgmentRequested).toBe('0');
    expect(build997(notAsked, options)).not.toContain('TA1');
  });

  it('writes one 997 per functional group; rejects a duplicate ST02 (AK5 R 23, AK9 P)', () => {
    const received = parseX12(fixture('plus-component-duplicate-st02.x12')).interchanges[0];
    const ack = readBack(build997(received, options));
    const [first, second] = ack.groups[0].transactionSets;
    expect(ack.groups[0].transactionSets).toHaveLength(2);
    expect(rows(first.segments.slice(1, -1))).toEqual([
      'AK1*PO*3',
      'AK2*850*0001',
      'AK5*A',
      'AK2*850*0001',
      'AK5*R*23',
      'AK9*P*2*2*1',
    ]);
    expect(rows(second.segments.slice(1, -1))).toEqual(['AK1*PO*4', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
  });

  it('names segment and element errors with AK3/AK4 (set accepted with errors)', () => {
    const received = parseX12(fixture('broken-syntax-notes.edi')).interchanges[0];
    const set = readBack(build997(received, options)).groups[0].transactionSets[0];
    expect(rows(set.segments.slice(1, -1))).toEqual([
      'AK1*PO*17',
      'AK2*850*0001',
      'AK3*PO1*10**8',
      'AK4*7**2',
      'AK3*PO4*12**8',
      'AK4*6**2',
      'AK5*E*5',
      'AK9*E*1*1*1',
    ]);
    const strict = acknowledgeGroup(received.groups[0], { rejectSetsWithSegmentErrors: true });
    expect([strict.status, strict.sets[0].status]).toEqual(['R', 'R']);
  });

  it('rejects a set whose SE01 is wrong (AK5 R 4)', () => {
    const received = parseX12(fixture('broken-se01-mismatch.edi')).interchanges[0];
    const set = readBack(build997(received, options)).groups[0].transactionSets[0];
    expect(rows(set.segments.slice(1, -1))).toEqual(['AK1*PO*14', 'AK2*850*000000010', 'AK5*R*4', 'AK9*R*1*1*0']);
  });

  it('notes a group without GE (AK9 E 3) whose set is accepted', () => {
    const received = parseX12(fixture('broken-missing-ge-iea.edi')).interchanges[0];
    const set = readBack(build997(received, options)).groups[0].transactionSets[0];
    expect(rows(set.segments).slice(-3, -1)).toEqual(['AK5*A', 'AK9*E*1*1*1*3']);
  });

  it('answers a 5010 interchange in 5010 (AK103 version, ISA11 ^)', () => {
    const received = parseX12(fixture('caret-repetition-crlf-856.edi')).interchanges[0];
    const ack = readBack(build997(received, options));
    expect(ack.fields.version).toBe('00501');
    expect(ack.delimiters.repetition).toBe('^');
    expect(rows(ack.groups[0].transactionSets[0].segments)[1]).toBe('AK1*SH*6*005010');
  });

  it('refuses control numbers out of range', () => {
    const received = parseX12(fixture('star-tilde-lf-850.edi')).interchanges[0];
    expect(() => build997(received, { ...options, controlNumber: 0 })).toThrow(RangeError);
  });
});

describe('TA1 interchange acknowledgment', () => {
  it('rejects an interchange whose IEA02 differs from ISA13 with note 001', () => {
    const received = parseX12(fixture('broken-isa13-iea02-mismatch.edi')).interchanges[0];
    expect(ta1NoteCode(received)).toBe('001');
    const ack = readBack(buildTA1(received, undefined, options));
    expect(ack.groups).toEqual([]);
    expect(ack.trailer?.elements).toEqual(['0', '000000042']);
  });

  it('carries ISA13, date and time of the received interchange', () => {
    const received = parseX12(fixture('broken-missing-ge-iea.edi')).interchanges[0];
    expect(ta1NoteCode(received)).toBe('023');
    const text = buildTA1(received, undefined, options);
    expect(text.split('\n')[1]).toBe('TA1*000000114*260105*0930*R*023~');
  });

  it('maps ISA field and count problems to their note codes', () => {
    const text = fixture('star-tilde-lf-850.edi');
    expect(ta1NoteCode(parseX12(text).interchanges[0])).toBeUndefined();
    expect(ta1NoteCode(parseX12(text.replace('IEA*1*', 'IEA*2*')).interchanges[0])).toBe('021');
    expect(ta1NoteCode(parseX12(text.replace('*260105*0930*', '*2601X5*0930*')).interchanges[0])).toBe('014');
    expect(ta1NoteCode(parseX12(text.replace(/GS\*.*\n/, '')).interchanges[0])).toBe('024');
    expect(buildTA1(parseX12(text).interchanges[0], undefined, options).split('\n')[1]).toBe(
      'TA1*000000101*260105*0930*A*000~',
    );
  });
});

describe('acknowledgment codes by problem (X12 tables 717, 716 and TA105)', () => {
  const problem = (code: Problem['code'], more: Partial<Problem> = {}): Problem => ({
    code,
    severity: 'error',
    message: code,
    ...more,
  });
  const set = (problems: Problem[]) => acknowledgeSet({ id: '850', control: '0001', segmentCount: 5, problems });

  it.each([
    ['SET_NOT_SUPPORTED', {}, '1'],
    ['MISSING_SE', {}, '2'],
    ['ST02_SE02_MISMATCH', {}, '3'],
    ['SE01_SEGMENT_COUNT', {}, '4'],
    ['SEGMENT_TOO_LONG', {}, '5'],
    ['INVALID_SEGMENT_TAG', { setPosition: 3, tag: 'ZZZZ' }, '5'],
    ['ST_INVALID', { element: 1 }, '6'],
    ['ST_INVALID', { element: 2 }, '7'],
    ['DUPLICATE_ST02', {}, '23'],
  ] as const)('AK5 rejects a set with %s %j: code %s', (code, more, ak5) => {
    const ack = set([problem(code, more)]);
    expect([ack.status, ack.codes]).toEqual(['R', [ak5]]);
  });

  it('says an unrecognized segment in AK3 (code 1, its tag cut to 3), with no AK4', () => {
    const ack = set([problem('INVALID_SEGMENT_TAG', { setPosition: 3, tag: 'ZZZZ', element: 2 })]);
    expect(ack.segmentErrors).toEqual([{ tag: 'ZZZ', position: 3, code: '1', elements: [] }]);
    expect(set([problem('INVALID_SEGMENT_TAG', { setPosition: 4 })]).segmentErrors[0].tag).toBe('');
  });

  it('gives AK502..AK506 at most: five codes', () => {
    const ack = set(
      [
        'SET_NOT_SUPPORTED',
        'MISSING_SE',
        'ST02_SE02_MISMATCH',
        'SE01_SEGMENT_COUNT',
        'SEGMENT_TOO_LONG',
        'DUPLICATE_ST02',
      ].map((c) => problem(c as Problem['code'])),
    );
    expect(ack.codes).toEqual(['1', '2', '3', '4', '5']);
  });

  it('gives an implementation reference (ST03) back when the set had one', () => {
    expect(
      acknowledgeSet({ id: '850', control: '1', segmentCount: 3, problems: [], implementationReference: 'X1' }),
    ).toEqual({
      id: '850',
      control: '1',
      implementationReference: 'X1',
      status: 'A',
      codes: [],
      segmentErrors: [],
      problems: [],
    });
  });

  const received = parseX12(fixture('star-tilde-lf-850.edi')).interchanges[0];
  const group = (problems: Problem[]) => acknowledgeGroup({ ...received.groups[0], problems });

  it.each([
    ['MISSING_GE', {}, ['3']],
    ['GS06_GE02_MISMATCH', {}, ['4']],
    ['GE01_SET_COUNT', {}, ['5']],
    ['GS_INVALID', { element: 6 }, ['6']],
    ['GS_INVALID', { element: 2 }, []],
  ] as const)(
    'AK9 notes %s %j on a group whose sets are accepted (E, codes %j), and rejects none of them',
    (code, more, codes) => {
      // Each set is accepted or not by its own AK5 and delivered when accepted: an R here would have
      // the partner send again sets that went out.
      const ack = group([problem(code, more)]);
      expect([ack.status, ack.codes, ack.accepted]).toEqual(['E', codes, 1]);
      const ok = received.groups[0].summaries[0];
      const bad = { ...ok, control: '0002', problems: [problem('MISSING_SE')] };
      const some = acknowledgeGroup({ ...received.groups[0], problems: [problem(code, more)], summaries: [ok, bad] });
      expect([some.status, some.codes, some.accepted]).toEqual(['P', codes, 1]);
      const none = acknowledgeGroup({ ...received.groups[0], problems: [problem(code, more)], summaries: [bad] });
      expect([none.status, none.codes, none.accepted]).toEqual(['R', codes, 0]);
    },
  );

  it('accepts with errors a group with segments between its sets, or with a warning', () => {
    expect(group([problem('SEGMENT_OUTSIDE_SET')])).toMatchObject({ status: 'E', codes: [], accepted: 1 });
    expect(group([problem('GE01_SET_COUNT', { severity: 'warning' })])).toMatchObject({
      status: 'E',
      codes: [],
      accepted: 1,
    });
  });

  it('partly accepts a group where some sets are rejected (AK9 P), and rejects one where all are', () => {
    const ok = received.groups[0].summaries[0];
    const bad = { ...ok, control: '0002', problems: [problem('MISSING_SE')] };
    expect(acknowledgeGroup({ ...received.groups[0], summaries: [ok, bad] })).toMatchObject({
      status: 'P',
      included: 1, // GE01 says 1
      received: 2,
      accepted: 1,
    });
    expect(acknowledgeGroup({ ...received.groups[0], summaries: [bad] })).toMatchObject({ status: 'R', accepted: 0 });
    expect(acknowledgeGroup({ ...received.groups[0], summaries: [] })).toMatchObject({ status: 'A', received: 0 });
    const withErrors = {
      ...ok,
      problems: [problem('SYNTAX_NOTE', { setPosition: 4, tag: 'N1', element: 2, note: 'R0203' })],
    };
    expect(acknowledgeGroup({ ...received.groups[0], summaries: [withErrors] })).toMatchObject({
      status: 'E',
      accepted: 1,
    });
  });

  const interchange = (problems: Problem[]) => ({ ...received, problems });
  it.each([
    [1, '010'],
    [2, '011'],
    [3, '012'],
    [4, '013'],
    [5, '005'],
    [6, '006'],
    [7, '007'],
    [8, '008'],
    [9, '014'],
    [10, '015'],
    [11, '016'],
    [12, '017'],
    [13, '018'],
    [14, '019'],
    [15, '020'],
    [16, '027'],
    [17, '022'],
    [undefined, '022'],
  ])('TA105 for a bad ISA%s is %s', (element, note) => {
    expect(ta1NoteCode(interchange([problem('ISA_FIELD_INVALID', element ? { element } : {})]))).toBe(note);
  });

  it.each([
    ['ISA13_IEA02_MISMATCH', '001'],
    ['IEA01_GROUP_COUNT', '021'],
    ['MISSING_IEA', '023'],
    ['SEGMENT_OUTSIDE_GROUP', '024'],
    ['GE_WITHOUT_GS', '024'],
    ['MISSING_GE', undefined],
  ] as const)('TA105 for %s is %s', (code, note) => {
    expect(ta1NoteCode(interchange([problem(code)]))).toBe(note);
  });

  it('leaves warnings out of the TA1', () => {
    expect(
      ta1NoteCode(interchange([problem('ISA_FIELD_INVALID', { severity: 'warning', element: 9 })])),
    ).toBeUndefined();
    expect(ta1NoteCode(interchange([problem('MISSING_IEA', { severity: 'warning' }), problem('MISSING_IEA')]))).toBe(
      '023',
    );
  });
});

describe('acknowledgment envelopes', () => {
  const date = new Date('2026-01-02T03:04:00Z');
  const text = fixture('star-tilde-lf-850.edi')
    .replace('*ZZ*KETTLESUPPLY   *ZZ*DOCKBRIDGE     *', '*01*KETTLESUPPLY   *08*DOCKBRIDGE     *')
    .replace('GS*PO*KETTLESUPPLY*DOCKBRIDGE*', 'GS*PO* KETTLESUPPLY * DOCKBRIDGE *')
    .replace('ST*850*0001~', 'ST*850*0001*X1~')
    .replace('*T*>~', '*X*>~');
  const received = parseX12(text).interchanges[0];

  it('answers a 4010 interchange in 5010 when asked, with its repetition separator, ST03 and GS08 in AK2/AK1', () => {
    expect(
      build997(received, { controlNumber: 999_999_999, date, version: '00501', delimiters: { repetition: '!' } }).split(
        '\n',
      ),
    ).toEqual([
      'ISA*00*          *00*          *08*DOCKBRIDGE     *01*KETTLESUPPLY   *260102*0304*!*00501*999999999*0*P*>~',
      'GS*FA*DOCKBRIDGE*KETTLESUPPLY*20260102*0304*999999999*X*005010~',
      'ST*997*0001~',
      'AK1*PO*1*004010~',
      'AK2*850*0001*X1~',
      'AK5*A~',
      'AK9*A*1*1*1~',
      'SE*6*0001~',
      'GE*1*999999999~',
      'IEA*1*999999999~',
    ]);
  });

  it('answers a 4010 interchange in 4010 by default: no ST03, no GS08 in AK1, ISA11 U', () => {
    const lines = build997(received, { controlNumber: 1, date }).split('\n');
    expect(lines[0]).toBe(
      'ISA*00*          *00*          *08*DOCKBRIDGE     *01*KETTLESUPPLY   *260102*0304*U*00401*000000001*0*P*>~',
    );
    expect(lines.slice(1, 5)).toEqual([
      'GS*FA*DOCKBRIDGE*KETTLESUPPLY*20260102*0304*1*X*004010~',
      'ST*997*0001~',
      'AK1*PO*1~',
      'AK2*850*0001~',
    ]);
  });

  it('answers an interchange without groups from its ISA ids', () => {
    expect(
      build997({ ...received, groups: [] }, { controlNumber: 1, date })
        .split('\n')
        .slice(1),
    ).toEqual(['GS*FA*DOCKBRIDGE*KETTLESUPPLY*20260102*0304*1*X*004010~', 'GE*0*1~', 'IEA*1*000000001~']);
    const blank = { ...received.groups[0], senderCode: ' ', receiverCode: '' };
    expect(
      build997({ ...received, groups: [blank] }, { controlNumber: 1, date, receiverId: 'THEM' }).split('\n')[1],
    ).toBe('GS*FA*DOCKBRIDGE*THEM*20260102*0304*1*X*004010~');
  });

  it('writes the 999 in 5010, with ids of at most 15 characters and the qualifiers and usage given', () => {
    const lines = build999(received, {
      controlNumber: 3,
      date,
      senderId: 'S'.repeat(20),
      receiverId: 'R'.repeat(20),
      senderQualifier: 'ZZ',
      receiverQualifier: '12',
      usage: 'I',
    }).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'ISA*00*          *00*          *ZZ*SSSSSSSSSSSSSSS*12*RRRRRRRRRRRRRRR*260102*0304*^*00501*000000003*0*I*>~',
      'GS*FA*DOCKBRIDGE*KETTLESUPPLY*20260102*0304*3*X*005010X231A1~',
      'ST*999*0001*005010X231A1~',
    ]);
  });

  it('answers with ZZ and DOCKBRIDGE when the ISA has no qualifiers or receiver id', () => {
    const fields = { ...received.fields, senderQualifier: '  ', receiverQualifier: '  ', receiverId: ' '.repeat(15) };
    expect(build997({ ...received, fields, groups: [] }, { controlNumber: 1, date }).split('\n')[0]).toBe(
      'ISA*00*          *00*          *ZZ*DOCKBRIDGE     *ZZ*KETTLESUPPLY   *260102*0304*U*00401*000000001*0*P*>~',
    );
  });

  it('writes a TA1 with ISA13, ISA09 and ISA10 of the interchange it answers, trimmed', () => {
    const fields = {
      ...received.fields,
      controlNumber: ' 000000101',
      date: '260105 ',
      time: ' 0930',
      version: '00501',
    };
    expect(buildTA1({ ...received, fields }, '005', { controlNumber: 12, date }).split('\n')).toEqual([
      'ISA*00*          *00*          *08*DOCKBRIDGE     *01*KETTLESUPPLY   *260102*0304*^*00501*000000012*0*P*>~',
      'TA1*000000101*260105*0930*R*005~',
      'IEA*0*000000012~',
    ]);
  });

  it.each([0, -1, 1.5, 1_000_000_000])('refuses control number %s', (n) => {
    expect(() => build997(received, { controlNumber: n, date })).toThrow(
      new RangeError(`control number ${n} must be an integer in 1..999999999`),
    );
  });

  it('copies bad data into AK404 only when it has no separator of the acknowledgment or control character', () => {
    const copy = (value: string, version?: '00401' | '00501', delimiters?: { segment: string }) => {
      const summary = {
        ...received.groups[0].summaries[0],
        problems: [
          {
            code: 'APPLICATION_ERROR',
            severity: 'error',
            message: 'bad',
            setPosition: 4,
            tag: 'REF',
            element: 2,
            value,
          } as Problem,
        ],
      };
      const ack = build997(
        { ...received, groups: [{ ...received.groups[0], summaries: [summary] }] },
        { controlNumber: 1, date, version, delimiters },
      );
      return ack.split('\n').find((l) => l.startsWith('AK4'));
    };
    expect(copy('A B')).toBe('AK4*2**7*A B~');
    expect(copy('A^B')).toBe('AK4*2**7*A^B~');
    expect(copy('A^B', '00501')).toBe('AK4*2**7~');
    expect(copy('A!B', '00501')).toBe('AK4*2**7*A!B~');
    expect(copy('A~B', '00401', { segment: "'" })).toBe("AK4*2**7*A~B'");
    expect(copy('A\tB')).toBe('AK4*2**7~');
    expect(copy('A\x7fB')).toBe('AK4*2**7~');
    expect(copy('Aé')).toBe('AK4*2**7~');
  });
});

describe('FunctionalAcknowledgmentWriter: a 997 written as the sets are read', () => {
  /** Reads `text` streaming and writes its acknowledgment as the events come, taking text after each set. */
  async function streamed(text: string, kind: '997' | '999', beginAfterSets: number): Promise<string> {
    let writer: FunctionalAcknowledgmentWriter | undefined;
    const parts: string[] = [];
    let sets = 0;
    for await (const event of readX12([text])) {
      if (event.type === 'interchange') {
        writer = new FunctionalAcknowledgmentWriter(kind, event.interchange, options);
      } else if (event.type === 'group') {
        writer!.openGroup(event.group);
      } else if (event.type === 'transactionSet') {
        writer!.set(summaryOf(event.transactionSet));
        if (++sets === beginAfterSets) {
          writer!.begin(options.controlNumber);
        }
        parts.push(writer!.take());
      } else if (event.type === 'groupEnd') {
        writer!.closeGroup(event.group);
      } else if (event.type === 'interchangeEnd') {
        expect(event.interchange.groups.every((g) => g.summaries.length === 0)).toBe(true);
        if (!writer!.started) {
          writer!.begin(options.controlNumber);
        }
        writer!.end();
        parts.push(writer!.take());
      }
    }
    return parts.join('');
  }

  it.each([
    ['pipe-single-line-4-sets.x12', 2],
    ['plus-component-duplicate-st02.x12', 1],
    ['broken-syntax-notes.edi', 0],
    ['broken-missing-ge-iea.edi', 1],
    ['caret-repetition-crlf-856.edi', 1],
  ])('writes %s as build997/build999 write it whole, its ISA begun after set %s', async (name, after) => {
    const text = fixture(name);
    const whole = parseX12(text).interchanges[0];
    expect(await streamed(text, '997', after)).toBe(build997(whole, options));
    expect(await streamed(text, '999', after)).toBe(build999(whole, options));
  });

  it('gives no text before its ISA, and refuses a second ISA or an end without one', () => {
    const received = parseX12(fixture('pipe-single-line-4-sets.x12')).interchanges[0];
    const writer = new FunctionalAcknowledgmentWriter('997', received, options);
    writer.openGroup(received.groups[0]);
    expect(writer.pending).toBeGreaterThan(0);
    expect(writer.take()).toBe('');
    expect(() => writer.end()).toThrow(/begin/);
    writer.begin(1);
    expect(() => writer.begin(2)).toThrow(/ISA already/);
    expect(writer.take()).toMatch(/^ISA\*.*\nGS\*FA\*.*\nST\*997\*0001~\nAK1\*PO\*2~\n$/);
    expect(writer.pending).toBe(0);
  });

  it('will not write a streamed group whole: it kept no summaries', () => {
    const received = parseX12(fixture('pipe-single-line-4-sets.x12')).interchanges[0];
    const streamedGroup = { ...received.groups[0], summaries: [] };
    expect(() => build997({ ...received, groups: [streamedGroup] }, options)).toThrow(/keeps no summaries/);
  });
});
