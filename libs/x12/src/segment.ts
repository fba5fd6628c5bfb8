/**
 * One segment as read: where it lies in the decoded text, not its elements cut into strings.
 * A file has millions of segments and most elements are never looked at (or only compared), so
 * elements are found on demand by scanning from the segment's start: `element(n)` slices one value,
 * `hasValue(n)` tells a filled element without slicing, `elements` builds the whole array.
 */
export class Segment {
  constructor(
    /** The text the segment lies in (shared with its neighbours: nothing is copied). */
    readonly text: string,
    /** `text[start, end)` is the segment: tag, separators and elements, no terminator or line breaks. */
    readonly start: number,
    readonly end: number,
    /** Runs up to the first element separator (or the segment's end), so the separator is the character after it. */
    readonly tag: string,
    /** 0-based ordinal of the segment in the whole input (ISA included). */
    readonly index: number,
    /** 1-based line and column of the segment's first character in the input. */
    readonly line: number,
    readonly column: number,
  ) {}

  /** A segment of the given values (tests, tools). `separator` must not occur in any of them. */
  static of(
    tag: string,
    elements: readonly string[],
    where: { index?: number; line?: number; column?: number; separator?: string } = {},
  ): Segment {
    const separator = where.separator ?? '*';
    const text = elements.length > 0 ? `${tag}${separator}${elements.join(separator)}` : tag;
    return new Segment(text, 0, text.length, tag, where.index ?? 0, where.line ?? 1, where.column ?? 1);
  }

  /** Element n (1-based, as X12 numbers them: `element(3)` of a BEG is BEG03) as sent; '' when absent. */
  element(n: number): string {
    const at = this.scanned();
    if (n < 1 || n > starts[at]) {
      return '';
    }
    return slice(this.text, starts[at + n], starts[at + n + 1] - 1);
  }

  /**
   * Element n as `element(n)` gives it, read straight from the text without the scan cache: for a
   * segment of which one element is read once (HL03, PRF01, PID05), where filling the cache (and
   * the store of the segment into it) costs more than walking to the element again.
   */
  elementOnce(n: number): string {
    const text = this.text;
    const end = this.end;
    let i = this.start + this.tag.length; // the separator before element 01
    if (n < 1 || i >= end) {
      return '';
    }
    const separator = text.charCodeAt(i);
    for (let k = 1; k < n; k++) {
      i++;
      while (i < end && text.charCodeAt(i) !== separator) {
        i++;
      }
      if (i >= end) {
        return '';
      }
    }
    const from = i + 1;
    let to = from;
    while (to < end && text.charCodeAt(to) !== separator) {
      to++;
    }
    return slice(text, from, to);
  }

  /** Element n is there and not blank. */
  hasValue(n: number): boolean {
    const at = this.scanned();
    if (n < 1 || n > starts[at]) {
      return false;
    }
    const text = this.text;
    const from = starts[at + n];
    const to = starts[at + n + 1] - 1;
    // Nothing in '!'..'~' is white space; a value of other characters only (rare) is left to trim().
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c > 32 && c < 127) {
        return true;
      }
    }
    return to > from && text.slice(from, to).trim().length > 0;
  }

  /**
   * HL01, HL02 and HL03 of an HL segment, read in one walk from its start (an 856 has a level every
   * few segments; three walks cost the mapping 5%). HL01 into `into[0]` and HL02 into `into[1]`, each
   * as a positive whole number written plainly (1 to 9 digits, no leading zero: "7", not "07" or
   * " 7"), 0 when empty or absent, -1 for anything else; HL03 into `into[2]` as the character code of
   * a code of one printable character ('I' is 73), else 0 (empty, absent, longer or padded: read it
   * with elementOnce(3)).
   */
  hierarchicalLevel(into: Int32Array): void {
    const text = this.text;
    const end = this.end;
    let i = this.start + this.tag.length; // the separator before element 01
    into[0] = 0;
    into[1] = 0;
    into[2] = 0;
    const separator = text.charCodeAt(i);
    for (let n = 0; n < 2; n++) {
      if (i >= end) {
        return;
      }
      let value = 0;
      let digits = 0;
      for (i++; i < end; i++) {
        const c = text.charCodeAt(i);
        if (c === separator) {
          break;
        }
        if (c < 48 || c > 57 || digits === 9 || (c === 48 && digits === 0)) {
          value = -1;
        } else if (value !== -1) {
          value = value * 10 + (c - 48);
          digits++;
        }
      }
      into[n] = value;
    }
    // i is at the separator before HL03, or at the end.
    if (i + 1 < end && (i + 2 === end || text.charCodeAt(i + 2) === separator)) {
      const c = text.charCodeAt(i + 1);
      into[2] = c > 32 && c < 127 ? c : 0;
    }
  }

  /** Number of elements (separators in the segment: "BEG" has none, "BEG*" one empty one). */
  get elementCount(): number {
    const at = this.scanned(); // first: it may replace `starts`
    return starts[at];
  }

  /** Every element as a string (`elements[0]` is element 01). Builds a new array each time. */
  get elements(): string[] {
    const first = this.start + this.tag.length;
    if (first >= this.end) {
      return [];
    }
    return this.text.slice(first + 1, this.end).split(this.text[first]);
  }

  /** The plain shape (what JSON and logs show). */
  toJSON(): { tag: string; elements: string[]; index: number; line: number; column: number } {
    return { tag: this.tag, elements: this.elements, index: this.index, line: this.line, column: this.column };
  }

  /**
   * Finds where this segment's elements start unless they are known, and returns where they are
   * in `starts`: `starts[at]` is its element count, element n starts at `starts[at + n]`, and
   * `starts[at + count + 1]` is the segment's end + 1. Known: the last few hundred segments read
   * (by their index), so reading several elements of a segment, or reading it again soon, scans it
   * once: the syntax notes read a segment as it arrives, the mapping once its whole set is there.
   */
  private scanned(): number {
    const slot = this.index & (SLOTS - 1);
    const at = slot * SLOT_SIZE;
    // Stryker disable next-line BlockStatement: equivalent, a segment whose starts are known is scanned again alike
    if (slotSegments[slot] === this) {
      return at;
    }
    // Stryker disable next-line BlockStatement: equivalent, the long segment is scanned again alike
    if (this === lastLong) {
      return LONG_AREA;
    }
    // A huge segment's starts are dropped once another segment is read.
    // Stryker disable next-line all: equivalent, only bounds memory (what is dropped is scanned again)
    if (starts.length > LONG_AREA + MAX_KEPT_STARTS) {
      // Stryker disable next-line MethodExpression: equivalent, only bounds memory
      starts = starts.slice(0, LONG_AREA + SLOT_SIZE);
      lastLong = undefined;
    }
    // Stryker disable next-line BlockStatement: equivalent, the long area holds any segment (the slot only spares a rescan)
    if (scan(this, at, SLOT_SIZE)) {
      slotSegments[slot] = this;
      return at;
    }
    // More elements than a slot holds (rare). The failed scan wrote over the slot: forget it.
    slotSegments[slot] = undefined;
    while (!scan(this, LONG_AREA, starts.length - LONG_AREA)) {
      const bigger = new Int32Array(LONG_AREA + (starts.length - LONG_AREA) * 2);
      bigger.set(starts.subarray(0, LONG_AREA));
      starts = bigger;
    }
    lastLong = this;
    return LONG_AREA;
  }
}

/**
 * Writes `segment`'s element count into `starts[at]`, where each element starts after it, then
 * its end + 1; false when that takes more than `room` entries.
 */
function scan(segment: Segment, at: number, room: number): boolean {
  const into = starts;
  const text = segment.text;
  const end = segment.end;
  const last = at + room - 1;
  let next = at + 1;
  // The tag runs up to the first separator, so the separator before element 01 is right after it
  // (none when the tag is the whole segment: no elements, the loop does not run).
  let i = segment.start + segment.tag.length;
  const separator = text.charCodeAt(i);
  while (i < end) {
    if (next >= last) {
      return false;
    }
    into[next++] = ++i;
    while (i < end && text.charCodeAt(i) !== separator) {
      i++;
    }
  }
  into[next] = end + 1;
  into[at] = next - at - 1;
  return true;
}

/**
 * Element starts of the segments scanned last (see scanned()): one slot of SLOT_SIZE entries per
 * segment index modulo SLOTS, then the long area, for the one segment read last that has more
 * elements than a slot holds (grown as needed). One array, so that reading an element needs no
 * other state than where its segment is.
 */
const SLOTS = 256;
const SLOT_SIZE = 32;
const LONG_AREA = SLOTS * SLOT_SIZE;
const MAX_KEPT_STARTS = 4096;
// Stryker disable next-line ArrayDeclaration: equivalent, an array takes any index
const slotSegments: (Segment | undefined)[] = new Array<Segment | undefined>(SLOTS).fill(undefined);
let lastLong: Segment | undefined;
let starts = new Int32Array(LONG_AREA + SLOT_SIZE);

/**
 * Drops the scan cache's references to the segments read last: their text is (a slice of) a
 * whole decoded payload, which would otherwise stay in memory until the next X12 is read.
 */
// Stryker disable next-line BlockStatement: equivalent, only lets the segments go (slots are matched by identity)
export function forgetScannedSegment(): void {
  slotSegments.fill(undefined);
  lastLong = undefined;
}

/**
 * Two-character values ("EA", "SK", "00", "92" ...) are shared, internalized strings: they are most
 * of what is read (qualifiers, codes), so reading them allocates nothing, and comparing them with
 * a literal compares pointers. (Slicing one character or none allocates nothing already.)
 */
// Stryker disable next-line ArrayDeclaration,ArithmeticOperator: equivalent, an array takes any index
const PAIRS: (string | undefined)[] = new Array(128 * 128);

/** `text.slice(from, to)`, shared when it is two ASCII characters. */
function slice(text: string, from: number, to: number): string {
  if (to - from === 2) {
    const a = text.charCodeAt(from);
    const b = text.charCodeAt(from + 1);
    if (a < 128 && b < 128) {
      return (PAIRS[(a << 7) | b] ??= internalized(text.slice(from, to)));
    }
  }
  return text.slice(from, to);
}

/** The engine's own copy of a string (property names are internalized): compared by pointer. */
// Stryker disable next-line LogicalOperator,ObjectLiteral: equivalent, the same string either way (only not the engine's own copy)
export const internalized = (s: string): string => Object.keys({ [s]: 0 })[0] ?? s;

/**
 * Tags are 2-3 characters of '0'..'Z' (43 codes): each has its own slot in a table of TAG_SLOTS
 * entries, so a table indexed by tag needs no hashing. Returns the slot of `text[from, to)`, or -1
 * when it cannot be a tag (longer, shorter, other characters; the slot does not check that each
 * character is a digit or an upper-case letter).
 */
export function tagSlot(text: string, from: number, to: number): number {
  const length = to - from;
  if (length !== 2 && length !== 3) {
    return -1;
  }
  const a = text.charCodeAt(from) - 48;
  const b = text.charCodeAt(from + 1) - 48;
  const c = length === 3 ? text.charCodeAt(from + 2) - 47 : 0; // 0: no third character, else 1..43
  if (a < 0 || a >= TAG_CODES || b < 0 || b >= TAG_CODES || (length === 3 && (c <= 0 || c > TAG_CODES))) {
    return -1;
  }
  return (a * TAG_CODES + b) * (TAG_CODES + 1) + c;
}
export const TAG_CODES = 43;
export const TAG_SLOTS = TAG_CODES * TAG_CODES * (TAG_CODES + 1);
