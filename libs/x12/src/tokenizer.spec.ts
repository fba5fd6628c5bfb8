import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseX12, tokenizeX12, components, element, repetitions } from './reader';
import { X12Tokenizer } from './tokenizer';
import type { Problem } from './x12.types';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const codes = (problems: Problem[]) => problems.map((p) => p.code);
const isa = (e: string, c: string, control = '000000001', version = '00401', rep = 'U') =>
  [
    'ISA',
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
    rep,
    version,
    control,
    '0',
    'P',
    c,
  ].join(e);

describe('X12 tokenizer: delimiters from the ISA', () => {
  it.each([
    ['star-tilde-lf-850.edi', { element: '*', component: '>', segment: '~' }],
    ['pipe-single-line-4-sets.x12', { element: '|', component: '>', segment: '~' }],
    ['plus-component-duplicate-st02.x12', { element: '*', component: '+', segment: '~' }],
    ['tilde-element-lf-terminator.x12', { element: '~', component: '|', segment: '\n' }],
    ['caret-repetition-crlf-856.edi', { element: '*', component: '>', segment: '~', repetition: '^' }],
    ['lf-terminator-856.edi', { element: '*', component: '>', segment: '\n' }],
    ['wrapped-80-columns.x12', { element: '*', component: '>', segment: '~' }],
  ])('%s', (name, delimiters) => {
    const doc = parseX12(fixture(name));
    expect(doc.interchanges[0].delimiters).toEqual(delimiters);
  });

  it('re-detects the delimiters at every ISA', () => {
    const doc = parseX12(fixture('two-interchanges.edi'));
    expect(doc.interchanges.map((i) => i.delimiters)).toEqual([
      { element: '*', component: '>', segment: '~' },
      { element: '+', component: ':', segment: "'" },
    ]);
    expect(doc.interchanges.map((i) => i.groups[0].summaries[0].id)).toEqual(['850', '856']);
    expect(doc.problems).toEqual([]);
  });

  it('treats ISA11 as the repetition separator only when it is not the standards id', () => {
    expect(parseX12(fixture('star-tilde-lf-850.edi')).interchanges[0].delimiters.repetition).toBeUndefined();
    const d = parseX12(fixture('caret-repetition-crlf-856.edi')).interchanges[0].delimiters;
    expect(repetitions('A^B^C', d)).toEqual(['A', 'B', 'C']);
    expect(components('UP>0123', d)).toEqual(['UP', '0123']);
  });
});

describe('X12 tokenizer: layout quirks', () => {
  it('skips a BOM, blank lines and spaces before the ISA, and counts lines and columns', () => {
    const doc = parseX12(fixture('bom-leading-whitespace.edi'));
    expect(doc.problems).toEqual([]);
    const header = doc.interchanges[0].header;
    expect([header.line, header.column, header.index]).toEqual([3, 4, 0]);
    const st = doc.interchanges[0].groups[0].transactionSets[0].header;
    expect([st.line, st.column, st.index]).toEqual([5, 1, 2]);
  });

  it('treats CR/LF after the terminator as a line break', () => {
    const doc = parseX12(fixture('caret-repetition-crlf-856.edi'));
    expect(doc.problems).toEqual([]);
    const sets = doc.interchanges[0].groups[0].transactionSets;
    expect(sets.map((s) => s.segments.length)).toEqual([35, 23]);
    expect(sets[0].segments.every((s) => s.elements.every((e) => !/[\r\n]/.test(e)))).toBe(true);
    expect(sets[0].segments[1]).toMatchObject({ tag: 'BSN', line: 4, column: 1 });
  });

  it('reads a single-line file with columns along the line', () => {
    const doc = parseX12(fixture('pipe-single-line-4-sets.x12'));
    expect(doc.problems).toEqual([]);
    const gs = doc.interchanges[0].groups[0].header;
    expect([gs.line, gs.column]).toEqual([1, 107]); // the ISA is 106 characters with its terminator
    expect(doc.interchanges[0].groups[0].summaries.map((s) => s.segmentCount)).toEqual([13, 15, 17, 19]);
  });

  it('removes newlines wrapped into the ISA and into elements (80 columns)', () => {
    const wrapped = parseX12(fixture('wrapped-80-columns.x12'));
    expect(wrapped.problems).toEqual([]);
    expect(wrapped.interchanges[0].header.elements).toHaveLength(16);
    expect(wrapped.interchanges[0].fields.time).toBe('0930'); // "093" / "0" across the wrap
    const flat = parseX12(fixture('wrapped-80-columns.x12').replace(/\n/g, ''));
    const strip = (d: typeof flat) =>
      d.interchanges.flatMap((i) =>
        i.groups.flatMap((g) => g.transactionSets.flatMap((s) => s.segments.map((x) => [x.tag, ...x.elements]))),
      );
    expect(strip(wrapped)).toEqual(strip(flat));
    expect(strip(wrapped).some((s) => s.includes('FAST FREIGHT'))).toBe(true);
  });

  it('with LF as terminator, a wrapped line is a segment end: reported, not guessed', () => {
    const text = fixture('lf-terminator-856.edi').replace('N1*SF*KETTLE SUPPLY', 'N1*SF*KETTLE\nSUPPLY');
    const doc = parseX12(text);
    expect(codes(doc.problems)).toEqual(expect.arrayContaining(['INVALID_SEGMENT_TAG', 'SE01_SEGMENT_COUNT']));
  });

  it('keeps a last segment without terminator, with a warning', () => {
    const doc = parseX12(fixture('no-trailing-terminator.edi'));
    expect(doc.problems).toHaveLength(1);
    expect(doc.problems[0]).toMatchObject({
      code: 'MISSING_TERMINATOR',
      severity: 'warning',
      tag: 'IEA',
      line: 19,
      column: 1,
    });
    expect(doc.interchanges[0].trailer?.elements).toEqual(['1', '000000107']);
  });

  it('ignores trailing blanks after the last terminator', () => {
    const doc = parseX12(`${fixture('star-tilde-lf-850.edi')}     \r\n\n  `);
    expect(doc.problems).toEqual([]);
  });

  it('splits elements and keeps empty ones; element() is 1-based', () => {
    const doc = parseX12(fixture('star-tilde-lf-850.edi'));
    const beg = doc.interchanges[0].groups[0].transactionSets[0].segments[1];
    expect(beg).toMatchObject({ tag: 'BEG', elements: ['00', 'SA', 'PO-1001', '', '20260105'] });
    expect(element(beg, 3)).toBe('PO-1001');
    expect(element(beg, 9)).toBe('');
  });
});

describe('X12 tokenizer: bad input is reported, never thrown', () => {
  it('reports data before the first ISA once, with its place, and reads the interchange after it', () => {
    const doc = parseX12(`hello\nworld\n${fixture('star-tilde-lf-850.edi')}`);
    expect(doc.problems).toEqual([expect.objectContaining({ code: 'NO_INTERCHANGE', line: 1, column: 1 })]);
    expect(doc.interchanges).toHaveLength(1);
  });

  it('reports an input with no ISA at all', () => {
    expect(codes(parseX12('ST*850*1~BEG*00~').problems)).toEqual(['NO_INTERCHANGE']);
    expect(parseX12('').problems).toEqual([]);
  });

  it('reports a truncated ISA', () => {
    expect(codes(parseX12(isa('*', '>').slice(0, 60)).problems)).toEqual(['ISA_TRUNCATED']);
    expect(codes(parseX12(isa('*', '>')).problems)).toEqual(['ISA_TRUNCATED']); // no terminator after ISA16
  });

  it('reports clashing delimiters and skips to the next ISA', () => {
    const doc = parseX12(`${isa('*', '*')}~GS*PO~${fixture('star-tilde-lf-850.edi')}`);
    expect(codes(doc.problems)).toEqual(['DELIMITERS_INVALID']);
    expect(doc.interchanges).toHaveLength(1);
  });

  it('reports an ISA without 16 elements', () => {
    const doc = parseX12(`ISA*${'x'.repeat(600)}~`);
    expect(codes(doc.problems)).toEqual(['ISA_INVALID']);
  });

  it('reports and discards a segment longer than the limit (bounded memory)', () => {
    const text = fixture('star-tilde-lf-850.edi').replace('REF*DP*012', `REF*DP*${'9'.repeat(5000)}`);
    const doc = parseX12(text, { maxSegmentLength: 1000 });
    expect(codes(doc.problems)).toEqual(expect.arrayContaining(['SEGMENT_TOO_LONG', 'SE01_SEGMENT_COUNT']));
  });

  it('reports empty segments and invalid tags with their place', () => {
    const text = fixture('star-tilde-lf-850.edi').replace('REF*DP*012~', 'REF*DP*012~~ref*x~');
    const doc = parseX12(text);
    expect(doc.problems.map((p) => [p.code, p.line])).toEqual([
      ['EMPTY_SEGMENT', 5],
      ['INVALID_SEGMENT_TAG', 5],
      ['SE01_SEGMENT_COUNT', 19], // the bad segment still counts
    ]);
  });

  it('numbers segments across the input', () => {
    const { segments } = tokenizeX12(fixture('two-interchanges.edi'));
    expect(segments.map((s) => s.index)).toEqual(segments.map((_, i) => i));
    expect(segments[19]).toMatchObject({ tag: 'ISA', line: 20, column: 1 });
  });
});

describe('X12 tokenizer: pausing (readX12 hands out each set as it completes)', () => {
  /** Everything a sink is given, as JSON, tokenizing `pieces` in order; pausing after every segment when asked. */
  const tokenize = (pieces: string[], pauseEverySegment: boolean) => {
    const seen: string[] = [];
    const tokenizer: X12Tokenizer = new X12Tokenizer({
      segment: (segment) => {
        seen.push(JSON.stringify(segment));
        if (pauseEverySegment) {
          tokenizer.pause();
        }
      },
      problem: (problem) => seen.push(JSON.stringify(problem)),
    });
    let resumes = 0;
    for (const piece of pieces) {
      tokenizer.write(piece);
      while (tokenizer.paused) {
        resumes++;
        tokenizer.resume();
      }
    }
    tokenizer.end();
    return { seen, resumes };
  };

  it.each([
    'wrapped-80-columns.x12',
    'caret-repetition-crlf-856.edi',
    'two-interchanges.edi',
    'bom-leading-whitespace.edi',
  ])('gives the sink the same segments and problems as without pauses (%s)', (name) => {
    const text = fixture(name);
    const pieces = [text.slice(0, 150), text.slice(150, 151), text.slice(151)];
    const paused = tokenize(pieces, true);
    expect(paused.resumes).toBeGreaterThan(3);
    expect(paused.seen).toEqual(tokenize(pieces, false).seen);
  });

  it('finds line breaks inside segments when the same text is written twice', () => {
    const body = 'ST*850*0001~\nBEG*00*SA*PO\n-1~\nSE*3*0001~\n';
    const text = `${isa('*', '>')}~\nGS*PO*A*B*20260105*0930*1*X*004010~\n${body}${body}`;
    const halves = [text.slice(0, text.length - body.length), body];
    const once = tokenize([text], true).seen.filter((s) => s.includes('"BEG"'));
    expect(once).toHaveLength(2);
    expect(once.every((s) => s.includes('"PO-1"'))).toBe(true);
    expect(tokenize([...halves, body], true).seen.filter((s) => s.includes('"PO-1"'))).toHaveLength(3);
  });
});

describe('Segment: elements found on demand', () => {
  it('reads a segment right after reading the one 256 places later, which has more elements than a cache slot holds', () => {
    // Element starts are kept per segment index modulo 256; the long segment shares its place.
    const refs = Array.from({ length: 300 }, (_, i) =>
      i === 256 ? `REF*${Array.from({ length: 40 }, (_, k) => `L${k}`).join('*')}` : `REF*BM*V${i}`,
    );
    const text = `${isa('*', '>')}~GS*SH*A*B*20260105*0930*1*X*004010~ST*856*0001~${refs.join('~')}~SE*302*0001~GE*1*1~IEA*1*000000001~`;
    const { segments } = tokenizeX12(text);
    const first = segments[3];
    const long = segments[3 + 256];
    expect(first.element(2)).toBe('V0');
    expect(long.elementCount).toBe(40);
    expect(long.element(40)).toBe('L39');
    expect([first.element(1), first.element(2), first.elementCount]).toEqual(['BM', 'V0', 2]);
    expect(long.element(1)).toBe('L0');
  });
});
