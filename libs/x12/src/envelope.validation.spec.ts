import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  interchangeKey,
  isaFields,
  parseCount,
  sameControl,
  validateGroupHeader,
  validateGroupTrailer,
  validateInterchangeTrailer,
  validateIsa,
  validateSetHeader,
  validateSetTrailer,
} from './envelope.validation';
import { parseX12, tokenizeX12 } from './reader';
import { Segment } from './segment';
import type { Problem } from './x12.types';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const codes = (problems: Problem[]) => problems.map((p) => p.code);

describe('envelope validation', () => {
  it.each([
    'star-tilde-lf-850.edi',
    'pipe-single-line-4-sets.x12',
    'tilde-element-lf-terminator.x12',
    'caret-repetition-crlf-856.edi',
    'lf-terminator-856.edi',
    'bom-leading-whitespace.edi',
    'two-interchanges.edi',
    'zero-padded-se01.x12',
    'wrapped-80-columns.x12',
  ])('%s has a valid envelope', (name) => {
    const doc = parseX12(fixture(name));
    expect(doc.problems).toEqual([]);
    for (const i of doc.interchanges) {
      expect(i.trailer?.tag).toBe('IEA');
      for (const g of i.groups) {
        expect(g.trailer?.tag).toBe('GE');
      }
    }
  });

  it('accepts a zero-padded SE01 as a number', () => {
    const doc = parseX12(fixture('zero-padded-se01.x12'));
    const set = doc.interchanges[0].groups[0].transactionSets[0];
    expect(set.trailer?.elements[0]).toBe('0000000015');
    expect(set.segments).toHaveLength(15);
    expect(parseCount('0000000026')).toBe(26);
    expect(parseCount('2 6')).toBeNaN();
  });

  it('reports ISA13 != IEA02 on the IEA', () => {
    const doc = parseX12(fixture('broken-isa13-iea02-mismatch.edi'));
    expect(codes(doc.interchanges[0].problems)).toEqual(['ISA13_IEA02_MISMATCH']);
    expect(doc.interchanges[0].problems[0]).toMatchObject({
      tag: 'IEA',
      line: 27,
      column: 1,
      segmentIndex: 26,
      element: 2,
    });
  });

  it('reports SE01 != actual count on the SE, with its set position', () => {
    const doc = parseX12(fixture('broken-se01-mismatch.edi'));
    const set = doc.interchanges[0].groups[0].summaries[0];
    expect(set.problems).toEqual([
      expect.objectContaining({ code: 'SE01_SEGMENT_COUNT', tag: 'SE', setPosition: 15, line: 17 }),
    ]);
    expect(set.problems[0].message).toContain('SE01 "33" but the set has 15 segments');
  });

  it('reports a truncated file: missing GE and IEA', () => {
    const doc = parseX12(fixture('broken-missing-ge-iea.edi'));
    const i = doc.interchanges[0];
    expect(codes(i.groups[0].problems)).toEqual(['MISSING_GE']);
    expect(codes(i.problems)).toEqual(['MISSING_IEA']);
    expect(i.groups[0].summaries[0].problems).toEqual([]); // the set itself was complete
  });

  it('reports a missing SE when the next ST or the end comes first', () => {
    const text = fixture('star-tilde-lf-850.edi');
    const noSe = text.replace(/SE\*17\*0001~\n/, '');
    const doc = parseX12(noSe);
    expect(codes(doc.problems)).toEqual(['MISSING_SE']); // the truncated set still counts for GE01
    expect(doc.problems[0]).toMatchObject({ tag: 'GE' });
  });

  it('reports duplicate ST02 within a group, not across groups', () => {
    const doc = parseX12(fixture('plus-component-duplicate-st02.x12'));
    const [g1, g2] = doc.interchanges[0].groups;
    expect(g1.summaries.map((s) => codes(s.problems))).toEqual([[], ['DUPLICATE_ST02']]);
    expect(g2.summaries.map((s) => codes(s.problems))).toEqual([[]]);
  });

  it('reports ST02/SE02, GS06/GE02 mismatches and wrong GE01/IEA01 counts', () => {
    const text = fixture('star-tilde-lf-850.edi')
      .replace('SE*17*0001', 'SE*17*0002')
      .replace('GE*1*1', 'GE*2*9')
      .replace('IEA*1*', 'IEA*3*');
    expect(codes(parseX12(text).problems)).toEqual([
      'ST02_SE02_MISMATCH',
      'GE01_SET_COUNT',
      'GS06_GE02_MISMATCH',
      'IEA01_GROUP_COUNT',
    ]);
  });

  it('reports segments outside the envelope once per run', () => {
    const text = fixture('star-tilde-lf-850.edi');
    const withJunk = text
      .replace('ST*850', 'REF*X*1~\nREF*X*2~\nST*850')
      .replace(/IEA\*1\*000000101~\n/, 'IEA*1*000000101~\nN1*ST*X~\nN1*ST*Y~\n');
    const doc = parseX12(withJunk);
    expect(codes(doc.problems)).toEqual(['SEGMENT_OUTSIDE_SET', 'NO_INTERCHANGE']);
    const noGs = text.replace(/GS\*.*\n/, '');
    expect(codes(parseX12(noGs).problems)).toEqual(['SEGMENT_OUTSIDE_GROUP', 'GE_WITHOUT_GS', 'IEA01_GROUP_COUNT']);
  });

  it('checks ISA field widths and formats', () => {
    const { segments } = tokenizeX12(fixture('star-tilde-lf-850.edi'));
    expect(validateIsa(segments[0])).toEqual([]);
    const bad = { ...segments[0], elements: [...segments[0].elements] };
    bad.elements[5] = 'SHORT';
    bad.elements[12] = '00000010A';
    bad.elements[14] = 'X';
    expect(validateIsa(bad).map((p) => p.element)).toEqual([6, 13, 15]);
    expect(validateIsa({ ...bad, elements: bad.elements.slice(0, 12) })[0].message).toContain('12 elements');
  });

  it('keys interchanges by sender and ISA13 for duplicate detection', () => {
    const [a, b] = parseX12(fixture('star-tilde-lf-850.edi') + fixture('star-tilde-lf-850.edi')).interchanges;
    expect(interchangeKey(a)).toBe('ZZ/KETTLESUPPLY/000000101');
    expect(interchangeKey(a)).toBe(interchangeKey(b.fields));
  });

  it('compares control numbers with padding ignored', () => {
    expect(sameControl('0001', '1')).toBe(true);
    expect(sameControl('000003438', '000000049')).toBe(false);
    expect(sameControl('', '')).toBe(false);
  });
});

describe('envelope checks, problem by problem', () => {
  const located = { index: 3, line: 4, column: 5 };
  const where = { segmentIndex: 3, line: 4, column: 5, severity: 'error' };
  const isaOf = (elements: string[]) => Segment.of('ISA', elements, located);
  const good = [
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    'ZZ',
    'A'.padEnd(15),
    'ZZ',
    'B'.padEnd(15),
    '260105',
    '0930',
    'U',
    '00401',
    '000000001',
    '0',
    'P',
    '>',
  ];

  it('reads the ISA fields by position, empty when the ISA is short', () => {
    expect(isaFields(isaOf(good))).toEqual({
      authorizationQualifier: '00',
      authorizationInfo: ' '.repeat(10),
      securityQualifier: '00',
      securityInfo: ' '.repeat(10),
      senderQualifier: 'ZZ',
      senderId: 'A'.padEnd(15),
      receiverQualifier: 'ZZ',
      receiverId: 'B'.padEnd(15),
      date: '260105',
      time: '0930',
      standardsIdOrRepetition: 'U',
      version: '00401',
      controlNumber: '000000001',
      acknowledgmentRequested: '0',
      usage: 'P',
      componentSeparator: '>',
    });
    const none = isaFields(isaOf([]));
    expect(Object.values(none)).toEqual(Array(16).fill(''));
  });

  it.each([
    [9, '26010A', 'a YYMMDD date'],
    [9, 'A26010', 'a YYMMDD date'],
    [10, 'x930', 'an HHMM time'],
    [12, 'V0401', 'an interchange version (00200 to 00899)'],
    [10, '09:3', 'an HHMM time'],
    [12, '0040A', 'an interchange version (00200 to 00899)'],
    [13, '00000000A', '9 digits'],
    [14, '2', '0 or 1'],
    [15, 'X', 'P, T or I'],
    // Codes and values a strict translator checks (tables I01, I03, I05, I11; TA1 notes 010, 012, 005/007, 014, 015, 017).
    [1, '07', 'an authorization qualifier (00 to 06)'],
    [3, '02', 'a security qualifier (00 or 01)'],
    [5, '99', 'an interchange id qualifier (01 to 38, AM, NR, SA, SN or ZZ)'],
    [7, 'zz', 'an interchange id qualifier (01 to 38, AM, NR, SA, SN or ZZ)'],
    [9, '261306', 'a YYMMDD date'],
    [9, '261131', 'a YYMMDD date'],
    [9, '270229', 'a YYMMDD date'],
    [10, '2575', 'an HHMM time'],
    [10, '2400', 'an HHMM time'],
    [12, '99999', 'an interchange version (00200 to 00899)'],
  ])('ISA%s "%s" must be %s', (n, value, what) => {
    const elements = [...good];
    elements[n - 1] = value;
    expect(validateIsa(isaOf(elements))).toEqual([
      {
        code: 'ISA_FIELD_INVALID',
        ...where,
        message: `ISA${String(n).padStart(2, '0')} "${value}" must be ${what}`,
        tag: 'ISA',
        element: n,
      },
    ]);
  });

  it('reports the width of an ISA field and the count of elements', () => {
    const elements = [...good];
    elements[5] = 'A';
    expect(validateIsa(isaOf(elements))).toEqual([
      {
        code: 'ISA_FIELD_INVALID',
        ...where,
        message: 'ISA06 "A" is 1 characters, 15 expected',
        tag: 'ISA',
        element: 6,
      },
    ]);
    expect(validateIsa(isaOf(good.slice(0, 15)))).toEqual([
      { code: 'ISA_FIELD_INVALID', ...where, message: 'ISA has 15 elements, 16 expected', tag: 'ISA' },
    ]);
    expect(validateIsa(isaOf(good))).toEqual([]);
  });

  const gs = (elements: string[]) => Segment.of('GS', elements, located);
  it('names every GS element a group header lacks', () => {
    expect(validateGroupHeader(gs(['PO', '', 'B', '20260105', ' ', '1', 'X', '004010']))).toEqual([
      { code: 'GS_INVALID', ...where, message: 'GS without GS02, GS05', tag: 'GS', element: 2 },
    ]);
    expect(validateGroupHeader(gs(['PO', 'A', 'B', '20260105', '0930', '1', 'X']))).toEqual([
      { code: 'GS_INVALID', ...where, message: 'GS without GS08', tag: 'GS', element: 8 },
    ]);
    expect(validateGroupHeader(gs(['PO', 'A', 'B', '20260105', '0930', '1', 'X', '004010']))).toEqual([]);
  });

  const st = (elements: string[]) => Segment.of('ST', elements, located);
  it('checks ST01 (3 digits or capitals) and ST02 (present, unique in the group), padding aside', () => {
    expect(validateSetHeader(st([' 850 ', ' 0001 ']), new Set(['0002']))).toEqual([]);
    expect(validateSetHeader(st(['850', '0001']), new Set(['0001']))).toEqual([
      {
        code: 'DUPLICATE_ST02',
        ...where,
        message: 'ST02 "0001" is used twice in this group',
        tag: 'ST',
        element: 2,
        setPosition: 1,
      },
    ]);
    expect(validateSetHeader(st(['850', ' 0001 ']), new Set(['0001'])).map((p) => p.code)).toEqual(['DUPLICATE_ST02']);
    for (const id of ['85', '8500', 'x850', '850x', '85a']) {
      expect(validateSetHeader(st([id, ' ']), new Set())).toEqual([
        {
          code: 'ST_INVALID',
          ...where,
          message: `ST01 "${id}" is not a transaction set id`,
          tag: 'ST',
          element: 1,
          setPosition: 1,
        },
        {
          code: 'ST_INVALID',
          ...where,
          message: 'ST02 (control number) is missing',
          tag: 'ST',
          element: 2,
          setPosition: 1,
        },
      ]);
    }
  });

  it('says what each trailer gets wrong, at the trailer, or where the input ended', () => {
    const doc = parseX12(fixture('star-tilde-lf-850.edi'));
    const interchange = doc.interchanges[0];
    const group = interchange.groups[0];
    const set = group.transactionSets[0];
    const last = Segment.of('PID', ['F'], located);
    expect(validateSetTrailer(set, undefined, last)).toEqual([
      { code: 'MISSING_SE', ...where, message: 'transaction set 850 0001 has no SE', tag: 'PID' },
    ]);
    expect(validateSetTrailer(set, undefined)[0]).toMatchObject({ line: set.header.line, tag: 'ST' });
    expect(validateSetTrailer(set, Segment.of('SE', ['17', '2'], located))).toEqual([
      {
        code: 'ST02_SE02_MISMATCH',
        ...where,
        message: 'SE02 "2" does not match ST02 "0001"',
        tag: 'SE',
        element: 2,
        setPosition: 17,
      },
    ]);
    expect(validateSetTrailer(set, Segment.of('SE', ['16', '0001'], located))[0].message).toBe(
      'SE01 "16" but the set has 17 segments (ST..SE)',
    );
    expect(validateGroupTrailer(group, undefined, last)).toEqual([
      { code: 'MISSING_GE', ...where, message: 'functional group 1 has no GE', tag: 'PID' },
    ]);
    expect(validateGroupTrailer(group, undefined)[0]).toMatchObject({ tag: 'GS' });
    expect(validateGroupTrailer(group, Segment.of('GE', ['2', '7'], located))).toEqual([
      {
        code: 'GE01_SET_COUNT',
        ...where,
        message: 'GE01 "2" but the group has 1 transaction set(s)',
        tag: 'GE',
        element: 1,
      },
      { code: 'GS06_GE02_MISMATCH', ...where, message: 'GE02 "7" does not match GS06 "1"', tag: 'GE', element: 2 },
    ]);
    expect(validateInterchangeTrailer(interchange, undefined, last)).toEqual([
      { code: 'MISSING_IEA', ...where, message: 'interchange 000000101 has no IEA (truncated?)', tag: 'PID' },
    ]);
    expect(validateInterchangeTrailer(interchange, undefined)[0]).toMatchObject({ tag: 'ISA', line: 1 });
    expect(validateInterchangeTrailer(interchange, Segment.of('IEA', ['2', '102'], located))).toEqual([
      {
        code: 'IEA01_GROUP_COUNT',
        ...where,
        message: 'IEA01 "2" but the interchange has 1 group(s)',
        tag: 'IEA',
        element: 1,
      },
      {
        code: 'ISA13_IEA02_MISMATCH',
        ...where,
        message: 'IEA02 "102" does not match ISA13 "000000101"',
        tag: 'IEA',
        element: 2,
      },
    ]);
  });

  it('counts as a number written with padding or zeros, nothing else', () => {
    expect([' 26 ', '0000000026', '7', '0'].map(parseCount)).toEqual([26, 26, 7, 0]);
    for (const bad of ['x26', '26x', '2 6', '-1', '1.5', '', undefined, '1234567890123456789']) {
      expect(parseCount(bad)).toBeNaN();
    }
    expect(parseCount('000000000000000042')).toBe(42); // 18 digits
  });

  it('matches control numbers equal, or equal as numbers, padding aside; never two empty ones', () => {
    const same: [string | undefined, string | undefined][] = [
      ['0001', '1'],
      [' 1', '1 '],
      ['A1 ', ' A1'],
      ['000000101', '101'],
    ];
    const differ: [string | undefined, string | undefined][] = [
      ['', ''],
      [undefined, undefined],
      [' ', undefined],
      ['A01', 'A1'],
      ['1x', '01x'],
      ['x1', '1'],
      ['1', 'x1'],
      ['12', '13'],
      ['1', undefined],
    ];
    expect(same.map(([a, b]) => sameControl(a, b))).toEqual(same.map(() => true));
    expect(differ.map(([a, b]) => sameControl(a, b))).toEqual(differ.map(() => false));
  });

  it('keys an interchange by sender qualifier, sender and ISA13, padding aside', () => {
    const fields = isaFields(isaOf(good.map((e, i) => (i === 4 ? 'Z ' : i === 12 ? '000000001 ' : e))));
    expect(interchangeKey(fields)).toBe('Z/A/000000001');
  });
});
