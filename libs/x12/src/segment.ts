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
    /** Character code of the element separator. */
    readonly separator: number,
    readonly tag: string,
    /** 0-based ordinal of the segment in the whole input (ISA included). */
    readonly index: number,
    /** 1-based line and column of the segment's first character in the input. */
    readonly line: number,
    readonly column: number,
  ) {}

  /** A segment of the given values (tests, tools). `separator` must not occur in any of them. */
  static of(tag: string, elements: readonly string[], where: { index?: number; line?: number; column?: number; separator?: string } = {}): Segment {
    const separator = where.separator ?? '*';
    const text = elements.length > 0 ? `${tag}${separator}${elements.join(separator)}` : tag;
    return new Segment(text, 0, text.length, separator.charCodeAt(0), tag, where.index ?? 0, where.line ?? 1, where.column ?? 1);
  }

  /** Element n (1-based, as X12 numbers them: `element(3)` of a BEG is BEG03) as sent; '' when absent. */
  element(n: number): string {
    const count = this.scanned();
    if (n < 1 || n > count) return '';
    return slice(this.text, offsets[base + n - 1], offsets[base + n] - 1);
  }

  /** Element n is there and not blank. */
  hasValue(n: number): boolean {
    const count = this.scanned();
    if (n < 1 || n > count) return false;
    const text = this.text;
    const from = offsets[base + n - 1];
    const to = offsets[base + n] - 1;
    // Nothing in '!'..'~' is white space; a value of other characters only (rare) is left to trim().
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c > 32 && c < 127) return true;
    }
    return to > from && text.slice(from, to).trim().length > 0;
  }

  /** Number of elements (separators in the segment: "BEG" has none, "BEG*" one empty one). */
  get elementCount(): number {
    return this.scanned();
  }

  /** Every element as a string (`elements[0]` is element 01). Builds a new array each time. */
  get elements(): string[] {
    const first = this.start + this.tag.length;
    if (first >= this.end) return [];
    return this.text.slice(first + 1, this.end).split(String.fromCharCode(this.separator));
  }

  /** The plain shape (what JSON and logs show). */
  toJSON(): { tag: string; elements: string[]; index: number; line: number; column: number } {
    return { tag: this.tag, elements: this.elements, index: this.index, line: this.line, column: this.column };
  }

  /**
   * Finds where this segment's elements start unless they are known, and returns its element
   * count; then element n starts at `offsets[base + n - 1]`, and `offsets[base + count]` is the
   * segment's end + 1. Known: the last few hundred segments read (by their index), so reading
   * several elements of a segment, or reading it again soon, scans it once: the syntax notes read
   * a segment as it arrives, the mapping once its whole set is there.
   */
  private scanned(): number {
    const slot = this.index & (SLOTS - 1);
    if (slotSegments[slot] === this) {
      offsets = slotStarts;
      base = slot * SLOT_SIZE;
      return slotCounts[slot];
    }
    if (this === lastLong) {
      offsets = longStarts;
      base = 0;
      return lastLongCount;
    }
    // A huge segment's starts are dropped once another segment is read.
    if (longStarts.length > MAX_KEPT_STARTS) {
      longStarts = new Int32Array(SLOT_SIZE);
      lastLong = undefined;
    }
    const count = scan(this, slotStarts, slot * SLOT_SIZE, SLOT_SIZE);
    if (count !== -1) {
      slotSegments[slot] = this;
      slotCounts[slot] = count;
      offsets = slotStarts;
      base = slot * SLOT_SIZE;
      return count;
    }
    // More elements than a slot holds (rare): kept aside, for this segment only.
    let long: number;
    while ((long = scan(this, longStarts, 0, longStarts.length)) === -1) longStarts = new Int32Array(longStarts.length * 2);
    lastLong = this;
    lastLongCount = long;
    offsets = longStarts;
    base = 0;
    return long;
  }
}

/**
 * Writes where `segment`'s elements start into `into[at ..]`, then its end + 1, and returns its
 * element count; -1 when that takes more than `room` entries.
 */
function scan(segment: Segment, into: Int32Array, at: number, room: number): number {
  const text = segment.text;
  const separator = segment.separator;
  const end = segment.end;
  const last = at + room - 1;
  let count = 0;
  // The tag runs up to the first separator, so the separator before element 01 is right after it.
  let i = segment.start + segment.tag.length;
  while (i < end) {
    if (at + count >= last) return -1;
    into[at + count++] = ++i;
    while (i < end && text.charCodeAt(i) !== separator) i++;
  }
  into[at + count] = end + 1;
  return count;
}

/** Segments whose element starts are known, by index modulo SLOTS; SLOT_SIZE starts each. */
const SLOTS = 256;
const SLOT_SIZE = 32;
const slotSegments: (Segment | undefined)[] = new Array<Segment | undefined>(SLOTS).fill(undefined);
const slotCounts = new Int32Array(SLOTS);
const slotStarts = new Int32Array(SLOTS * SLOT_SIZE);
/** The segment with more elements than a slot holds read last, and its element starts. */
let lastLong: Segment | undefined;
let lastLongCount = 0;
let longStarts = new Int32Array(SLOT_SIZE);
const MAX_KEPT_STARTS = 4096;
/** Where the segment scanned() answered for has its element starts: `offsets[base ..]`. */
let offsets = slotStarts;
let base = 0;

/**
 * Drops the scan cache's references to the segments read last: their text is (a slice of) a
 * whole decoded payload, which would otherwise stay in memory until the next X12 is read.
 */
export function forgetScannedSegment(): void {
  slotSegments.fill(undefined);
  lastLong = undefined;
}

/**
 * Two-character values ("EA", "SK", "00", "92" ...) are shared, internalized strings: they are most
 * of what is read (qualifiers, codes), so reading them allocates nothing, and comparing them with
 * a literal compares pointers. (Slicing one character or none allocates nothing already.)
 */
const PAIRS: (string | undefined)[] = new Array(128 * 128);

/** `text.slice(from, to)`, shared when it is two ASCII characters. */
function slice(text: string, from: number, to: number): string {
  if (to - from === 2) {
    const a = text.charCodeAt(from);
    const b = text.charCodeAt(from + 1);
    if (a < 128 && b < 128) return (PAIRS[(a << 7) | b] ??= internalized(text.slice(from, to)));
  }
  return text.slice(from, to);
}

/** The engine's own copy of a string (property names are internalized): compared by pointer. */
export const internalized = (s: string): string => Object.keys({ [s]: 0 })[0] ?? s;

/**
 * Tags are 2-3 characters of '0'..'Z' (43 codes): each has its own slot in a table of TAG_SLOTS
 * entries, so a table indexed by tag needs no hashing. Returns the slot of `text[from, to)`, or -1
 * when it cannot be a tag (longer, shorter, other characters; the slot does not check that each
 * character is a digit or an upper-case letter).
 */
export function tagSlot(text: string, from: number, to: number): number {
  const length = to - from;
  if (length !== 2 && length !== 3) return -1;
  const a = text.charCodeAt(from) - 48;
  const b = text.charCodeAt(from + 1) - 48;
  const c = length === 3 ? text.charCodeAt(from + 2) - 47 : 0; // 0: no third character, else 1..43
  if (a < 0 || a >= TAG_CODES || b < 0 || b >= TAG_CODES || (length === 3 && (c <= 0 || c > TAG_CODES))) return -1;
  return (a * TAG_CODES + b) * (TAG_CODES + 1) + c;
}
const TAG_CODES = 43;
export const TAG_SLOTS = TAG_CODES * TAG_CODES * (TAG_CODES + 1);
