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
    return slice(this.text, starts[n - 1], starts[n] - 1);
  }

  /** Element n is there and not blank. */
  hasValue(n: number): boolean {
    const count = this.scanned();
    if (n < 1 || n > count) return false;
    const text = this.text;
    const from = starts[n - 1];
    const to = starts[n] - 1;
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
   * Finds where this segment's elements start (into `starts`) unless it is the segment read last,
   * and returns its element count: reading several elements of a segment scans it once.
   */
  private scanned(): number {
    if (this === lastScanned) return lastCount;
    const text = this.text;
    const separator = this.separator;
    const end = this.end;
    let count = 0;
    // A huge segment's offsets are dropped once another segment is read.
    if (starts.length > MAX_KEPT_STARTS) starts = new Int32Array(64);
    // The tag runs up to the first separator, so the separator before element 01 is right after it.
    let at = this.start + this.tag.length;
    while (at < end) {
      if (count + 1 >= starts.length) grow(count + 2);
      starts[count++] = ++at;
      while (at < end && text.charCodeAt(at) !== separator) at++;
    }
    starts[count] = end + 1;
    lastScanned = this;
    lastCount = count;
    return count;
  }
}

/** Element starts of the segment scanned last (`starts[n - 1]` for element n, `starts[count]` = end + 1). */
let starts = new Int32Array(64);
let lastScanned: Segment | undefined;
let lastCount = 0;

/**
 * Drops the scan cache's reference to the segment read last: its text is (a slice of) a whole
 * decoded payload, which would otherwise stay in memory until the next X12 is read.
 */
export function forgetScannedSegment(): void {
  lastScanned = undefined;
}
const MAX_KEPT_STARTS = 4096;

function grow(size: number): void {
  const bigger = new Int32Array(Math.max(size, starts.length * 2));
  bigger.set(starts);
  starts = bigger;
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
