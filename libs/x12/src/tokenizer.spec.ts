import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseX12, tokenizeX12, components, element, repetitions } from './reader';
import { tagSlot } from './segment';
import { printable, X12Tokenizer } from './tokenizer';
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

/** Everything a sink is given, as plain data: each segment with its delimiters and tag slot, each problem. */
const sinkSees = (pieces: readonly string[], options: { maxSegmentLength?: number } = {}) => {
  const seen: unknown[] = [];
  const tokenizer = new X12Tokenizer(
    {
      segment: (s, d, slot) => seen.push({ ...s.toJSON(), delimiters: { ...d }, slot }),
      problem: (p) => seen.push(p),
    },
    options,
  );
  for (const piece of pieces) {
    tokenizer.write(piece);
  }
  tokenizer.end();
  return seen;
};
const inPiecesOf = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
const group = (control: string, ...sets: string[][]) => {
  const body = sets.flatMap((s, i) => {
    const st = String(i + 1).padStart(4, '0');
    return [`ST*850*${st}`, ...s, `SE*${s.length + 2}*${st}`];
  });
  return [`GS*PO*A*B*20260105*0930*${control}*X*004010`, ...body, `GE*${sets.length}*${control}`];
};
/** One interchange of `segments` (after the ISA), written with element separator `e` and terminator `t`. */
const interchange = (segments: string[], e = '*', c = '>', t = '~', control = '000000001') =>
  [isa(e, c, control), ...segments.map((s) => s.replace(/\*/g, e)), `IEA*1*${control}`.replace(/\*/g, e)].join(t) + t;

describe('X12 tokenizer: text split anywhere reads as the whole text', () => {
  // A '~' inside the data of an interchange whose terminator is "'", between two that end segments with '~'.
  const mixed =
    interchange(group('1', ['BEG*00*SA*PO-1**20260105'])) +
    '\n' +
    interchange(group('2', ['REF*DP*A~B', 'N1*ST*X']), '+', ':', "'", '000000002') +
    interchange(group('3', ['REF*DP*012']), '|', '>', '~', '000000003');
  const long = fixture('star-tilde-lf-850.edi').replace('REF*DP*012', `REF*DP*${'9'.repeat(300)}`);
  const singleLineThenWrapped = fixture('pipe-single-line-4-sets.x12').replace('FAST FREIGHT', 'FAST\nFREIGHT');
  const texts: [string, string, { maxSegmentLength?: number }][] = [
    ['wrapped-80-columns.x12', fixture('wrapped-80-columns.x12'), {}],
    ['caret-repetition-crlf-856.edi', fixture('caret-repetition-crlf-856.edi'), {}],
    ['two-interchanges.edi', fixture('two-interchanges.edi'), {}],
    ['bom-leading-whitespace.edi', fixture('bom-leading-whitespace.edi'), {}],
    ['no-trailing-terminator.edi', fixture('no-trailing-terminator.edi'), {}],
    ['lf-terminator-856.edi', fixture('lf-terminator-856.edi'), {}],
    ['a single line, then a wrapped segment', singleLineThenWrapped, {}],
    ['data before the ISA', `hello ISAX world ISA\n${fixture('star-tilde-lf-850.edi')}`, {}],
    ['a segment over the limit', long, { maxSegmentLength: 100 }],
    [
      'a segment over the limit, unterminated at the end',
      `${fixture('star-tilde-lf-850.edi')}REF*${'9'.repeat(300)}`,
      { maxSegmentLength: 100 },
    ],
    ['delimiters changing at each ISA', mixed, {}],
  ];

  it.each(texts)('%s, in pieces of 1, 5 and 64 characters', (_, text, options) => {
    const whole = sinkSees([text], options);
    for (const size of [1, 5, 64]) {
      expect(sinkSees(inPiecesOf(text, size), options)).toEqual(whole);
    }
  });

  it('delimiters changing at each ISA, in two pieces split anywhere in the ISA that changes them', () => {
    const whole = sinkSees([mixed]);
    expect(whole.filter((s) => (s as { tag?: string }).tag === 'REF')).toEqual([
      expect.objectContaining({ elements: ['DP', 'A~B'] }),
      expect.objectContaining({ elements: ['DP', '012'] }),
    ]);
    const json = JSON.stringify(whole);
    const second = mixed.indexOf('ISA+');
    for (let at = second - 2; at < second + 110; at++) {
      expect([at, JSON.stringify(sinkSees([mixed.slice(0, at), mixed.slice(at)]))]).toEqual([at, json]);
    }
  });

  it('reads the segment after one over the limit, discarded across pieces', () => {
    const seen = sinkSees(inPiecesOf(long, 64), { maxSegmentLength: 100 });
    const tags = seen.flatMap((s) => ((s as { tag?: string; code?: string }).code ? [] : [(s as { tag: string }).tag]));
    expect(tags.slice(0, 6)).toEqual(['ISA', 'GS', 'ST', 'BEG', 'DTM', 'TD5']);
    expect(seen).toContainEqual({
      code: 'SEGMENT_TOO_LONG',
      severity: 'error',
      message: 'segment longer than 100 characters without a terminator: discarded',
      segmentIndex: 4,
      line: 5,
      column: 1,
    });
  });
});

describe('X12 tokenizer: what the sink is given', () => {
  it('hands each segment with the tag slot of its tag, or -1', () => {
    const slots: [string, number][] = [];
    const tokenizer = new X12Tokenizer({
      segment: (s, _d, slot) => slots.push([s.tag, slot]),
      problem: () => undefined,
    });
    tokenizer.write(`${fixture('star-tilde-lf-850.edi')}ref*x~N1*ST*A~`);
    tokenizer.end();
    expect(slots.length).toBeGreaterThan(20);
    for (const [tag, slot] of slots) {
      expect([tag, slot]).toEqual([tag, slot === -1 ? -1 : tagSlot(tag, 0, tag.length)]);
    }
    expect(slots[0]).toEqual(['ISA', -1]);
    expect(slots.find(([tag]) => tag === 'ref')).toEqual(['ref', -1]);
    expect(slots.filter(([tag, slot]) => tag === 'N1' && slot !== -1)).toHaveLength(3);
  });

  it('counts the segments read', () => {
    const tokenizer = new X12Tokenizer({ segment: () => undefined, problem: () => undefined });
    expect(tokenizer.segmentCount).toBe(0);
    tokenizer.write(fixture('star-tilde-lf-850.edi'));
    tokenizer.end();
    expect(tokenizer.segmentCount).toBe(21);
    expect(parseX12(fixture('two-interchanges.edi')).segmentCount).toBe(
      tokenizeX12(fixture('two-interchanges.edi')).segments.length,
    );
  });

  it('points each segment without a line break into the text it was written in (nothing copied)', () => {
    for (const name of ['star-tilde-lf-850.edi', 'caret-repetition-crlf-856.edi', 'pipe-single-line-4-sets.x12']) {
      const text = fixture(name);
      const { segments } = tokenizeX12(text);
      for (const s of segments.slice(1)) {
        expect([s.tag, s.text === text]).toEqual([s.tag, true]);
        expect(text.slice(s.start, s.end)).toBe(
          `${s.tag}${s.elements.map((e) => `${text[s.start + s.tag.length]}${e}`).join('')}`,
        );
      }
    }
  });

  it('copies a wrapped segment without its line breaks (LF, CR LF or CR alone)', () => {
    for (const wrap of ['\n', '\r\n', '\r']) {
      const text = fixture('star-tilde-lf-850.edi').replace('BEG*00*SA*PO-1001', `BEG*00*SA*PO-${wrap}1001`);
      const { segments, problems } = tokenizeX12(text);
      expect(problems).toEqual([]);
      const beg = segments.find((s) => s.tag === 'BEG')!;
      expect(beg.elements).toEqual(['00', 'SA', 'PO-1001', '', '20260105']);
      expect([beg.text, beg.start, beg.end]).toEqual(['BEG*00*SA*PO-1001**20260105', 0, 27]);
      expect(segments.find((s) => s.tag === 'REF')).toMatchObject({ line: 6, column: 1 });
    }
  });

  it('reads a segment of its tag alone, and one of 3 characters at the very end', () => {
    const { segments, problems } = tokenizeX12(`${isa('*', '>')}~GS*PO~SE~GE~AB~`);
    expect(problems).toEqual([]);
    expect(segments.map((s) => [s.tag, s.elements])).toEqual([
      ['ISA', expect.any(Array)],
      ['GS', ['PO']],
      ['SE', []],
      ['GE', []],
      ['AB', []],
    ]);
  });
});

describe('X12 tokenizer: places (line and column) as an editor shows them', () => {
  it('numbers the columns of the segments along a single line', () => {
    const text = fixture('pipe-single-line-4-sets.x12');
    const { segments } = tokenizeX12(text);
    expect(segments.every((s) => s.line === 1)).toBe(true);
    for (const s of segments.slice(1)) {
      expect([s.tag, s.column]).toEqual([s.tag, s.start + 1]);
    }
  });

  it.each([
    ['LF', '\n'],
    ['CR LF', '\r\n'],
    ['CR', '\r'],
  ])('counts lines ended by %s, and a line break before the first ISA', (_, eol) => {
    const text = `${eol}${eol}${fixture('star-tilde-lf-850.edi').replace(/\n/g, eol)}`;
    const { segments, problems } = tokenizeX12(text);
    expect(problems).toEqual([]);
    expect(segments.map((s) => [s.line, s.column])).toEqual(segments.map((_, i) => [i + 3, 1]));
  });

  it('gives a BOM no column, and skips tab, vertical tab, form feed and BOMs between interchanges', () => {
    const one = fixture('star-tilde-lf-850.edi');
    const { segments, problems } = tokenizeX12(`\uFEFF${one}\t\v\f \uFEFF${one}\uFEFF`);
    expect(problems).toEqual([]);
    expect(segments.filter((s) => s.tag === 'ISA').map((s) => [s.line, s.column])).toEqual([
      [1, 1],
      [22, 5],
    ]);
    expect(segments).toHaveLength(42);
  });

  it('skips blanks between segments on a line', () => {
    const text = `${isa('*', '>')}~ \tGS*PO*A~  ST*850*1~\t\tSE*2*1~ `;
    const { segments, problems } = tokenizeX12(text);
    expect(problems).toEqual([]);
    expect(segments.map((s) => [s.tag, s.column])).toEqual([
      ['ISA', 1],
      ['GS', 109],
      ['ST', 119],
      ['SE', 130],
    ]);
  });
});

describe('X12 tokenizer: the ISA and its delimiters', () => {
  const after = (e: string, t = '~') => `GS${e}PO${e}A${e}B${t}`;
  const delimitersOf = (text: string) => tokenizeX12(text);

  it.each(['/', ':', '@', '[', '`', '{', '!', '^', '|'])('takes %j as element separator', (e) => {
    const { segments, problems } = delimitersOf(`${isa(e, '>')}~${after(e)}`);
    expect(problems).toEqual([]);
    expect(segments[1].elements).toEqual(['PO', 'A', 'B']);
  });

  it.each(['0', '9', 'A', 'Z', 'a', 'z', ' ', '\t'])(
    'does not take %j after "ISA" for an element separator: no interchange',
    (e) => {
      const { segments, problems } = delimitersOf(`${isa(e, '>')}~GS*PO~`);
      expect(segments).toEqual([]);
      expect(problems).toEqual([
        {
          code: 'NO_INTERCHANGE',
          severity: 'error',
          message: 'data outside any interchange (no ISA before it): skipped up to the next ISA',
          segmentIndex: 0,
          line: 1,
          column: 1,
        },
      ]);
    },
  );

  it.each(['/', ':', '@', '[', '`', '{'])('takes %j as component separator', (c) => {
    const { problems, segments } = delimitersOf(`${isa('*', c)}~${after('*')}`);
    expect(problems).toEqual([]);
    expect(segments[0].elements[15]).toBe(c);
  });

  it.each(['0', '9', 'A', 'Z', 'a', 'z', ' '])('refuses %j as component separator', (c) => {
    const { problems } = delimitersOf(`${isa('*', c)}~${after('*')}${fixture('star-tilde-lf-850.edi')}`);
    expect(problems).toEqual([
      {
        code: 'DELIMITERS_INVALID',
        severity: 'error',
        message: `ISA delimiters unusable: element "*", component "${c}", terminator "~"`,
        segmentIndex: 0,
        line: 1,
        column: 1,
        tag: 'ISA',
      },
    ]);
  });

  it('refuses a letter or digit as terminator, and shows control characters in the message', () => {
    expect(delimitersOf(`${isa('*', '>')}A${after('*', 'A')}`).problems.map((p) => p.code)).toEqual([
      'DELIMITERS_INVALID',
    ]);
    expect(delimitersOf(`${isa('*', '>')}5${after('*', '5')}`).problems.map((p) => p.code)).toEqual([
      'DELIMITERS_INVALID',
    ]);
    expect(delimitersOf(`${isa('\x1f', '\x1f')}\x7f`).problems[0].message).toBe(
      'ISA delimiters unusable: element "\\x1f", component "\\x1f", terminator "\\x7f"',
    );
  });

  it('reads ISA16 after a line break wrapped before it', () => {
    const text = `${isa('*', '>').slice(0, -1)}\r\n>~${after('*')}`;
    const { segments, problems } = delimitersOf(text);
    expect(problems).toEqual([]);
    expect(segments[0].elements[15]).toBe('>');
    expect(segments[1].elements).toEqual(['PO', 'A', 'B']);
  });

  it('takes an ISA wrapped over up to 512 characters, not more', () => {
    const head = isa('*', '>').slice(0, 7); // "ISA*00*"
    const rest = isa('*', '>').slice(7);
    const spread = (breaks: number) => `${head}${'\n'.repeat(breaks)}${rest}~${after('*')}`;
    // The 15th separator after the one following "ISA" is the 511th character.
    const fits = 512 - isa('*', '>').length + 1;
    expect(delimitersOf(spread(fits)).problems).toEqual([]);
    expect(delimitersOf(spread(fits)).segments[0].elements[1]).toBe(' '.repeat(10));
    expect(delimitersOf(spread(fits + 1)).problems).toEqual([
      {
        code: 'ISA_INVALID',
        severity: 'error',
        message: 'ISA without 16 elements separated by "*": interchange skipped',
        segmentIndex: 0,
        line: 1,
        column: 1,
        tag: 'ISA',
      },
    ]);
  });

  it('reports an ISA cut short, with its place', () => {
    const truncated = {
      code: 'ISA_TRUNCATED',
      severity: 'error',
      message: 'input ends inside an ISA segment',
      segmentIndex: 0,
      line: 2,
      column: 3,
      tag: 'ISA',
    };
    expect(delimitersOf(`\n  ${isa('*', '>').slice(0, 50)}`).problems).toEqual([truncated]);
    expect(delimitersOf(`\n  ${isa('*', '>').slice(0, -1)}`).problems).toEqual([truncated]);
    expect(delimitersOf(`\n  ${isa('*', '>').slice(0, -1)}\n`).problems).toEqual([truncated]);
    expect(delimitersOf(`\n  ${isa('*', '>')}`).problems).toEqual([truncated]);
  });

  it('is no interchange when the text ends with "ISA", or "ISA" is not followed by a separator', () => {
    expect(delimitersOf('ISA').problems.map((p) => p.code)).toEqual(['NO_INTERCHANGE']);
    expect(delimitersOf(`ISB${isa('*', '>').slice(3)}~${after('*')}`).problems.map((p) => p.code)).toEqual([
      'NO_INTERCHANGE',
    ]);
    expect(delimitersOf(`IXA${isa('*', '>').slice(3)}~`).segments).toEqual([]);
    expect(delimitersOf(`\x01${fixture('star-tilde-lf-850.edi')}`).problems.map((p) => p.code)).toEqual([
      'NO_INTERCHANGE',
    ]);
  });

  it('reads on at the ISA after a refused one, from its place', () => {
    const bad = `${isa('*', '*')}~GS*PO~`;
    const { segments, problems } = delimitersOf(`${bad}${fixture('star-tilde-lf-850.edi')}`);
    expect(problems.map((p) => p.code)).toEqual(['DELIMITERS_INVALID']);
    expect(segments[0]).toMatchObject({ tag: 'ISA', line: 1, column: bad.length + 1, index: 0 });
  });

  it.each([
    ['U', undefined], // the standards id (before 5010)
    ['^', '^'],
    [':', ':'],
    ['>', undefined], // the component separator
    ['~', undefined], // the terminator
    [' ', undefined],
    ['^^', undefined], // not one character
    ['', undefined],
  ])('ISA11 %j: repetition separator %j', (rep, expected) => {
    const { segments } = delimitersOf(`${isa('*', '>', '000000001', '00501', rep)}~${after('*')}`);
    const { delimiters } = sinkSees([`${isa('*', '>', '000000001', '00501', rep)}~${after('*')}`])[0] as {
      delimiters: { repetition?: string };
    };
    expect(segments).toHaveLength(2);
    expect(delimiters.repetition).toBe(expected);
  });

  it('drops line breaks wrapped into the ISA from its text', () => {
    const { segments } = delimitersOf(`${isa('*', '>').replace('00401', '004\r\n01')}~${after('*')}`);
    expect(segments[0].elements[11]).toBe('00401');
    expect(segments[0].text).not.toMatch(/[\r\n]/);
  });
});

describe('X12 tokenizer: segments and tags', () => {
  const body = (segments: string) => `${isa('*', '>')}~${segments}`;

  it('reports a tag that is not 2-3 upper-case letters or digits, with its first 20 characters', () => {
    const tags = ['A', 'ABCD', 'ref', ':Z', 'Z@', 'Z/', 'THISISNOTATAGATALLREALLY'];
    const { problems, segments } = tokenizeX12(body(tags.map((t) => `${t}*1~`).join('')));
    expect(segments.map((s) => s.tag)).toEqual(['ISA', ...tags]);
    expect(problems).toEqual(
      tags.map((t, i) => ({
        code: 'INVALID_SEGMENT_TAG',
        severity: 'error',
        message: `"${t.slice(0, 20)}" is not a segment tag`,
        segmentIndex: i + 1,
        line: 1,
        column: expect.any(Number),
        tag: t.slice(0, 20),
      })),
    );
    expect(problems[6].tag).toBe('THISISNOTATAGATALLRE');
  });

  it('takes tags of digits and upper-case letters, 0 to 9 and A to Z', () => {
    const tags = ['Z0', 'Z9', 'ZA', 'ZZ', 'A0Z', '09', 'N1'];
    const { problems } = tokenizeX12(body(tags.map((t) => `${t}*1~`).join('')));
    expect(problems).toEqual([]);
  });

  it('reports an empty segment and a last one without terminator in full', () => {
    const { problems } = tokenizeX12(body('GS*PO~\n~SE*1*1'));
    expect(problems).toEqual([
      {
        code: 'EMPTY_SEGMENT',
        severity: 'warning',
        message: 'empty segment (two terminators in a row)',
        segmentIndex: 2,
        line: 2,
        column: 1,
      },
      {
        code: 'MISSING_TERMINATOR',
        severity: 'warning',
        message: 'last segment SE has no segment terminator "~"',
        segmentIndex: 2,
        line: 2,
        column: 2,
        tag: 'SE',
      },
    ]);
    const lf = tokenizeX12(`${isa('~', '|')}\nGS~PO\nTHISISNOTATAGATALLREALLY~1`).problems;
    expect(lf.at(-1)).toMatchObject({
      message: 'last segment THISISNOTATAGATALLRE has no segment terminator "\\x0a"',
      tag: 'THISISNOTATAGATALLRE',
    });
  });

  it('keeps a segment as long as the limit, and discards one longer', () => {
    const ref = `REF*DP*${'9'.repeat(93)}`; // 100 characters
    expect(tokenizeX12(body(`${ref}~SE*1*1~`), { maxSegmentLength: 100 }).problems).toEqual([]);
    const over = tokenizeX12(body(`${ref}9~SE*1*1~`), { maxSegmentLength: 100 });
    expect(over.problems.map((p) => p.code)).toEqual(['SEGMENT_TOO_LONG']);
    expect(over.segments.map((s) => s.tag)).toEqual(['ISA', 'SE']);
    expect(tokenizeX12(fixture('two-interchanges.edi'), { maxSegmentLength: 100 }).problems).toEqual([]);
    const unterminated = tokenizeX12(body(`${ref}9`), { maxSegmentLength: 100 });
    expect(unterminated.problems).toEqual([
      {
        code: 'SEGMENT_TOO_LONG',
        severity: 'error',
        message: 'segment longer than 100 characters without a terminator: discarded',
        segmentIndex: 1,
        line: 1,
        column: 107,
      },
    ]);
  });

  it('reads a second interchange with the same terminator but other separators', () => {
    const text =
      interchange(group('1', ['REF*DP*1'])) + interchange(group('2', ['REF*DP*2']), '|', '>', '~', '000000002');
    const { segments, problems } = tokenizeX12(text);
    expect(problems).toEqual([]);
    expect(segments.filter((s) => s.tag === 'REF').map((s) => s.elements)).toEqual([
      ['DP', '1'],
      ['DP', '2'],
    ]);
  });
});

describe('X12 tokenizer: pausing, as the contract says', () => {
  it('is not paused before anything is written', () => {
    expect(new X12Tokenizer({ segment: () => undefined, problem: () => undefined }).paused).toBe(false);
  });

  it('returns right after the segment the sink paused at: one segment a write or resume', () => {
    for (const name of ['star-tilde-lf-850.edi', 'pipe-single-line-4-sets.x12', 'wrapped-80-columns.x12']) {
      const text = fixture(name);
      let handed = 0;
      const perCall: number[] = [];
      const tokenizer: X12Tokenizer = new X12Tokenizer({
        segment: () => {
          handed++;
          tokenizer.pause();
        },
        problem: () => undefined,
      });
      tokenizer.write(text);
      perCall.push(handed);
      while (tokenizer.paused) {
        const before = handed;
        tokenizer.resume();
        perCall.push(handed - before);
      }
      tokenizer.end();
      // The last segment may be left for end() (the text ends with it, no line break after).
      expect(perCall.slice(0, -1).every((n) => n === 1)).toBe(true);
      expect(handed).toBe(tokenizeX12(text).segments.length);
    }
  });

  it('reads what a pause left before the next write, and all of it at end(), without resume()', () => {
    for (const name of ['star-tilde-lf-850.edi', 'pipe-single-line-4-sets.x12', 'caret-repetition-crlf-856.edi']) {
      const text = fixture(name);
      const seen: unknown[] = [];
      const inTheirText: boolean[] = [];
      const tokenizer: X12Tokenizer = new X12Tokenizer({
        segment: (s, d) => {
          seen.push(s.toJSON());
          // Not copied: the segment lies in the text it was read from, its terminator after it.
          inTheirText.push(s.tag === 'ISA' || s.text[s.end] === d.segment);
          tokenizer.pause();
        },
        problem: (p) => seen.push(p),
      });
      for (const piece of inPiecesOf(text, 300)) {
        tokenizer.write(piece);
      }
      tokenizer.end();
      expect(tokenizer.paused).toBe(false);
      const whole = tokenizeX12(text);
      expect(seen).toEqual([...whole.segments.map((s) => s.toJSON()), ...whole.problems]);
      expect(whole.problems).toEqual([]);
      expect(inTheirText.every(Boolean)).toBe(true);
    }
  });
});

describe('printable', () => {
  it('shows control characters as \\x and two hex digits, and leaves the rest', () => {
    expect(printable('~')).toBe('~');
    expect(printable('\n')).toBe('\\x0a');
    expect(printable('a\rb\x1f\x7f\x00é')).toBe('a\\x0db\\x1f\\x7f\\x00é');
    expect(printable(' ')).toBe(' ');
  });
});
