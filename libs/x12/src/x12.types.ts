/**
 * The shapes the X12 reader produces. Plain data apart from `Segment`, which points into the text
 * it was read from (its `toJSON()` gives the plain shape); no I/O.
 */
import type { ElementErrorCode, SegmentErrorCode } from './acknowledgment-codes';
import type { Segment } from './segment';

/** The four separators of one interchange, read from its ISA (never assumed). */
export interface Delimiters {
  /** The character right after "ISA". */
  element: string;
  /** ISA11 when it is a separator (5010+); undefined when ISA11 is the standards id "U" (4010). */
  repetition?: string;
  /** ISA16. */
  component: string;
  /** The character right after ISA16 (CR/LF directly after it are a line break, not data). */
  segment: string;
}

/** One segment as read (see segment.ts): tag, position, and its elements found on demand. */
export { Segment } from './segment';

export type Severity = 'error' | 'warning';

/**
 * Every problem the reader or the envelope checks can name. Acknowledgment codes (TA1 note,
 * AK5/AK9 codes, AK3/AK4) are derived from these in `acknowledgment.ts`.
 */
export type ProblemCode =
  // reading
  | 'NO_INTERCHANGE' // data that is not inside (or before) any ISA
  | 'ISA_TRUNCATED' // input ends inside an ISA
  | 'ISA_INVALID' // an ISA whose delimiters cannot be found
  | 'DELIMITERS_INVALID' // delimiters that clash or are letters/digits
  | 'SEGMENT_TOO_LONG' // no terminator within maxSegmentLength: discarded
  | 'SET_TOO_LONG' // more segments than maxSetSegments (or characters than maxSetChars): the rest are counted, not kept
  | 'MISSING_TERMINATOR' // last segment has no terminator (accepted)
  | 'INVALID_SEGMENT_TAG'
  | 'EMPTY_SEGMENT'
  // interchange (TA1)
  | 'ISA_FIELD_INVALID'
  | 'ISA13_IEA02_MISMATCH'
  | 'IEA01_GROUP_COUNT'
  | 'MISSING_IEA'
  | 'IEA_WITHOUT_ISA'
  | 'SEGMENT_OUTSIDE_GROUP'
  // group (AK9)
  | 'GS_INVALID'
  | 'GS06_GE02_MISMATCH'
  | 'GE01_SET_COUNT'
  | 'MISSING_GE'
  | 'GE_WITHOUT_GS'
  | 'SEGMENT_OUTSIDE_SET'
  // transaction set (AK5)
  | 'ST_INVALID'
  | 'ST02_SE02_MISMATCH'
  | 'SE01_SEGMENT_COUNT'
  | 'MISSING_SE'
  | 'DUPLICATE_ST02'
  // segment (AK3/AK4)
  | 'SYNTAX_NOTE'
  // the receiving application refused the set's content (a mapping error): AK5 R, AK3/AK4 where it points
  | 'APPLICATION_ERROR'
  // the receiver does not handle this transaction set type (AK5 R, code 1)
  | 'SET_NOT_SUPPORTED';

export interface Problem {
  code: ProblemCode;
  severity: Severity;
  message: string;
  /** Where: the segment at fault (or where the reader noticed), when there is one. */
  segmentIndex?: number;
  line?: number;
  column?: number;
  tag?: string;
  /** Position of the segment in its transaction set, ST = 1 (for AK3). */
  setPosition?: number;
  /** 1-based element number at fault (ISA field, or AK4 element). */
  element?: number;
  /** For SYNTAX_NOTE: the X12 note violated, e.g. "P0607". */
  note?: string;
  /** For SYNTAX_NOTE: the element whose presence made `element` required (P, C, L, E notes). */
  trigger?: number;
  /** What is wrong with `element` (table 723, the AK403/IK403 code); a syntax note's code when not given. */
  elementCode?: ElementErrorCode;
  /** What is wrong with the segment (table 720, AK304/IK304); default 8, data element errors. */
  segmentCode?: SegmentErrorCode;
  /** The element's value as sent, when it is wrong rather than missing (AK404/IK404). */
  value?: string;
}

/** The ISA fields by name (values as sent, padding kept). */
export interface IsaFields {
  authorizationQualifier: string; // ISA01
  authorizationInfo: string; // ISA02
  securityQualifier: string; // ISA03
  securityInfo: string; // ISA04
  senderQualifier: string; // ISA05
  senderId: string; // ISA06
  receiverQualifier: string; // ISA07
  receiverId: string; // ISA08
  date: string; // ISA09 YYMMDD
  time: string; // ISA10 HHMM
  standardsIdOrRepetition: string; // ISA11
  version: string; // ISA12
  controlNumber: string; // ISA13
  acknowledgmentRequested: string; // ISA14
  usage: string; // ISA15 P/T/I
  componentSeparator: string; // ISA16
}

export interface TransactionSet {
  /** ST01: 850, 856, ... */
  id: string;
  /** ST02. */
  control: string;
  /** ST through SE (SE absent when the set is truncated). */
  segments: Segment[];
  header: Segment;
  trailer?: Segment;
  /** GS06 of the group it belongs to. */
  groupControl: string;
  problems: Problem[];
  /** Segments past `maxSetSegments` or `maxSetChars`, counted (SE01's check) but not kept: the set is refused (SET_TOO_LONG). */
  omitted?: number;
}

/** What a 997 needs of a set (`summaryOf`); a group keeps them only with its sets (parseX12). */
export interface TransactionSetSummary {
  id: string;
  control: string;
  /** ST03 (5010 implementation convention reference), when sent. */
  implementationReference?: string;
  segmentCount: number;
  problems: Problem[];
}

export interface FunctionalGroup {
  header: Segment;
  functionalId: string; // GS01
  senderCode: string; // GS02
  receiverCode: string; // GS03
  date: string; // GS04
  time: string; // GS05
  control: string; // GS06
  agency: string; // GS07
  version: string; // GS08
  /** Full sets: only kept by `parseX12` (or `retainTransactionSets`); streaming yields them instead. */
  transactionSets: TransactionSet[];
  /**
   * One per set, in order, kept with the sets only: a streamed group keeps `setCount`, so its memory
   * does not grow with its sets, and its 997 is written as they end (FunctionalAcknowledgmentWriter).
   */
  summaries: TransactionSetSummary[];
  /** Sets read so far, kept or not (GE01's check, AK9). */
  setCount: number;
  trailer?: Segment;
  /** Group-level problems (the sets' own problems are in their summaries). */
  problems: Problem[];
}

export interface Interchange {
  header: Segment;
  fields: IsaFields;
  delimiters: Delimiters;
  groups: FunctionalGroup[];
  trailer?: Segment;
  /** Interchange-level problems (ISA fields, IEA, content outside groups). */
  problems: Problem[];
}

/**
 * What `readX12` yields, in input order. Structures are live objects: the `interchange` event's
 * object is completed (groups, trailer, problems) by the time `interchangeEnd` carries it.
 */
export type X12Event =
  | { type: 'interchange'; interchange: Interchange }
  | { type: 'group'; interchange: Interchange; group: FunctionalGroup }
  | { type: 'transactionSet'; interchange: Interchange; group: FunctionalGroup; transactionSet: TransactionSet }
  | { type: 'groupEnd'; interchange: Interchange; group: FunctionalGroup }
  | { type: 'interchangeEnd'; interchange: Interchange }
  /** Every problem, once, as soon as it is known (also attached to its structure when it has one). */
  | { type: 'problem'; problem: Problem };

export interface X12ReadOptions {
  /** A segment longer than this without a terminator is reported and discarded (bounded memory). Default 1 MiB. */
  maxSegmentLength?: number;
  /**
   * Segments a transaction set may hold (ST..SE), DEFAULT_MAX_SET_SEGMENTS when absent: a set is
   * held whole until its SE (it is mapped as one document), so past these its segments are counted,
   * not kept, and the set is refused (SET_TOO_LONG).
   */
  maxSetSegments?: number;
  /** As maxSetSegments, in characters of the input its segments lie in (DEFAULT_MAX_SET_CHARS when absent). */
  maxSetChars?: number;
  /** Keep each group's full transaction sets (parseX12 does). Default false when streaming. */
  retainTransactionSets?: boolean;
  /** Check segment syntax notes (paired/conditional elements, see syntax-notes.ts). Default true. */
  checkSyntaxNotes?: boolean;
}

/** Everything in one input, read at once (small inputs, tests, previews). */
export interface X12Document {
  interchanges: Interchange[];
  /** Every problem in input order, including those attached to structures. */
  problems: Problem[];
  segmentCount: number;
}
