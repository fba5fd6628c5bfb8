import {
  isaFields,
  validateGroupHeader,
  validateGroupTrailer,
  validateInterchangeTrailer,
  validateIsa,
  validateSetHeader,
  validateSetTrailer,
} from './envelope.validation';
import { SEGMENT_ERROR } from './acknowledgment-codes';
import { ControlNumbers } from './control-numbers';
import { Segment } from './segment';
import { checkSyntaxNotes, SYNTAX_NOTES } from './syntax-notes';
import type { TokenizerSink } from './tokenizer';
import type {
  Delimiters,
  FunctionalGroup,
  Interchange,
  Problem,
  TransactionSet,
  TransactionSetSummary,
  X12Event,
  X12ReadOptions,
} from './x12.types';

/**
 * Groups tokenized segments into Interchange > FunctionalGroup > TransactionSet and runs the
 * envelope checks as each structure closes. Emits events in input order; a transaction set is
 * emitted (and, unless retained, forgotten) as soon as its SE arrives, so memory holds one set
 * at a time; a streamed group counts its sets and keeps nothing of them (its 997 is written by the
 * consumer as each set is handed out: FunctionalAcknowledgmentWriter).
 */
/**
 * Segments a transaction set may hold by default (X12ReadOptions.maxSetSegments): ~12 MB of a
 * worker's heap while it is read; an 856 of 25,000 items of four segments each. A 49 MB ASN of
 * 700,000 items ran a 192 MiB worker out of heap.
 */
export const DEFAULT_MAX_SET_SEGMENTS = 100_000;
/**
 * Characters of input a transaction set may hold by default (X12ReadOptions.maxSetChars): a kept
 * segment holds the whole text it lies in (a chunk of the input), so 100,000 segments of 2.5 KB held
 * 250 MB, as did a few hundred short ones each after 64 KiB of blank lines, and a 192 MiB worker ran
 * out of heap. An 856 of 10,000 items (the platform's most loads a document) is ~2 MB.
 */
export const DEFAULT_MAX_SET_CHARS = 16 * 1024 * 1024;
/** A segment's own text may hold, besides it, its terminator and the line breaks before it. */
const OWN_TEXT_SLACK = 64;

export class EnvelopeReader implements TokenizerSink {
  private interchange?: Interchange;
  private group?: FunctionalGroup;
  private set?: TransactionSet;
  private controlsInGroup = new ControlNumbers();
  /** The envelope segment (ISA, GS, ST ...) read last; a segment inside an open set is that set's last one. */
  private last?: Segment;
  /** One problem per run of misplaced segments, not one per segment. */
  private misplacedReported = false;
  private readonly retain: boolean;
  private readonly syntaxNotes: boolean;
  private readonly maxSetSegments: number;
  private readonly maxSetChars: number;
  /** Characters of the texts the open set's segments lie in (each text once): what keeping them holds. */
  private setChars = 0;
  /** The text charged to setChars last. */
  private chargedText = '';
  /** The last segment the open set did not keep (past maxSetSegments): where a set cut off there ends. */
  private lastOmitted?: Segment;

  constructor(
    private readonly emit: (event: X12Event) => void,
    options: X12ReadOptions = {},
  ) {
    this.retain = options.retainTransactionSets ?? false;
    this.syntaxNotes = options.checkSyntaxNotes ?? true;
    this.maxSetSegments = options.maxSetSegments ?? DEFAULT_MAX_SET_SEGMENTS;
    this.maxSetChars = options.maxSetChars ?? DEFAULT_MAX_SET_CHARS;
  }

  problem(problem: Problem): void {
    // Reading problems inside a set make the set itself faulty (AK3/AK5).
    if (
      this.set &&
      (problem.code === 'INVALID_SEGMENT_TAG' ||
        problem.code === 'SEGMENT_TOO_LONG' ||
        problem.code === 'EMPTY_SEGMENT')
    ) {
      if (problem.code !== 'EMPTY_SEGMENT') {
        this.set.problems.push({ ...problem, setPosition: this.set.segments.length + (this.set.omitted ?? 0) + 1 });
      }
    }
    this.emit({ type: 'problem', problem });
  }

  segment(segment: Segment, delimiters: Delimiters, tagSlot = -1): void {
    const tag = segment.tag;
    const set = this.set;
    // The common case on its own: a segment inside a set. The envelope's segments take another
    // method: a path not taken yet in here (the first GE) would send the optimised tokenizer loop,
    // which this is compiled into, back to slow code for a while.
    if (set && tag !== 'SE' && tag !== 'ST' && tag !== 'GE' && tag !== 'GS' && tag !== 'IEA' && tag !== 'ISA') {
      const segments = set.segments;
      const text = segment.text;
      if (text !== this.chargedText) {
        // A kept segment keeps the whole text it lies in: a chunk of the input (blank lines and all),
        // charged once; or a text of its own (a wrapped segment, one joined across two chunks), charged
        // alone, so that the chunk the next segment lies in is not charged again.
        this.setChars += text.length;
        if (text.length > segment.end - segment.start + OWN_TEXT_SLACK) {
          this.chargedText = text;
        }
      }
      if (segments.length >= this.maxSetSegments || this.setChars > this.maxSetChars) {
        return this.omit(set, segment);
      }
      segments.push(segment);
      if (this.syntaxNotes) {
        const problems = checkSyntaxNotes(segment, segments.length, SYNTAX_NOTES, tagSlot);
        for (let i = 0; i < problems.length; i++) {
          this.report(problems[i], set.problems);
        }
      }
      return;
    }
    this.last = segment;
    this.envelopeSegment(segment, delimiters);
  }

  /** ISA, IEA, GS, GE, ST, SE, and any segment outside a set. */
  private envelopeSegment(segment: Segment, delimiters: Delimiters): void {
    switch (segment.tag) {
      case 'ISA':
        return this.openInterchange(segment, delimiters);
      case 'IEA':
        return this.closeInterchange(segment);
      case 'GS':
        return this.openGroup(segment);
      case 'GE':
        return this.closeGroup(segment);
      case 'ST':
        return this.openSet(segment);
      case 'SE':
        if (this.set) {
          return this.closeSet(segment);
        }
        return this.misplaced(segment);
      default:
        // TA1 (interchange acknowledgment) legitimately sits between ISA and GS.
        if (segment.tag === 'TA1' && this.interchange && !this.group) {
          return;
        }
        return this.misplaced(segment);
    }
  }

  /** Input is over: whatever is still open was truncated. */
  end(): void {
    // What was read last: segments inside a set do not set `last` (a store per segment).
    const set = this.set;
    const lastOfSet = set && (this.lastOmitted ?? set.segments[set.segments.length - 1]);
    this.closeInterchange(undefined, lastOfSet ?? this.last);
  }

  private openInterchange(read: Segment, delimiters: Delimiters): void {
    if (this.interchange) {
      this.closeInterchange(undefined, read);
    }
    const isa = kept(read);
    const interchange: Interchange = { header: isa, fields: isaFields(isa), delimiters, groups: [], problems: [] };
    this.interchange = interchange;
    this.misplacedReported = false;
    this.emit({ type: 'interchange', interchange });
    this.reportAll(validateIsa(isa), interchange.problems);
  }

  private closeInterchange(iea: Segment | undefined, where?: Segment): void {
    if (this.group) {
      this.closeGroup(undefined, where ?? iea);
    }
    const interchange = this.interchange;
    if (!interchange) {
      if (iea) {
        this.report(at(iea, 'IEA_WITHOUT_ISA', 'IEA without an open interchange'));
      }
      return;
    }
    interchange.trailer = iea && kept(iea);
    this.reportAll(validateInterchangeTrailer(interchange, iea, where ?? this.last), interchange.problems);
    this.interchange = undefined;
    this.misplacedReported = false;
    this.emit({ type: 'interchangeEnd', interchange });
  }

  private openGroup(read: Segment): void {
    if (!this.interchange) {
      return this.misplaced(read);
    }
    if (this.group) {
      this.closeGroup(undefined, read);
    }
    const gs = kept(read);
    const e = (n: number) => gs.element(n);
    const group: FunctionalGroup = {
      header: gs,
      functionalId: e(1),
      senderCode: e(2),
      receiverCode: e(3),
      date: e(4),
      time: e(5),
      control: e(6).trim(),
      agency: e(7),
      version: e(8),
      transactionSets: [],
      summaries: [],
      setCount: 0,
      problems: [],
    };
    this.group = group;
    this.controlsInGroup.clear();
    this.misplacedReported = false;
    this.interchange.groups.push(group);
    this.emit({ type: 'group', interchange: this.interchange, group });
    this.reportAll(validateGroupHeader(gs), group.problems);
  }

  private closeGroup(ge: Segment | undefined, where?: Segment): void {
    if (this.set) {
      this.closeSet(undefined, where ?? ge);
    }
    const group = this.group;
    if (!group || !this.interchange) {
      if (ge) {
        this.report(at(ge, 'GE_WITHOUT_GS', 'GE without an open functional group'), this.interchange?.problems);
      }
      return;
    }
    group.trailer = ge && kept(ge);
    this.reportAll(validateGroupTrailer(group, ge, where ?? this.last), group.problems);
    this.group = undefined;
    this.misplacedReported = false;
    this.emit({ type: 'groupEnd', interchange: this.interchange, group });
  }

  private openSet(st: Segment): void {
    if (!this.group) {
      return this.misplaced(st);
    }
    if (this.set) {
      this.closeSet(undefined, st);
    }
    const set: TransactionSet = {
      id: st.element(1).trim(),
      control: st.element(2).trim(),
      segments: [st],
      header: st,
      groupControl: this.group.control,
      problems: [],
    };
    this.reportAll(validateSetHeader(st, this.controlsInGroup), set.problems);
    if (set.control) {
      this.controlsInGroup.add(set.control);
    }
    this.set = set;
    this.chargedText = st.text;
    this.setChars = st.text.length;
    this.lastOmitted = undefined;
  }

  private closeSet(se: Segment | undefined, where?: Segment): void {
    const set = this.set!;
    const group = this.group!;
    if (se) {
      set.segments.push(se);
      set.trailer = se;
    }
    this.reportAll(validateSetTrailer(set, se, where ?? this.last), set.problems);
    this.set = undefined;
    group.setCount++;
    if (this.retain) {
      group.summaries.push(summaryOf(set));
      group.transactionSets.push(set);
    }
    this.emit({ type: 'transactionSet', interchange: this.interchange!, group, transactionSet: set });
  }

  /** A segment past maxSetSegments or maxSetChars: counted for SE01, not kept; the first one says why. */
  private omit(set: TransactionSet, segment: Segment): void {
    if (set.omitted === undefined) {
      set.omitted = 0;
      const past =
        set.segments.length >= this.maxSetSegments
          ? `more than ${this.maxSetSegments} segments`
          : `segments in more than ${this.maxSetChars} characters of text`;
      this.report(
        {
          ...at(segment, 'SET_TOO_LONG', `transaction set ${set.id} ${set.control} has ${past}: not read past them`),
          setPosition: set.segments.length + 1,
          segmentCode: SEGMENT_ERROR.segmentOverMaximumUse,
        },
        set.problems,
      );
    }
    set.omitted++;
    this.lastOmitted = segment;
  }

  /** A segment where the envelope does not allow it. */
  private misplaced(segment: Segment): void {
    if (this.misplacedReported) {
      return;
    }
    this.misplacedReported = true;
    if (!this.interchange) {
      this.report(at(segment, 'NO_INTERCHANGE', `${segment.tag} outside any interchange (no open ISA)`));
    } else if (!this.group) {
      this.report(
        at(segment, 'SEGMENT_OUTSIDE_GROUP', `${segment.tag} outside a functional group (no open GS)`),
        this.interchange.problems,
      );
    } else {
      this.report(
        at(segment, 'SEGMENT_OUTSIDE_SET', `${segment.tag} outside a transaction set (no open ST)`),
        this.group.problems,
      );
    }
  }

  private reportAll(problems: readonly Problem[], into: Problem[]): void {
    for (let i = 0; i < problems.length; i++) {
      this.report(problems[i], into);
    }
  }

  private report(problem: Problem, into?: Problem[]): void {
    into?.push(problem);
    this.emit({ type: 'problem', problem });
  }
}

/** What a 997 needs of a set (its problems are the set's own list, so later findings count too). */
export function summaryOf(set: TransactionSet): TransactionSetSummary {
  // Two literals rather than spreading an optional part (same keys, same order): this runs per set.
  const implementationReference = set.header.element(3);
  const { id, control, problems } = set;
  const segmentCount = set.segments.length + (set.omitted ?? 0);
  return implementationReference
    ? { id, control, implementationReference, segmentCount, problems }
    : { id, control, segmentCount, problems };
}

/**
 * A copy of a segment that its interchange or group keeps: read segments lie in a slice of the file
 * (256 KiB), which one kept substring would hold in memory for as long as the interchange lasts.
 */
function kept(segment: Segment): Segment {
  // JSON.parse allocates a string of its own; a slice or a concatenation may point into the original.
  const text: string = JSON.parse(JSON.stringify(segment.text.slice(segment.start, segment.end)));
  return new Segment(text, 0, text.length, segment.tag, segment.index, segment.line, segment.column);
}

function at(segment: Segment, code: Problem['code'], message: string): Problem {
  return {
    code,
    severity: 'error',
    message,
    segmentIndex: segment.index,
    line: segment.line,
    column: segment.column,
    tag: segment.tag,
  };
}
