import { internalized, Segment as SegmentClass, TAG_CODES, TAG_SLOTS, tagSlot as segmentTagSlot } from './segment';
import type { Delimiters, Problem } from './x12.types';

/** Receives what the tokenizer reads, in input order. */
export interface TokenizerSink {
  /** `tagSlot`: the slot of the segment's tag (segment.ts `tagSlot`) when the tokenizer knows it, else -1. */
  segment(segment: SegmentClass, delimiters: Delimiters, tagSlot: number): void;
  problem(problem: Problem): void;
}

const LF = 10;
const CR = 13;
const BOM = 0xfeff;
/** An ISA is 106 characters; allow for line breaks wrapped into it, then give up. */
const MAX_ISA_SPAN = 512;
export const DEFAULT_MAX_SEGMENT_LENGTH = 1024 * 1024;

const isBlank = (c: number) => c === 32 || c === 9 || c === LF || c === CR || c === BOM || c === 11 || c === 12;
const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** X12 tags are 2-3 upper-case letters/digits; `tag` has a tag slot (2-3 characters of '0'..'Z'). */
const isTag = (tag: string) => {
  for (let i = 0; i < tag.length; i++) {
    const c = tag.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90))) {
      return false;
    }
  }
  return true;
};
/**
 * Well-formed tags are handed out as one shared, internalized string each (there are few of them),
 * so a file's millions of segments do not each allocate their tag, and `tag === 'HL'` or a table
 * lookup by tag compares one pointer. Indexed by tagSlot (no hashing, no collisions); anything
 * else is sliced.
 */
// Stryker disable next-line ArrayDeclaration: equivalent, an array takes any index (the length only sizes it up front)
const TAGS: (string | undefined)[] = new Array(TAG_SLOTS);
// Module-local bindings: the build's CommonJS output reads an import through a getter at every
// use, which costs more than this little function itself (it runs for every segment), and the
// optimised loop did not inline the getter of Segment either (1.6% of reading and mapping an 856).
const tagSlot = segmentTagSlot;
const Segment = SegmentClass;
const CODES = TAG_CODES;
/** Set by tagOf: the slot of the tag it returned when that came from TAGS (so it is a valid tag), else -1. */
// Stryker disable next-line UnaryOperator: equivalent, tagOf sets it before anything reads it
let knownTagSlot = -1;
function tagOf(text: string, from: number, to: number): string {
  knownTagSlot = -1;
  const slot = tagSlot(text, from, to);
  if (slot === -1) {
    return text.slice(from, to);
  }
  const known = TAGS[slot];
  if (known !== undefined) {
    knownTagSlot = slot;
    return known;
  }
  const tag = text.slice(from, to);
  if (!isTag(tag)) {
    return tag;
  }
  knownTagSlot = slot;
  return (TAGS[slot] = internalized(tag));
}
const NEWLINES = /[\r\n]/g;

type IsaResult = { end: number; segmentText: string; delimiters: Delimiters } | { fail: Problem } | 'wait';

/**
 * Push tokenizer: `write()` text in pieces of any size (split anywhere), then `end()`.
 * Keeps only the unfinished segment between writes, so memory is bounded by the longest
 * segment (capped by maxSegmentLength), never by the input.
 *
 * Rules:
 * - Delimiters come from each ISA: element = the character after "ISA"; then 16 element
 *   separators are counted (CR/LF skipped: wrapped ISAs); ISA16 is the component separator and
 *   the character right after it is the segment terminator. Every ISA re-detects them.
 * - Blanks (space, tab, CR, LF, BOM) before a segment are skipped: BOM, leading newlines,
 *   CR/LF after terminators, padding at the end of a file.
 * - CR and LF are never data: inside a segment they are removed (lines hard-wrapped at 80
 *   columns). When the terminator itself is LF or CR, every line break ends a segment and a
 *   wrapped line cannot be told from a segment end; such a file reads as broken segments
 *   (bad tags, SE01 mismatch), which is reported, not guessed at.
 * - Anything before the first ISA (or after an unreadable one) that is not blank is reported
 *   once per run as NO_INTERCHANGE and skipped up to the next "ISA".
 * - A last segment without terminator is kept, with a MISSING_TERMINATOR warning.
 */
export class X12Tokenizer {
  private pending = '';
  // Stryker disable next-line BooleanLiteral: equivalent, write, resume and end clear it (readRest) before reading
  private pauseRequested = false;
  /** What a paused write left: `restText` from `restFrom` (-1: not paused). */
  // Stryker disable next-line StringLiteral: equivalent, read only while restFrom is not -1
  private restText = '';
  private restFrom = -1;
  /** readPlainSegments' next LF and CR at or after `breaksAt` in `breaksIn` (-1: not looked for yet, its length: none). */
  // Stryker disable next-line StringLiteral: equivalent, a cache key: a miss only looks the line breaks up again
  private breaksIn = '';
  private breaksAt = 0;
  // Stryker disable next-line UnaryOperator: equivalent, reset by the first readPlainSegments (its text is not breaksIn)
  private nextLF = -1;
  // Stryker disable next-line UnaryOperator: equivalent, reset by the first readPlainSegments (its text is not breaksIn)
  private nextCR = -1;
  private state: 'seek' | 'body' | 'discard' = 'seek';
  private delimiters?: Delimiters;
  private line = 1;
  private column = 1;
  private previousWasCR = false;
  private index = 0;
  private junkReported = false;
  private readonly maxSegmentLength: number;

  constructor(
    private readonly sink: TokenizerSink,
    options: { maxSegmentLength?: number } = {},
  ) {
    this.maxSegmentLength = options.maxSegmentLength ?? DEFAULT_MAX_SEGMENT_LENGTH;
  }

  /** Number of segments emitted so far. */
  get segmentCount(): number {
    return this.index;
  }

  /**
   * Called by the sink: the write (or resume) under way returns right after the segment being
   * handed over, so that its consumer can use what it was given while it is fresh in the CPU's
   * caches (readX12 hands out each transaction set as it completes). `paused` then tells that
   * text is left, which resume() reads on; write() and end() first read it all.
   */
  pause(): void {
    this.pauseRequested = true;
  }

  get paused(): boolean {
    return this.restFrom !== -1;
  }

  /** Reads on where a pause stopped, up to the next pause. */
  resume(): void {
    this.readRest(true);
  }

  write(text: string): void {
    this.finishPaused();
    // Stryker disable next-line BlockStatement: equivalent, reading no text reads the pending one again, up to where it stopped
    if (text.length === 0) {
      return;
    }
    let from = 0;
    if (this.pending.length > 0) {
      // Finish the unfinished segment on a short joined string, then read on in `text` itself:
      // `pending + text` would be a cons string, slower to index for every segment after it.
      const terminator = this.state === 'body' ? text.indexOf(this.delimiters!.segment) : -1;
      const head = this.pending + (terminator === -1 ? text : text.slice(0, terminator + 1));
      this.run(head, 0, false); // sets pending to what it leaves
      if (terminator === -1) {
        return;
      }
      from = terminator + 1;
      if (this.pending.length > 0) {
        // The head did not end a segment (a new ISA changed the delimiters): join as usual.
        return this.run(this.pending + text.slice(from), 0, false, true);
      }
    }
    this.run(text, from, false, true);
  }

  end(): void {
    this.finishPaused();
    this.run(this.pending, 0, true);
  }

  /** Reads what a pause left, without pausing again. */
  private finishPaused(): void {
    this.readRest(false);
  }

  private readRest(mayPause: boolean): void {
    this.pauseRequested = false;
    const from = this.restFrom;
    if (from === -1) {
      return;
    }
    const text = this.restText;
    // Stryker disable next-line StringLiteral: equivalent, only lets the text go (restFrom -1 says there is none)
    this.restText = '';
    this.restFrom = -1;
    this.run(text, from, false, mayPause);
  }

  /** Reads `text` from `from`; with `mayPause`, stops where pause() asks (the rest is kept for resume()). */
  private run(text: string, from: number, final: boolean, mayPause = false): void {
    const n = text.length;
    let pos = from;
    // Next CR/LF at or after pos (Infinity when none): tells in O(1) whether a segment is wrapped.
    let nextLF = -1;
    let nextCR = -1;
    while (pos < n) {
      if (this.pauseRequested && mayPause) {
        this.restText = text;
        this.restFrom = pos;
        return;
      }
      // Stryker disable next-line StringLiteral: equivalent, the fast path skipped, run() reads the same segments itself
      if (this.state === 'body') {
        pos = this.readPlainSegments(text, pos);
        // Stryker disable next-line BlockStatement: equivalent, the loop's own condition stops there
        if (pos >= n) {
          break;
        }
        if (this.pauseRequested && mayPause) {
          continue;
        }
      }
      if (this.state === 'discard') {
        const term = this.delimiters!.segment;
        const idx = text.indexOf(term, pos);
        const stop = idx === -1 ? n : idx + 1;
        this.advanceOver(text, pos, stop);
        pos = stop;
        if (idx !== -1) {
          this.state = 'body';
        }
        continue;
      }
      const c = text.charCodeAt(pos);
      if ((c <= 32 || c === BOM) && isBlank(c)) {
        this.advance(c);
        pos++;
        continue;
      }
      // Need 4 characters to tell an ISA ("ISA" + separator) from anything else.
      if (n - pos < 4 && !final) {
        break;
      }
      if (c === 73 && this.startsIsa(text, pos)) {
        const isa = this.readIsa(text, pos, final);
        if (isa === 'wait') {
          break;
        }
        if ('fail' in isa) {
          this.sink.problem(isa.fail);
          this.state = 'seek';
          this.delimiters = undefined;
          this.junkReported = true; // the failed ISA was reported; what follows is its debris
          this.advanceOver(text, pos, pos + 3);
          pos += 3;
          continue;
        }
        const line = this.line;
        const column = this.column;
        this.advanceOver(text, pos, isa.end);
        pos = isa.end;
        this.delimiters = isa.delimiters;
        this.state = 'body';
        const isaText = isa.segmentText;
        this.sink.segment(
          new Segment(isaText, 0, isaText.length, 'ISA', this.index++, line, column),
          isa.delimiters,
          -1,
        );
        continue;
      }
      if (this.state === 'seek') {
        if (!this.junkReported) {
          this.junkReported = true;
          this.sink.problem(
            this.problemHere(
              'NO_INTERCHANGE',
              'error',
              'data outside any interchange (no ISA before it): skipped up to the next ISA',
            ),
          );
        }
        // Stryker disable next-line StringLiteral: equivalent, searching '' skips the junk one character at a time, reported once all the same
        const idx = text.indexOf('ISA', pos + 1);
        // Keep the last 2 characters when no ISA is seen: "ISA" may straddle two chunks (4 or more
        // are left here when not final).
        const stop = idx !== -1 ? idx : final ? n : n - 2;
        this.advanceOver(text, pos, stop);
        pos = stop;
        continue;
      }

      // A segment in the body of an interchange.
      const d = this.delimiters!;
      const idx = text.indexOf(d.segment, pos);
      const end = idx === -1 ? n : idx;
      if (end - pos > this.maxSegmentLength) {
        this.sink.problem(
          this.problemHere(
            'SEGMENT_TOO_LONG',
            'error',
            `segment longer than ${this.maxSegmentLength} characters without a terminator: discarded`,
          ),
        );
        this.advanceOver(text, pos, idx === -1 ? n : idx + 1);
        pos = idx === -1 ? n : idx + 1;
        if (idx === -1) {
          this.state = 'discard';
        }
        continue;
      }
      if (idx === -1 && !final) {
        break;
      }

      if (nextLF !== Infinity && nextLF < pos) {
        nextLF = indexOrInfinity(text, '\n', pos);
      }
      if (nextCR !== Infinity && nextCR < pos) {
        nextCR = indexOrInfinity(text, '\r', pos);
      }
      const line = this.line;
      const column = this.column;
      const start = pos;
      if (idx === -1) {
        pos = n;
      } else {
        pos = idx + 1;
      }
      if (nextLF < end || nextCR < end) {
        // Wrapped: the line breaks inside are not data.
        this.advanceOver(text, start, end);
        if (idx !== -1) {
          this.advance(text.charCodeAt(idx));
        }
        const raw = text.slice(start, end).replace(NEWLINES, '');
        this.emit(raw, 0, raw.length, d, line, column, idx === -1);
      } else {
        // The common case: the segment points into the text (nothing copied).
        this.column += end - start;
        this.previousWasCR = false;
        if (idx !== -1) {
          this.advance(text.charCodeAt(idx));
        }
        this.emit(text, start, end, d, line, column, idx === -1);
      }
    }
    this.pending = text.slice(pos);
  }

  /**
   * The common case, in a tight loop: body segments that start with their tag, end with the
   * terminator within `text` and hold no line break, and the line breaks between them. Stops at
   * anything else (other blanks, an ISA, a wrapped, unterminated or too long segment, the last 3
   * characters, a pause) and returns where: run() deals with that as it does with everything.
   */
  private readPlainSegments(text: string, pos: number): number {
    const n = text.length;
    const d = this.delimiters!;
    const terminator = d.segment;
    const separator = d.element.charCodeAt(0);
    // Next LF and CR at or after pos (n when none, -1 when not looked for): tells in O(1) whether a
    // segment is wrapped. Kept between calls that read on in the same text (a text without CR is
    // searched once, not once per pause). Whole numbers, not Infinity: the loop stays in integers.
    if (text !== this.breaksIn || pos < this.breaksAt) {
      this.breaksIn = text;
      this.nextLF = -1;
      this.nextCR = -1;
    }
    let nextLF = this.nextLF;
    let nextCR = this.nextCR;
    while (n - pos >= 4 && !this.pauseRequested) {
      const c = text.charCodeAt(pos);
      if (c === LF || c === CR) {
        this.advance(c);
        pos++;
        continue;
      }
      if (c <= 32 || c === BOM || (c === 73 && this.startsIsa(text, pos))) {
        break;
      }
      const idx = text.indexOf(terminator, pos);
      if (idx === -1 || idx - pos > this.maxSegmentLength) {
        break;
      }
      if (nextLF < pos) {
        nextLF = text.indexOf('\n', pos);
        if (nextLF === -1) {
          nextLF = n;
        }
      }
      if (nextCR < pos) {
        nextCR = text.indexOf('\r', pos);
        if (nextCR === -1) {
          nextCR = n;
        }
      }
      if (nextLF < idx || nextCR < idx) {
        break;
      }
      const line = this.line;
      const column = this.column;
      this.column += idx - pos;
      this.previousWasCR = false;
      this.advance(text.charCodeAt(idx));
      // A known tag of 2 or 3 characters, found here without a call: its slot (segment.ts tagSlot)
      // from the characters, its string from TAGS. Anything else takes emit().
      const length = idx - pos;
      const tagLength =
        length === 2 || (length > 2 && text.charCodeAt(pos + 2) === separator)
          ? 2
          : length === 3 || (length > 3 && text.charCodeAt(pos + 3) === separator)
            ? 3
            : 0;
      const a = text.charCodeAt(pos) - 48;
      const b = text.charCodeAt(pos + 1) - 48;
      const third = tagLength === 3 ? text.charCodeAt(pos + 2) - 47 : 0;
      const slot =
        tagLength !== 0 &&
        a >= 0 &&
        a < CODES &&
        b >= 0 &&
        b < CODES &&
        (tagLength === 2 || (third > 0 && third <= CODES))
          ? (a * CODES + b) * (CODES + 1) + third
          : -1;
      const tag = slot === -1 ? undefined : TAGS[slot];
      if (tag === undefined) {
        this.emit(text, pos, idx, d, line, column, false);
      } else {
        this.sink.segment(new Segment(text, pos, idx, tag, this.index++, line, column), d, slot);
      }
      pos = idx + 1;
    }
    this.nextLF = nextLF;
    this.nextCR = nextCR;
    this.breaksAt = pos;
    return pos;
  }

  /** Emits the segment `text[from, to)` (no terminator, no line breaks). */
  private emit(
    text: string,
    from: number,
    to: number,
    d: Delimiters,
    line: number,
    column: number,
    unterminated: boolean,
  ): void {
    if (from === to) {
      this.sink.problem({
        code: 'EMPTY_SEGMENT',
        severity: 'warning',
        message: 'empty segment (two terminators in a row)',
        segmentIndex: this.index,
        line,
        column,
      });
      return;
    }
    // The tag runs up to the first separator (2-3 characters); elements are left in the text.
    const separator = d.element.charCodeAt(0);
    let tagEnd = from;
    while (tagEnd < to && text.charCodeAt(tagEnd) !== separator) {
      tagEnd++;
    }
    const tag = tagOf(text, from, tagEnd);
    const slot = knownTagSlot;
    const validTag = slot !== -1;
    const segment = new Segment(text, from, to, tag, this.index++, line, column);
    if (!validTag) {
      this.sink.problem({
        code: 'INVALID_SEGMENT_TAG',
        severity: 'error',
        message: `"${tag.slice(0, 20)}" is not a segment tag`,
        segmentIndex: segment.index,
        line,
        column,
        tag: tag.slice(0, 20),
      });
    }
    if (unterminated) {
      this.sink.problem({
        code: 'MISSING_TERMINATOR',
        severity: 'warning',
        message: `last segment ${tag.slice(0, 20)} has no segment terminator "${printable(d.segment)}"`,
        segmentIndex: segment.index,
        line,
        column,
        tag: tag.slice(0, 20),
      });
    }
    // The slot spares the syntax notes working it out again.
    this.sink.segment(segment, d, slot);
  }

  /** The "ISA" of an ISA segment at `pos`, whose "I" the caller has seen. */
  private startsIsa(text: string, pos: number): boolean {
    if (pos + 3 >= text.length) {
      return false;
    }
    if (text.charCodeAt(pos + 1) !== 83 || text.charCodeAt(pos + 2) !== 65) {
      return false;
    }
    const sep = text.charCodeAt(pos + 3);
    return !isAlnum(sep) && !isBlank(sep);
  }

  /** Finds the delimiters of the ISA at `pos`; 'wait' when the text ends before the ISA does. */
  private readIsa(text: string, pos: number, final: boolean): IsaResult {
    const n = text.length;
    const sep = text[pos + 3];
    let count = 0;
    let i = pos + 4;
    // The separator after "ISA" is the first of 16; count the other 15 (it is no line break: startsIsa).
    while (i < n && count < 15) {
      if (text[i] === sep) {
        count++;
      }
      i++;
      if (i - pos > MAX_ISA_SPAN) {
        return {
          fail: this.problemHere(
            'ISA_INVALID',
            'error',
            `ISA without 16 elements separated by "${printable(sep)}": interchange skipped`,
            'ISA',
          ),
        };
      }
    }
    // Fewer than 15 only at the end of the text: waits or fails below.
    while (i < n && (text.charCodeAt(i) === LF || text.charCodeAt(i) === CR)) {
      i++;
    }
    // ISA16 and the terminator right after it.
    if (i + 1 >= n) {
      return final
        ? { fail: this.problemHere('ISA_TRUNCATED', 'error', 'input ends inside an ISA segment', 'ISA') }
        : 'wait';
    }
    const component = text[i];
    const segment = text[i + 1];
    const delimiters: Delimiters = { element: sep, component, segment };
    const codes = [sep, component, segment].map((s) => s.charCodeAt(0));
    if (new Set([sep, component, segment]).size !== 3 || codes.some(isAlnum) || component === ' ') {
      return {
        fail: this.problemHere(
          'DELIMITERS_INVALID',
          'error',
          `ISA delimiters unusable: element "${printable(sep)}", component "${printable(component)}", terminator "${printable(segment)}"`,
          'ISA',
        ),
      };
    }
    const segmentText = text.slice(pos, i + 1).replace(NEWLINES, '');
    const isa11 = segmentText.split(sep)[11];
    if (
      isa11.length === 1 &&
      !isAlnum(isa11.charCodeAt(0)) &&
      !isBlank(isa11.charCodeAt(0)) &&
      isa11 !== component &&
      isa11 !== segment
    ) {
      delimiters.repetition = isa11;
    }
    return { end: i + 2, segmentText, delimiters };
  }

  private problemHere(code: Problem['code'], severity: Problem['severity'], message: string, tag?: string): Problem {
    return {
      code,
      severity,
      message,
      segmentIndex: this.index,
      line: this.line,
      column: this.column,
      ...(tag ? { tag } : {}),
    };
  }

  private advance(c: number): void {
    if (c === LF) {
      if (!this.previousWasCR) {
        this.line++;
      }
      this.column = 1;
      this.previousWasCR = false;
    } else if (c === CR) {
      this.line++;
      this.column = 1;
      this.previousWasCR = true;
    } else {
      if (c !== BOM) {
        this.column++;
      }
      this.previousWasCR = false;
    }
  }

  private advanceOver(text: string, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      this.advance(text.charCodeAt(i));
    }
  }
}

function indexOrInfinity(text: string, search: string, from: number): number {
  const i = text.indexOf(search, from);
  return i === -1 ? Infinity : i;
}

/** Shows control characters in messages. */
export function printable(s: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it shows
  return s.replace(/[\x00-\x1f\x7f]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
