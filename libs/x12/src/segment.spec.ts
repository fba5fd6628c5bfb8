import { forgetScannedSegment, Segment, TAG_SLOTS, tagSlot } from './segment';

/** A segment lying inside a longer text, as the tokenizer hands them out (terminators around it). */
const inText = (before: string, segment: string, after: string, index = 0) =>
  new Segment(
    `${before}${segment}${after}`,
    before.length,
    before.length + segment.length,
    segment.split('*')[0],
    index,
    1,
    1,
  );

describe('Segment: elements as X12 numbers them', () => {
  it('reads element n (1-based) of a segment inside a longer text, up to its own end', () => {
    const beg = inText('ST*850*0001~', 'BEG*00*SA*PO-1001**20260105', '~REF*DP*012~');
    expect([beg.element(1), beg.element(2), beg.element(3), beg.element(4), beg.element(5)]).toEqual([
      '00',
      'SA',
      'PO-1001',
      '',
      '20260105',
    ]);
    expect(beg.elementCount).toBe(5);
    expect(beg.elements).toEqual(['00', 'SA', 'PO-1001', '', '20260105']);
  });

  it("gives '' for element 0, a negative one, and one past the last", () => {
    const ref = inText('', 'REF*DP*012', '~N1*ST~');
    expect([ref.element(0), ref.element(-1), ref.element(3), ref.element(40)]).toEqual(['', '', '', '']);
  });

  it('tells a segment without elements from one with a single empty element', () => {
    const bare = inText('ST*850*1~', 'SE', '~GE*1*1~');
    expect([bare.elementCount, bare.elements, bare.element(1)]).toEqual([0, [], '']);
    const empty = inText('ST*850*1~', 'SE*', '~GE*1*1~');
    expect([empty.elementCount, empty.elements, empty.element(1)]).toEqual([1, [''], '']);
  });

  it('builds a segment of values with Segment.of (tests, tools)', () => {
    const n1 = Segment.of('N1', ['ST', 'KETTLE SUPPLY', '92', '0042'], { index: 7, line: 3, column: 5 });
    expect(n1.text).toBe('N1*ST*KETTLE SUPPLY*92*0042');
    expect(n1.toJSON()).toEqual({
      tag: 'N1',
      elements: ['ST', 'KETTLE SUPPLY', '92', '0042'],
      index: 7,
      line: 3,
      column: 5,
    });
    expect(n1.element(4)).toBe('0042');
    const piped = Segment.of('REF', ['DP', '012'], { separator: '|' });
    expect([piped.text, piped.element(2), piped.index, piped.line, piped.column]).toEqual([
      'REF|DP|012',
      '012',
      0,
      1,
      1,
    ]);
    const se = Segment.of('SE', []);
    expect([se.text, se.elementCount, se.elements]).toEqual(['SE', 0, []]);
  });
});

describe('Segment.hasValue: an element that is there and not blank', () => {
  const n1 = inText('ST*850*0001~BEG*00*SA~', 'N1*ST*   *92* A *\t*é*\u00a0*~', '~');
  it.each([
    [1, true],
    [2, false], // spaces only: a blank value is not a value
    [3, true],
    [4, true], // padded
    [5, false], // a tab
    [6, true], // a character outside ASCII
    [7, false], // a no-break space is white space too
    [8, true], // '~' is the last printable ASCII character
    [9, false], // empty, the segment's last element
    [10, false], // past the last
    [0, false],
  ])('N1%s: %s', (n, expected) => {
    expect(n1.hasValue(n)).toBe(expected);
  });

  it('is false past the last element when the cache slot held a longer segment before', () => {
    const long = Segment.of('REF', ['A', 'B', 'C', 'D', 'E', 'F'], { index: 7 });
    expect(long.hasValue(6)).toBe(true);
    const short = Segment.of('REF', ['X'.repeat(20)], { index: 7 + 256 });
    expect([short.hasValue(1), short.hasValue(2), short.hasValue(5), short.element(5)]).toEqual([
      true,
      false,
      false,
      '',
    ]);
  });

  it('does not read past the segment into the next one', () => {
    const ref = inText('', 'REF*DP*', 'X~N1*ST~');
    expect([ref.hasValue(1), ref.hasValue(2)]).toEqual([true, false]);
  });
});

describe('Segment.hierarchicalLevel: HL01/HL02 as written plainly, HL03 as one character', () => {
  const hl = (elements: string, after = '~LIN*1~') => inText('ST*856*0001~', `HL*${elements}`, after);
  const read = (segment: Segment) => {
    const into = new Int32Array([5, 5, 5]);
    segment.hierarchicalLevel(into);
    return [...into];
  };
  const I = 73;
  const O = 79;
  it.each([
    ['1*2*I', [1, 2, I]],
    ['12*7*O*1', [12, 7, O]],
    ['123456789*1*I', [123456789, 1, I]], // nine digits, HL01's maximum length
    ['1234567890*1*I', [-1, 1, I]], // ten digits
    ['1**S', [1, 0, 83]], // HL02 empty: no parent
    ['1', [1, 0, 0]], // HL02 and HL03 absent
    ['1*2', [1, 2, 0]],
    ['1*2*', [1, 2, 0]],
    ['1*2*IT', [1, 2, 0]], // a longer code: read with elementOnce
    ['1*2* I', [1, 2, 0]], // padded
    ['1*2* ', [1, 2, 0]],
    ['07*1*I', [-1, 1, I]], // leading zero: not written plainly
    ['0*1*I', [-1, 1, I]],
    [' 7*1*I', [-1, 1, I]],
    ['7 *1*I', [-1, 1, I]],
    ['7/*1*I', [-1, 1, I]], // '/' sorts just below '0'
    ['7:*1*I', [-1, 1, I]], // ':' sorts just above '9'
    ['A7*1*I', [-1, 1, I]],
    ['3*10', [3, 10, 0]], // the segment's last element, a zero inside it
    ['3*1X0*O', [3, -1, O]],
  ])('HL*%s reads as %j', (elements, expected) => {
    expect(read(hl(elements))).toEqual(expected);
  });

  it('reads an HL without elements as nothing', () => {
    expect(read(inText('ST*856*0001~', 'HL', '~LIN*1~'))).toEqual([0, 0, 0]);
  });

  it("stops at the segment's end, not at the next separator in the text", () => {
    expect(read(hl('3*10', '5~LIN*1~'))).toEqual([3, 10, 0]);
    expect(read(hl('3*', '5~LIN*1~'))).toEqual([3, 0, 0]);
    expect(read(hl('3*1*I', 'X~LIN*1~'))).toEqual([3, 1, I]);
  });

  it('reads a segment with another separator than *', () => {
    expect(read(Segment.of('HL', ['4', '3', 'O'], { separator: '|' }))).toEqual([4, 3, O]);
  });
});

describe('Segment.elementOnce: element(n) without the scan cache', () => {
  it.each([
    ['HL*12*7*I', '~LIN*1~'],
    ['HL*1**S', '~TD1~'],
    ['PID*F****STEEL KETTLE', '*X~'], // the text goes on past the segment's end
    ['PRF*PO-7*', '~'], // an empty last element
    ['SE', '~GE*1*1~'], // no elements
    ['SE*', '~GE*1*1~'], // one empty element
    ['N1*ST*  ACME  *92*EA', '~'], // padded, and a shared two-character value
  ])('%s gives what element(n) gives for every n', (segment, after) => {
    const once = inText('ST*856*0001~', segment, after);
    const cached = inText('ST*856*0001~', segment, after, 1);
    for (let n = -1; n <= cached.elementCount + 2; n++) {
      expect([n, once.elementOnce(n)]).toEqual([n, cached.element(n)]);
    }
  });

  it('reads a segment with another separator than *', () => {
    expect(Segment.of('HL', ['4', '3', 'O'], { separator: '|' }).elementOnce(3)).toBe('O');
  });
});

describe('Segment: element positions kept for the segments read last', () => {
  /** Segment `index` of a text, with `count` elements V1..Vcount. */
  const wide = (index: number, count: number, prefix = 'V') =>
    Segment.of(
      'REF',
      Array.from({ length: count }, (_, k) => `${prefix}${k + 1}`),
      { index },
    );

  it.each([29, 30, 31, 32, 33, 64])(
    'a segment of %s elements next to others in the cache leaves theirs intact',
    (count) => {
      const before = wide(9, 3, 'B');
      const after = wide(11, 3, 'A');
      const middle = wide(10, count);
      expect([before.element(3), after.element(3)]).toEqual(['B3', 'A3']);
      expect(middle.elementCount).toBe(count);
      expect(middle.element(count)).toBe(`V${count}`);
      expect(middle.element(count + 1)).toBe('');
      expect([before.elementCount, before.element(3), after.elementCount, after.element(3)]).toEqual([
        3,
        'B3',
        3,
        'A3',
      ]);
      expect([middle.element(1), middle.element(count - 1), middle.elementCount]).toEqual([
        'V1',
        `V${count - 1}`,
        count,
      ]);
    },
  );

  it('reads a huge segment, then others, then the huge one again', () => {
    const huge = wide(300, 5000);
    const longer = wide(301, 9000);
    const small = wide(302, 2);
    expect([huge.elementCount, huge.element(4999), huge.element(5000)]).toEqual([5000, 'V4999', 'V5000']);
    expect([small.element(2), small.elementCount]).toEqual(['V2', 2]);
    expect([longer.elementCount, longer.element(9000)]).toEqual([9000, 'V9000']);
    expect([huge.elementCount, huge.element(1), huge.element(5000)]).toEqual([5000, 'V1', 'V5000']);
    const long = wide(303, 40);
    expect([long.elementCount, long.element(40)]).toEqual([40, 'V40']);
    expect([small.elementCount, small.element(1), small.element(2)]).toEqual([2, 'V1', 'V2']);
    expect([huge.element(2500), longer.element(1)]).toEqual(['V2500', 'V1']);
  });

  it('reads two long segments in turn', () => {
    const a = wide(1, 50, 'A');
    const b = wide(2, 60, 'B');
    for (let round = 0; round < 2; round++) {
      expect([a.elementCount, a.element(50), b.elementCount, b.element(60)]).toEqual([50, 'A50', 60, 'B60']);
    }
  });

  it('reads segments alike after forgetScannedSegment()', () => {
    const s = wide(5, 4);
    expect(s.element(4)).toBe('V4');
    forgetScannedSegment();
    expect([s.elementCount, s.element(4)]).toEqual([4, 'V4']);
  });

  it('shares two-character values: equal to the text they come from', () => {
    const s = Segment.of('N1', ['ST', 'é1', 'AB', 'ABC', 'A']);
    expect([s.element(1), s.element(2), s.element(3), s.element(4), s.element(5)]).toEqual([
      'ST',
      'é1',
      'AB',
      'ABC',
      'A',
    ]);
    expect(Segment.of('N1', ['1i', 'i1']).element(1)).toBe('1i');
    expect(Segment.of('N1', ['1é', 'é1', '\u0101', '\u0080A']).elements).toEqual(['1é', 'é1', '\u0101', '\u0080A']);
    const mixed = Segment.of('N1', ['1é', 'é1', '\u00801', 'Ai']);
    expect([mixed.element(1), mixed.element(2), mixed.element(3), mixed.element(4)]).toEqual([
      '1é',
      'é1',
      '\u00801',
      'Ai',
    ]);
  });
});

describe('tagSlot: one slot per possible tag', () => {
  const CODES = '0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ';

  it('gives every 2- and 3-character tag of 0..Z its own slot in 0..TAG_SLOTS-1', () => {
    const slots: number[] = [];
    for (const a of CODES) {
      for (const b of CODES) {
        for (const c of ['', ...CODES]) {
          const tag = `${a}${b}${c}`;
          slots.push(tagSlot(`*${tag}*`, 1, 1 + tag.length));
        }
      }
    }
    expect(slots.reduce((m, s) => Math.min(m, s))).toBe(0);
    expect(slots.reduce((m, s) => Math.max(m, s))).toBe(TAG_SLOTS - 1);
    expect(new Set(slots).size).toBe(TAG_SLOTS);
  });

  it.each(['', 'S', 'BEGX', 'st', 'Beg', 'B/G', 'BE/', 'BE[', 'B[G', '[E', '/E', 'E ', 'ÉA'])('%j has none', (tag) => {
    expect(tagSlot(tag, 0, tag.length)).toBe(-1);
  });
});
