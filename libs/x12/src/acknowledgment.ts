import { ELEMENT_ERROR, SEGMENT_ERROR } from './acknowledgment-codes';
import { INTERCHANGE_ID_QUALIFIER, parseCount } from './envelope.validation';
import { ak4CodeForNote } from './syntax-notes';
import type {
  Delimiters,
  FunctionalGroup,
  Interchange,
  Problem,
  ProblemCode,
  TransactionSetSummary,
} from './x12.types';

/**
 * 997 functional acknowledgments and TA1 interchange acknowledgments. What to acknowledge is
 * decided by pure functions (`acknowledgeGroup`, `ta1NoteCode`) so callers can record the
 * reasons; the text is written by FunctionalAcknowledgmentWriter a set at a time, as the sets are
 * read (a 997 of 200,000 sets is 400,000 segments: as node-x12 objects they took ~130 MiB of heap).
 */

export interface AcknowledgmentOptions {
  /**
   * Our interchange id (ISA06) and its qualifier (ISA05); default: the id and qualifier the partner
   * addressed us by (the received ISA08 and ISA07), so that `01*925133417` is answered from
   * `01*925133417`, not from a qualifier of our choosing.
   */
  senderId?: string;
  senderQualifier?: string;
  /** The partner's id (ISA08); default: the received ISA06, with its qualifier ISA05. */
  receiverId?: string;
  receiverQualifier?: string;
  /** ISA13 of the acknowledgment (and GS06 unless groupControlNumber is given): 1..999999999. */
  controlNumber: number;
  groupControlNumber?: number;
  date: Date;
  /** ISA12; default 00501 when the received interchange is 5010 or later, else 00401. */
  version?: '00401' | '00501';
  /** ISA15; default: the received one. */
  usage?: 'P' | 'T' | 'I';
  /**
   * Separators of the acknowledgment; default `*`, `>`, `~` (and `^` for 5010). Translation answers with
   * the received interchange's own, which no value echoed from it can hold. A line break follows each segment.
   */
  delimiters?: Partial<Delimiters>;
  /** Reject (AK5 R) sets with segment/element errors instead of accepting them with errors (E). */
  rejectSetsWithSegmentErrors?: boolean;
}

export type SetStatus = 'A' | 'E' | 'R';
export type GroupStatus = 'A' | 'E' | 'P' | 'R';

export interface ElementError {
  /** AK401: position in the segment. */
  element: number;
  /** AK403: data element syntax error code (table 723). */
  code: string;
  note?: string;
  /** The element whose presence made this one required (a syntax note's condition): a 999's CTX says it. */
  trigger?: number;
  /** AK404: a copy of the bad value (when it is wrong rather than missing). */
  value?: string;
}

export interface SegmentError {
  tag: string;
  /** AK302: position in the set, ST = 1. */
  position: number;
  /** AK304: segment syntax error code. */
  code: string;
  elements: ElementError[];
}

export interface SetAcknowledgment {
  id: string;
  control: string;
  implementationReference?: string;
  status: SetStatus;
  /** AK502..AK506. */
  codes: string[];
  segmentErrors: SegmentError[];
  problems: Problem[];
}

export interface GroupAcknowledgment {
  functionalId: string;
  control: string;
  version: string;
  status: GroupStatus;
  /** AK905..AK909. */
  codes: string[];
  /** AK902: sets the group says it has (GE01), or those received when GE01 is missing/bad. */
  included: number;
  /** AK903 / AK904. */
  received: number;
  accepted: number;
  sets: SetAcknowledgment[];
  problems: Problem[];
}

/** AK5 codes of set-level problems; all of these reject the set. */
const AK5_CODES: Partial<Record<ProblemCode, string>> = {
  MISSING_SE: '2',
  ST02_SE02_MISMATCH: '3',
  SE01_SEGMENT_COUNT: '4',
  DUPLICATE_ST02: '23',
  INVALID_SEGMENT_TAG: '5',
  SEGMENT_TOO_LONG: '5',
  SET_TOO_LONG: '5',
  SET_NOT_SUPPORTED: '1',
};

/** AK9 codes of group-level problems. */
const AK9_CODES: Partial<Record<ProblemCode, string>> = {
  MISSING_GE: '3',
  GS06_GE02_MISMATCH: '4',
  GE01_SET_COUNT: '5',
};

/** TA1 note codes (TA105) of interchange-level problems. */
const TA1_CODES: Partial<Record<ProblemCode, string>> = {
  ISA13_IEA02_MISMATCH: '001',
  IEA01_GROUP_COUNT: '021',
  MISSING_IEA: '023',
  SEGMENT_OUTSIDE_GROUP: '024',
  GE_WITHOUT_GS: '024',
};
/** TA1 note codes for a bad ISA field, by element number. */
const TA1_ISA_FIELD: Record<number, string> = {
  1: '010',
  2: '011',
  3: '012',
  4: '013',
  5: '005',
  6: '006',
  7: '007',
  8: '008',
  9: '014',
  10: '015',
  11: '016',
  12: '017',
  13: '018',
  14: '019',
  15: '020',
  16: '027',
};

/**
 * What a 997 (or 999) says about one set. Each element problem carries its own table 723 code
 * (a mapper's, or the syntax note's); a problem that names a segment but no element is an AK3
 * alone, with its table 720 code (8, data element errors, unless it says otherwise).
 */
export function acknowledgeSet(
  summary: TransactionSetSummary,
  options: Pick<AcknowledgmentOptions, 'rejectSetsWithSegmentErrors'> = {},
): SetAcknowledgment {
  const codes = new Set<string>();
  let rejected = false;
  const bySegment = new Map<number, SegmentError>();
  const segmentAt = (p: Problem, position: number, code: string): SegmentError => {
    let seg = bySegment.get(position);
    if (!seg) {
      seg = { tag: (p.tag ?? '').slice(0, 3), position, code, elements: [] };
      bySegment.set(position, seg);
    }
    return seg;
  };
  for (const p of summary.problems) {
    if (p.code === 'ST_INVALID') {
      codes.add(p.element === 1 ? '6' : '7');
      rejected = true;
      continue;
    }
    const ak5 = AK5_CODES[p.code];
    if (ak5) {
      codes.add(ak5);
      rejected = true;
    }
    const application = p.code === 'APPLICATION_ERROR';
    if (application) {
      // Data the receiver cannot use: the set is rejected, at the segment and element the mapper named.
      codes.add('5');
      rejected = true;
    }
    const atSegment =
      application || p.code === 'SYNTAX_NOTE' || p.code === 'INVALID_SEGMENT_TAG' || p.code === 'SET_TOO_LONG';
    if (!p.setPosition || !atSegment) {
      continue;
    }
    const seg = segmentAt(
      p,
      p.setPosition,
      p.segmentCode ??
        (p.code === 'INVALID_SEGMENT_TAG' ? SEGMENT_ERROR.unrecognizedSegmentId : SEGMENT_ERROR.dataElementErrors),
    );
    if (p.element && p.code !== 'INVALID_SEGMENT_TAG') {
      const code =
        p.elementCode ?? (p.code === 'SYNTAX_NOTE' ? ak4CodeForNote(p.note) : ELEMENT_ERROR.invalidCodeValue);
      // Two findings can fault the same element the same way (PO406 by C0506 and P0607, N102 by R0203 and the mapper): one AK4 says it.
      if (!seg.elements.some((e) => e.element === p.element && e.code === code)) {
        seg.elements.push({
          element: p.element,
          code,
          ...(p.note ? { note: p.note } : {}),
          ...(p.trigger ? { trigger: p.trigger } : {}),
          ...(p.value ? { value: p.value } : {}),
        });
      }
    }
    if (!application) {
      codes.add('5');
      if (options.rejectSetsWithSegmentErrors) {
        rejected = true;
      }
    }
  }
  const status: SetStatus = rejected ? 'R' : codes.size > 0 ? 'E' : 'A';
  return {
    id: summary.id,
    control: summary.control,
    ...(summary.implementationReference ? { implementationReference: summary.implementationReference } : {}),
    status,
    codes: [...codes].slice(0, 5),
    segmentErrors: [...bySegment.values()],
    problems: summary.problems,
  };
}

/** How a group's sets were acknowledged, counted: all a group's AK9 needs of them. */
export interface SetTally {
  received: number;
  /** Sets not rejected (AK5 A or E). */
  accepted: number;
  /** Sets accepted with errors (AK5 E). */
  withErrors: number;
}

/** What a 997 says about one functional group (AK1, AK2/AK3/AK4/AK5 per set, AK9), from its kept summaries. */
export function acknowledgeGroup(
  group: FunctionalGroup,
  options: Pick<AcknowledgmentOptions, 'rejectSetsWithSegmentErrors'> = {},
): GroupAcknowledgment {
  const sets = group.summaries.map((s) => acknowledgeSet(s, options));
  const tally: SetTally = { received: 0, accepted: 0, withErrors: 0 };
  for (const set of sets) {
    countSet(tally, set.status);
  }
  return { ...acknowledgeGroupOf(group, tally), sets };
}

function countSet(tally: SetTally, status: SetStatus): void {
  tally.received++;
  tally.accepted += status === 'R' ? 0 : 1;
  tally.withErrors += status === 'E' ? 1 : 0;
}

/** A group's AK9 from its own problems and its sets counted (a streamed group keeps no summaries). */
export function acknowledgeGroupOf(group: FunctionalGroup, tally: SetTally): Omit<GroupAcknowledgment, 'sets'> {
  const codes = new Set<string>();
  for (const p of group.problems) {
    if (p.severity !== 'error') {
      continue;
    }
    const code = AK9_CODES[p.code];
    if (code) {
      codes.add(code);
    }
    if (p.code === 'GS_INVALID' && p.element === 6) {
      codes.add('6');
    }
  }
  // The group's own errors (its GS, GE, counts) are noted, never a rejection: each set is
  // accepted or not by its own AK5, and what is accepted is delivered. An AK9 R over sets that
  // go out would have the partner send them again.
  const { received, accepted } = tally;
  const anyErrors = tally.withErrors > 0 || group.problems.length > 0;
  let status: GroupStatus;
  if (received > 0 && accepted === 0) {
    status = 'R';
  } else if (accepted < received) {
    status = 'P';
  } else {
    status = anyErrors ? 'E' : 'A';
  }
  const declared = parseCount(group.trailer?.element(1));
  return {
    functionalId: group.functionalId,
    control: group.control,
    version: group.version,
    status,
    codes: [...codes].slice(0, 5),
    included: Number.isNaN(declared) ? received : declared,
    received,
    accepted,
    problems: group.problems,
  };
}

/**
 * What an AK2 and an AK3 can echo: ST01 (ID 3/3), ST02 (AN 4/9, though one shorter is still echoed:
 * it names the set, and partners send `1`), a segment tag (ID 2/3).
 */
const SET_ID = /^[A-Z0-9]{3}$/;
const SET_CONTROL = /^(?=.*[!-~])[ -~]{1,9}$/;
const SEGMENT_TAG = /^[A-Z0-9]{2,3}$/;

/** Acknowledgments are never acknowledged (X12 997 notes): a group of them (GS01 FA) gets no AK1. */
export const answered = (group: FunctionalGroup): boolean => group.functionalId.trim() !== 'FA';

/**
 * One interchange holding one 997 per functional group of `interchange` (in one GS*FA), groups of
 * acknowledgments (FA) left out.
 * Returns the X12 text. Throws only on bad options (control numbers out of range).
 */
export function build997(interchange: Interchange, options: AcknowledgmentOptions): string {
  return buildFunctionalAcknowledgment('997', interchange, options);
}

/** The implementation guide a 999 follows (ST03, GS08): X12's own for the 999. */
export const IMPLEMENTATION_ACKNOWLEDGMENT_GUIDE = '005010X231A1';

/**
 * The 999 implementation acknowledgment (5010 and later): a 997 whose segment and element notes
 * are IK3/IK4, each element note followed by a CTX naming the element that made it required
 * (`CTX*SITUATIONAL TRIGGER*PO1*10**6`: PO106 was sent, so PO107 had to be), and IK5 for AK5.
 * Same codes as the 997. Always written in 5010 (the 999 does not exist before it).
 */
export function build999(interchange: Interchange, options: AcknowledgmentOptions): string {
  return buildFunctionalAcknowledgment('999', interchange, { ...options, version: '00501' });
}

function buildFunctionalAcknowledgment(
  kind: '997' | '999',
  interchange: Interchange,
  options: AcknowledgmentOptions,
): string {
  if (interchange.groups.some((g) => g.summaries.length === 0 && g.setCount > 0)) {
    throw new Error(
      'a streamed group keeps no summaries: write its acknowledgment with FunctionalAcknowledgmentWriter',
    );
  }
  const out = new FunctionalAcknowledgmentWriter(kind, interchange, options);
  out.begin(options.controlNumber);
  for (const group of interchange.groups) {
    out.openGroup(group);
    for (const summary of group.summaries) {
      out.set(summary);
    }
    out.closeGroup(group);
  }
  out.end();
  return out.take();
}

/**
 * A 997 or 999 written as the interchange it answers is read: ST and AK1 when a group opens, a set's
 * AK2..AK5 when the set ends, AK9 and SE when the group closes, GE and IEA at the end. It keeps
 * counts, never the sets, and its text until `take()`. The ISA and GS go first but are written by
 * `begin`, which may come after the first groups: the control number is taken only when needed.
 */
export class FunctionalAcknowledgmentWriter {
  private readonly version: '00401' | '00501';
  private readonly d: Delimiters;
  private readonly lineBreak: string;
  /** Separators of the acknowledgment, which AK404 copies may not hold. */
  private readonly separators: string[];
  private readonly notes: [segment: string, element: string, set: string];
  private held: string[] = [];
  private heldChars = 0;
  private begun = false;
  private controlNumber = 0;
  /** GS06 (and GE02) of the acknowledgment. */
  private gsControl = '';
  private groups = 0;
  private groupControl = '';
  private groupSegments = 0;
  private tally: SetTally = { received: 0, accepted: 0, withErrors: 0 };
  /** The open group is one of acknowledgments (GS01 FA): nothing of it is written. */
  private skipping = false;

  constructor(
    private readonly kind: '997' | '999',
    private readonly interchange: Interchange,
    private readonly options: Omit<AcknowledgmentOptions, 'controlNumber'>,
  ) {
    // The 999 does not exist before 5010.
    this.version =
      kind === '999' ? '00501' : (options.version ?? (interchange.fields.version >= '00501' ? '00501' : '00401'));
    this.d = delimitersOf(this.version, options.delimiters);
    this.lineBreak = this.d.segment === '\n' ? '' : '\n';
    // Before 5010 there is no repetition separator (ISA11 is the standards id "U").
    this.separators = [
      this.d.element,
      this.d.segment,
      this.d.component,
      ...(this.version === '00501' && this.d.repetition ? [this.d.repetition] : []),
    ];
    this.notes = kind === '999' ? ['IK3', 'IK4', 'IK5'] : ['AK3', 'AK4', 'AK5'];
  }

  /** Whether `begin` has written the ISA and GS: only then does `take` give text. */
  get started(): boolean {
    return this.begun;
  }

  /** Characters written and not taken yet. */
  get pending(): number {
    return this.heldChars;
  }

  /** The ISA and GS, ahead of whatever was written before: ISA13 = `controlNumber`. Throws on a bad number. */
  begin(controlNumber: number): void {
    const options = { ...this.options, controlNumber };
    const interchange = this.interchange;
    const first = interchange.groups.find(answered) ?? interchange.groups[0];
    if (this.begun) {
      throw new Error('the acknowledgment has its ISA already');
    }
    this.controlNumber = checkedControlNumber(controlNumber);
    this.gsControl = String(checkedControlNumber(options.groupControlNumber ?? controlNumber));
    const body = this.held;
    // The ISA and GS are not segments of the group being written, whose SE01 counts its own.
    const groupSegments = this.groupSegments;
    this.held = [];
    this.heldChars = 0;
    this.segment('ISA', isaHeader(interchange, options, this.version));
    if (interchange.fields.acknowledgmentRequested.trim() === '1') {
      // ISA14 = 1 asks for an interchange acknowledgment (table I13): its TA1 leads the interchange.
      this.segment('TA1', ta1Elements(interchange, 'A', '000'));
    }
    this.segment('GS', [
      'FA',
      first?.receiverCode.trim() || ourId(interchange, options),
      first?.senderCode.trim() || (options.receiverId ?? interchange.fields.senderId.trim()),
      ccyymmdd(options.date),
      hhmm(options.date),
      this.gsControl,
      'X',
      this.kind === '999' ? IMPLEMENTATION_ACKNOWLEDGMENT_GUIDE : this.version === '00501' ? '005010' : '004010',
    ]);
    this.begun = true;
    this.groupSegments = groupSegments;
    for (const text of body) {
      this.held.push(text);
      this.heldChars += text.length;
    }
  }

  /** A received group opened: its transaction set's ST and AK1 (none for a group of acknowledgments). */
  openGroup(received: FunctionalGroup): void {
    this.skipping = !answered(received);
    if (this.skipping) {
      return;
    }
    this.groupControl = String(++this.groups).padStart(4, '0');
    this.groupSegments = 0;
    this.tally = { received: 0, accepted: 0, withErrors: 0 };
    this.segment(
      'ST',
      this.kind === '999'
        ? ['999', this.groupControl, IMPLEMENTATION_ACKNOWLEDGMENT_GUIDE]
        : ['997', this.groupControl],
    );
    this.segment(
      'AK1',
      this.version === '00501'
        ? [received.functionalId, received.control, received.version]
        : [received.functionalId, received.control],
    );
  }

  /** A set of the open group ended, with all its problems found (the mapper's too). */
  set(summary: TransactionSetSummary): void {
    if (this.skipping) {
      return;
    }
    const one = acknowledgeSet(summary, this.options);
    countSet(this.tally, one.status);
    const [segmentNote, elementNote, setTrailer] = this.notes;
    if (!SET_ID.test(one.id) || !SET_CONTROL.test(one.control)) {
      // An AK2 names the set by ST01 and ST02: one without them (or with no ST01 X12 has) is counted
      // by the AK9 (received, not accepted) without an AK2 that a strict translator would refuse.
      return;
    }
    this.segment(
      'AK2',
      this.version === '00501' && one.implementationReference
        ? [one.id, one.control, one.implementationReference]
        : [one.id, one.control],
    );
    for (const seg of one.segmentErrors) {
      if (!SEGMENT_TAG.test(seg.tag)) {
        continue; // AK301 is ID 2/3: a tag that is none is told by the AK5 (code 5) alone
      }
      this.segment(segmentNote, [seg.tag, String(seg.position), '', seg.code]);
      for (const el of seg.elements) {
        const copy = copyOfBadData(el.value, this.separators);
        this.segment(elementNote, [String(el.element), '', el.code, ...(copy ? [copy] : [])]);
        if (this.kind === '999' && el.trigger) {
          this.segment('CTX', ['SITUATIONAL TRIGGER', seg.tag, String(seg.position), '', String(el.trigger)]);
        }
      }
    }
    this.segment(setTrailer, [one.status, ...one.codes]);
  }

  /** The open group closed (its GE read, or found missing): AK9 and SE. */
  closeGroup(received: FunctionalGroup): void {
    if (this.skipping) {
      return;
    }
    const ack = acknowledgeGroupOf(received, this.tally);
    this.segment('AK9', [ack.status, String(ack.included), String(ack.received), String(ack.accepted), ...ack.codes]);
    this.segment('SE', [String(this.groupSegments + 1), this.groupControl]);
  }

  /** The GE and IEA; `begin` must have come first. */
  end(): void {
    if (!this.begun) {
      throw new Error('the acknowledgment has no ISA yet: begin() it before its end');
    }
    this.segment('GE', [String(this.groups), this.gsControl]);
    this.segment('IEA', ['1', String(this.controlNumber).padStart(9, '0')], true);
  }

  /** The text written since the last take, once begun (before, it waits for its ISA and GS). */
  take(): string {
    if (!this.begun) {
      return '';
    }
    const text = this.held.join('');
    this.held = [];
    this.heldChars = 0;
    return text;
  }

  /** `tag*e1*e2~`, a line break after each terminator (unless it is one) but the last. */
  private segment(tag: string, elements: readonly string[], last = false): void {
    const d = this.d;
    let count = elements.length;
    while (count > 0 && elements[count - 1] === '') {
      count--; // X12 ends a segment at its last value: no trailing separators (AK1*PO*1, not AK1*PO*1*)
    }
    if (count < elements.length) {
      elements = elements.slice(0, count);
    }
    const text = `${tag}${d.element}${elements.join(d.element)}${d.segment}${last ? '' : this.lineBreak}`;
    this.held.push(text);
    this.heldChars += text.length;
    this.groupSegments++;
  }
}

/**
 * AK404/IK404: at most 99 characters, and never a value that would itself be a syntax error in the
 * acknowledgment (a separator of ours, a control character): left out then.
 */
function copyOfBadData(value: string | undefined, separators: readonly string[]): string | undefined {
  if (!value) {
    return undefined;
  }
  const copy = value.slice(0, 99);
  for (let i = 0; i < copy.length; i++) {
    const c = copy.charCodeAt(i);
    if (c < 32 || c > 126 || separators.includes(copy[i])) {
      return undefined;
    }
  }
  return copy;
}

/** The TA1 note code (TA105) for an interchange whose envelope must be rejected; undefined when it is fine. */
export function ta1NoteCode(interchange: Interchange): string | undefined {
  for (const p of interchange.problems) {
    if (p.severity !== 'error') {
      continue;
    }
    if (p.code === 'ISA_FIELD_INVALID') {
      return p.element ? (TA1_ISA_FIELD[p.element] ?? '022') : '022';
    }
    const code = TA1_CODES[p.code];
    if (code) {
      return code;
    }
  }
  return undefined;
}

/**
 * An interchange holding only a TA1 for `interchange` (TA1*ISA13*ISA09*ISA10*code*note).
 * `noteCode` defaults to `ta1NoteCode(interchange)`, or 000 (no error) when there is none;
 * the acknowledgment code to R when there is a note, A otherwise.
 */
export function buildTA1(
  interchange: Interchange,
  noteCode: string | undefined,
  options: AcknowledgmentOptions & { acknowledgmentCode?: 'A' | 'E' | 'R' },
): string {
  const note = noteCode ?? ta1NoteCode(interchange) ?? '000';
  const code = options.acknowledgmentCode ?? (note === '000' ? 'A' : 'R');
  const version = options.version ?? (interchange.fields.version >= '00501' ? '00501' : '00401');
  const d = delimitersOf(version, options.delimiters);
  const segment = (tag: string, elements: readonly string[]) =>
    `${tag}${d.element}${elements.join(d.element)}${d.segment}`;
  return [
    segment('ISA', isaHeader(interchange, options, version)),
    segment('TA1', ta1Elements(interchange, code, note)),
    segment('IEA', ['0', String(checkedControlNumber(options.controlNumber)).padStart(9, '0')]),
  ].join(d.segment === '\n' ? '' : '\n');
}

/** TA101..TA105: the interchange answered (ISA13, ISA09, ISA10), its acknowledgment code and note. */
const ta1Elements = ({ fields: f }: Interchange, code: string, note: string) => [
  f.controlNumber.trim(),
  f.date.trim(),
  f.time.trim(),
  code,
  note,
];

const qualifierOrZZ = (qualifier: string) => (INTERCHANGE_ID_QUALIFIER.test(qualifier) ? qualifier : 'ZZ');

function isaHeader(interchange: Interchange, options: AcknowledgmentOptions, version: string): string[] {
  const f = interchange.fields;
  const d = delimitersOf(version, options.delimiters);
  return [
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    // A qualifier the partner sent outside table I05 (the reason of a TA1, say) is not echoed.
    qualifierOrZZ(options.senderQualifier ?? f.receiverQualifier.trim()),
    ourId(interchange, options).padEnd(15).slice(0, 15),
    qualifierOrZZ(options.receiverQualifier ?? f.senderQualifier.trim()),
    (options.receiverId ?? f.senderId.trim()).padEnd(15).slice(0, 15),
    yymmdd(options.date),
    hhmm(options.date),
    version === '00501' ? (d.repetition ?? '^') : 'U',
    version,
    String(checkedControlNumber(options.controlNumber)).padStart(9, '0'),
    '0',
    options.usage ?? (/^[PTI]$/.test(f.usage) ? f.usage : 'P'),
    d.component,
  ];
}

/** Our ISA06: the option, else the id the partner sent to (ISA08). */
function ourId(interchange: Interchange, options: AcknowledgmentOptions): string {
  return options.senderId ?? (interchange.fields.receiverId.trim() || 'DOCKBRIDGE');
}

function defaultDelimiters(version: string): Delimiters {
  return { element: '*', component: '>', segment: '~', ...(version === '00501' ? { repetition: '^' } : {}) };
}

function delimitersOf(version: string, delimiters: Partial<Delimiters> = {}): Delimiters {
  const d = { ...defaultDelimiters(version), ...delimiters };
  if (version !== '00501') {
    // Before 5010 ISA11 is the standards id "U": a repetition separator given for a 5010 input has no place.
    delete d.repetition;
  } else if (!d.repetition || [d.element, d.component, d.segment].includes(d.repetition)) {
    // A 5010 answer needs one (ISA11), distinct from the others: the first free of a few usual ones.
    d.repetition = ['^', '{', '}', '!', '|'].find((c) => ![d.element, d.component, d.segment].includes(c));
  }
  return d;
}

function checkedControlNumber(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 999_999_999) {
    throw new RangeError(`control number ${n} must be an integer in 1..999999999`);
  }
  return n;
}

const two = (n: number) => String(n).padStart(2, '0');
const ccyymmdd = (d: Date) => `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}`;
const yymmdd = (d: Date) => ccyymmdd(d).slice(2);
const hhmm = (d: Date) => `${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
