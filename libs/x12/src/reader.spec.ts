import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseX12, readX12 } from './reader';
import type { X12Event } from './x12.types';
import { DEFAULT_MAX_SET_CHARS, summaryOf } from './envelope.reader';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

async function collect(
  source: AsyncIterable<Buffer | string> | Iterable<Buffer | string> | Readable,
): Promise<X12Event[]> {
  const events: X12Event[] = [];
  for await (const e of readX12(source)) {
    events.push(e);
  }
  return events;
}

describe('readX12 (streaming)', () => {
  it('yields envelope events and one transaction set at a time, in order', async () => {
    const events = await collect(Readable.from([Buffer.from(fixture('two-interchanges.edi'))]));
    expect(events.map((e) => e.type)).toEqual([
      'interchange',
      'group',
      'transactionSet',
      'groupEnd',
      'interchangeEnd',
      'interchange',
      'group',
      'transactionSet',
      'groupEnd',
      'interchangeEnd',
    ]);
    const sets = events.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet] : []));
    expect(sets.map((s) => [s.id, s.control, s.segments.length, s.groupControl])).toEqual([
      ['850', '0001', 15, '10'],
      ['856', '0001', 35, '11'],
    ]);
  });

  it('keeps nothing of the sets in their group when streaming, only their count', async () => {
    const events = await collect([fixture('pipe-single-line-4-sets.x12')]);
    const end = events.find((e) => e.type === 'groupEnd');
    expect(end?.type === 'groupEnd' && end.group.transactionSets).toEqual([]);
    expect(end?.type === 'groupEnd' && end.group.summaries).toEqual([]);
    expect(end?.type === 'groupEnd' && end.group.setCount).toBe(4);
    expect(events.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet.control] : []))).toEqual([
      '0001',
      '0002',
      '0003',
      '0004',
    ]);
  });

  it('emits each problem once, as it is found, before the structure it spoils is handed out', async () => {
    const events = await collect([fixture('broken-se01-mismatch.edi')]);
    const types = events.map((e) => (e.type === 'problem' ? `problem:${e.problem.code}` : e.type));
    expect(types).toEqual([
      'interchange',
      'group',
      'problem:SE01_SEGMENT_COUNT',
      'transactionSet',
      'groupEnd',
      'interchangeEnd',
    ]);
  });

  it('reads byte by byte, splitting the ISA, CRLF pairs and multi-byte characters', async () => {
    const text = fixture('caret-repetition-crlf-856.edi').replace('KETTLE SUPPLY', 'KETTLE SÜPPLY €');
    const bytes = Buffer.from(text);
    const oneByOne = (async function* () {
      for (let i = 0; i < bytes.length; i++) {
        yield bytes.subarray(i, i + 1);
      }
    })();
    const events = await collect(oneByOne);
    const whole = parseX12(text);
    const sets = events.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet] : []));
    // Compared as plain data: segments point into different texts (one per chunk vs the whole).
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(plain(sets)).toEqual(plain(whole.interchanges[0].groups[0].transactionSets));
    expect(JSON.stringify(sets)).toContain('KETTLE SÜPPLY €');
  });

  it('reads a file stream as latin1 when asked (bytes that are not UTF-8)', async () => {
    const bytes = Buffer.from(fixture('star-tilde-lf-850.edi').replace('ACME DC 01', 'ACME DC \xe9'), 'latin1');
    const events: X12Event[] = [];
    for await (const e of readX12([bytes], { encoding: 'latin1' })) {
      events.push(e);
    }
    const set = events.find((e) => e.type === 'transactionSet');
    expect(JSON.stringify(set)).toContain('ACME DC é');
  });

  it('closes what is open when the stream ends early', async () => {
    const events = await collect([fixture('broken-missing-ge-iea.edi')]);
    expect(events.filter((e) => e.type === 'problem').map((e) => e.type === 'problem' && e.problem.code)).toEqual([
      'MISSING_GE',
      'MISSING_IEA',
    ]);
    expect(events.at(-1)?.type).toBe('interchangeEnd');
  });
});

describe('readX12 of a chunk larger than what the tokenizer is given at a time (64 KiB)', () => {
  it('reads it in slices, with the same sets and problems as parseX12', async () => {
    const file = fixture('star-tilde-lf-850.edi');
    const set = file.slice(file.indexOf('\nST*') + 1, file.indexOf('\nGE*') + 1);
    const copies = Math.ceil((150 * 1024) / set.length);
    const text = file.replace(set, set.repeat(copies)).replace('\nGE*1*', `\nGE*${copies}*`);
    const events = await collect([text]);
    const sets = events.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet] : []));
    const whole = parseX12(text);
    expect(sets).toHaveLength(copies);
    expect(events.filter((e) => e.type === 'problem')).toEqual(
      whole.problems.map((problem) => ({ type: 'problem', problem })),
    );
    expect(whole.problems.map((p) => p.code)).toEqual(['DUPLICATE_ST02', ...Array(copies - 2).fill('DUPLICATE_ST02')]);
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(plain(sets.at(-1))).toEqual(plain(whole.interchanges[0].groups[0].transactionSets.at(-1)));
    expect(sets.map((s) => s.segments[0].line)).toEqual(
      whole.interchanges[0].groups[0].transactionSets.map((s) => s.header.line),
    );
  });
});

describe('the envelope around the segments', () => {
  const ISA =
    'ISA*00*          *00*          *ZZ*KETTLESUPPLY   *ZZ*DOCKBRIDGE     *260105*0930*U*00401*000000101*0*T*>~';
  const GS = 'GS*PO*KETTLESUPPLY*DOCKBRIDGE*20260105*0930*1*X*004010~';
  const read = (lines: string[], options = {}) => parseX12(lines.join('\n'), options);
  const where = (p: { code: string; line?: number; tag?: string; setPosition?: number }) => [
    p.code,
    p.line,
    p.tag,
    p.setPosition,
  ];

  it('makes a reading problem inside a set a problem of the set, at its place in the set', () => {
    const doc = read(
      [
        ISA,
        GS,
        'ST*850*0001~',
        'BEG*00*SA*1~',
        '~',
        'ref*x~',
        `REF*DP*${'9'.repeat(70)}~`,
        'SE*4*0001~',
        'GE*1*1~',
        'IEA*1*000000101~',
      ],
      { maxSegmentLength: 60 },
    );
    const set = doc.interchanges[0].groups[0].transactionSets[0];
    expect(set.problems.map(where)).toEqual([
      ['INVALID_SEGMENT_TAG', 6, 'ref', 3],
      ['SEGMENT_TOO_LONG', 7, undefined, 4],
    ]);
    expect(doc.problems.map((p) => p.code)).toEqual(['EMPTY_SEGMENT', 'INVALID_SEGMENT_TAG', 'SEGMENT_TOO_LONG']);
    const outside = read([ISA, GS, 'ref*x~', 'ST*850*0001~', 'SE*2*0001~', 'GE*1*1~', 'IEA*1*000000101~']);
    expect(outside.interchanges[0].groups[0].transactionSets[0].problems).toEqual([]);
  });

  it('keeps a set up to maxSetSegments, counts the rest for SE01 and refuses it', () => {
    const lines = [ISA, GS, 'ST*856*0001~', 'BSN*00*1*20260105*0930~', 'REF*BM*1~', 'REF*BM*2~', 'REF*BM*3~'];
    const doc = read([...lines, 'SE*6*0001~', 'GE*1*1~', 'IEA*1*000000101~'], { maxSetSegments: 4 });
    const set = doc.interchanges[0].groups[0].transactionSets[0];
    expect(set.problems.map(where)).toEqual([['SET_TOO_LONG', 7, 'REF', 5]]);
    expect(set.problems[0].message).toBe('transaction set 856 0001 has more than 4 segments: not read past them');
    expect(set.segments.map((s) => s.tag)).toEqual(['ST', 'BSN', 'REF', 'REF', 'SE']);
    expect(set.omitted).toBe(1);
    expect(summaryOf(set).segmentCount).toBe(6);
    // SE01 is checked against every segment, kept or not.
    const miscounted = read([...lines, 'SE*5*0001~', 'GE*1*1~', 'IEA*1*000000101~'], { maxSetSegments: 4 });
    expect(miscounted.problems.map((p) => [p.code, p.message])).toEqual([
      ['SET_TOO_LONG', 'transaction set 856 0001 has more than 4 segments: not read past them'],
      ['SE01_SEGMENT_COUNT', 'SE01 "5" but the set has 6 segments (ST..SE)'],
    ]);
    expect(read([...lines, 'SE*6*0001~', 'GE*1*1~', 'IEA*1*000000101~']).problems).toEqual([]);
    // What is found past the cut is placed where it is; a set cut off there ends at its last segment read.
    const past = read([...lines, 'ref*x~', 'REF*BM*4~'], { maxSetSegments: 4 });
    expect(past.interchanges[0].groups[0].transactionSets[0].problems.map(where)).toEqual([
      ['SET_TOO_LONG', 7, 'REF', 5],
      ['INVALID_SEGMENT_TAG', 8, 'ref', 6],
      ['MISSING_SE', 9, 'REF', undefined],
    ]);
  });

  it('keeps a set up to maxSetChars of the text its segments lie in, and refuses it past them', async () => {
    // Each line a chunk of its own: a segment lies in its line's text.
    const setOf = async (lines: string[], options: { maxSetChars: number }) => {
      const events: X12Event[] = [];
      for await (const e of readX12(
        lines.map((line) => Buffer.from(line)),
        options,
      )) {
        events.push(e);
      }
      return events.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet] : []));
    };
    const lines = [ISA, GS, 'ST*856*0001~', 'BSN*00*1*20260105*0930~', 'REF*BM*1~', 'REF*BM*2~', 'REF*BM*3~'];
    const end = ['SE*6*0001~', 'GE*1*1~', 'IEA*1*000000101~'];
    // ST (12) + BSN (24) + REF (9) = 45: the next REF's text goes past.
    const [cut] = await setOf([...lines, ...end], { maxSetChars: 45 });
    expect(cut.problems.map((p) => [p.code, p.message, p.setPosition])).toEqual([
      [
        'SET_TOO_LONG',
        'transaction set 856 0001 has segments in more than 45 characters of text: not read past them',
        4,
      ],
    ]);
    expect(cut.segments.map((s) => s.tag)).toEqual(['ST', 'BSN', 'REF', 'SE']);
    expect(cut.omitted).toBe(2);
    expect(summaryOf(cut).segmentCount).toBe(6);
    const [whole] = await setOf([...lines, ...end], { maxSetChars: 63 }); // 12 + 24 + 3 x 9
    expect(whole.problems).toEqual([]);

    // Short segments each after 64 KiB of blank lines: what is held is the text they lie in, not their own length.
    const padded = Array.from({ length: 40 }, (_, i) => `REF*BM*${i}~${'\n'.repeat(64 * 1024)}`);
    const setEnd = [`SE*${padded.length + 3}*0001~`, 'GE*1*1~', 'IEA*1*000000101~'];
    const [held] = await setOf([...lines.slice(0, 4), ...padded, ...setEnd], { maxSetChars: 1024 * 1024 });
    expect(held.problems.map((p) => p.code)).toEqual(['SET_TOO_LONG']);
    expect(held.segments.length).toBeLessThan(20);
    expect(DEFAULT_MAX_SET_CHARS).toBe(16 * 1024 * 1024);
  });

  it('charges a wrapped file its text once, not a chunk again after each wrapped segment', async () => {
    // One set of 3,000 segments, the file wrapped at 80 columns (a wrapped segment gets a text of its own).
    const body = Array.from({ length: 3_000 }, (_, i) => `REF*BM*${String(i).padStart(6, '0')}~`);
    const file = [ISA, GS, 'ST*856*0001~', ...body, `SE*${body.length + 2}*0001~`, 'GE*1*1~', 'IEA*1*000000101~'].join(
      '',
    );
    const wrapped = file.replace(/.{80}/g, '$&\n');
    const sets: { problems: unknown[]; segments: unknown[] }[] = [];
    for await (const e of readX12([wrapped])) {
      if (e.type === 'transactionSet') {
        sets.push(e.transactionSet);
      }
    }
    expect(sets[0].problems).toEqual([]);
    expect(sets[0].segments).toHaveLength(3_002);
  });

  it('checks syntax notes unless asked not to', () => {
    const lines = [ISA, GS, 'ST*850*0001~', 'N1*ST~', 'SE*3*0001~', 'GE*1*1~', 'IEA*1*000000101~'];
    expect(read(lines).problems.map((p) => p.code)).toEqual(['SYNTAX_NOTE']);
    expect(read(lines, { checkSyntaxNotes: false }).problems).toEqual([]);
  });

  it('takes a TA1 between ISA and GS, nowhere else', () => {
    expect(read([ISA, 'TA1*000000100*260105*0930*A*000~', GS, 'GE*0*1~', 'IEA*1*000000101~']).problems).toEqual([]);
    const inGroup = read([ISA, GS, 'TA1*1~', 'GE*0*1~', 'IEA*1*000000101~']);
    expect(inGroup.problems.map((p) => [p.code, p.message])).toEqual([
      ['SEGMENT_OUTSIDE_SET', 'TA1 outside a transaction set (no open ST)'],
    ]);
    expect(read(['TA1*1~']).problems.map((p) => p.code)).toEqual(['NO_INTERCHANGE']);
  });

  it('says where each envelope segment is out of place', () => {
    const doc = read([
      ISA,
      'ST*850*1~',
      'BEG*00~',
      'GE*1*1~',
      'IEA*1*000000101~',
      'IEA*1*000000101~',
      'GS*PO~',
      'SE*1*1~',
    ]);
    expect(doc.problems.map((p) => [p.code, p.message, p.line])).toEqual([
      ['SEGMENT_OUTSIDE_GROUP', 'ST outside a functional group (no open GS)', 2],
      ['GE_WITHOUT_GS', 'GE without an open functional group', 4],
      ['IEA01_GROUP_COUNT', 'IEA01 "1" but the interchange has 0 group(s)', 5],
      ['IEA_WITHOUT_ISA', 'IEA without an open interchange', 6],
      ['NO_INTERCHANGE', 'GS outside any interchange (no open ISA)', 7],
    ]);
    expect(doc.interchanges[0].problems.map((p) => p.code)).toEqual([
      'SEGMENT_OUTSIDE_GROUP',
      'GE_WITHOUT_GS',
      'IEA01_GROUP_COUNT',
    ]);
  });

  it('reports misplaced segments once in a group, and again once it is closed', () => {
    const doc = read([
      ISA,
      GS,
      'BEG*1~',
      'BEG*2~',
      'ST*850*0001~',
      'SE*2*0001~',
      'REF*1~',
      'REF*2~',
      'GE*1*1~',
      'N1*1~',
      'IEA*1*000000101~',
    ]);
    expect(doc.problems.map((p) => [p.code, p.line])).toEqual([
      ['SEGMENT_OUTSIDE_SET', 3], // and not again in this group (REF at 7)
      ['SEGMENT_OUTSIDE_GROUP', 10],
    ]);
  });

  it('closes what is open at the segment that opens the next, there', () => {
    const doc = read([
      ISA,
      GS,
      'ST*850*0001~',
      'BEG*00~',
      'ST*850*0002~',
      'SE*2*0002~',
      GS.replace('*1*X', '*2*X'),
      'GE*0*2~',
      ISA,
      GS,
      'ST*850*0001~',
      'SE*2*0001~',
      'GE*1*1~',
      'IEA*1*000000101~',
    ]);
    expect(doc.problems.map((p) => [p.code, p.line, p.tag])).toEqual([
      ['MISSING_SE', 5, 'ST'],
      ['MISSING_GE', 7, 'GS'],
      ['MISSING_IEA', 9, 'ISA'],
    ]);
    expect(doc.interchanges).toHaveLength(2);
    expect(doc.interchanges[0].groups.map((g) => g.control)).toEqual(['1', '2']);
  });

  it('places what the input left open at its last segment', () => {
    const doc = read([ISA, GS, 'ST*850*0001~', 'BEG*00~', 'REF*DP*1~']);
    expect(doc.problems.map((p) => [p.code, p.line, p.tag])).toEqual([
      ['MISSING_SE', 5, 'REF'],
      ['MISSING_GE', 5, 'REF'],
      ['MISSING_IEA', 5, 'REF'],
    ]);
    const afterGe = read([ISA, GS, 'ST*850*0001~', 'SE*2*0001~', 'GE*1*1~']);
    expect(afterGe.problems.map((p) => [p.code, p.line, p.tag])).toEqual([['MISSING_IEA', 5, 'GE']]);
  });

  it('trims the ids and control numbers of GS and ST, and keeps ST03 in the summary', () => {
    const doc = read([
      ISA,
      GS.replace('*1*X', '* 7 *X'),
      'ST* 850 * 0001 *X1~',
      'SE*2*0001~',
      'ST*850*0002~',
      'SE*2*0002~',
      'GE*2*7~',
      'IEA*1*000000101~',
    ]);
    const group = doc.interchanges[0].groups[0];
    expect(doc.problems).toEqual([]);
    expect(group.control).toBe('7');
    expect(group.summaries).toEqual([
      { id: '850', control: '0001', implementationReference: 'X1', segmentCount: 2, problems: [] },
      { id: '850', control: '0002', segmentCount: 2, problems: [] },
    ]);
  });
});
