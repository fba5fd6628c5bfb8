import { X12Interchange, X12Segment, X12SerializationOptions } from 'node-x12';
import { parseCount } from './envelope.validation';
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
 * reasons; the text is written with node-x12's generator, which serializes faithfully.
 */

export interface AcknowledgmentOptions {
  /** Our interchange id (ISA06) and its qualifier (ISA05, default ZZ). */
  senderId: string;
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
  /** Separators of the acknowledgment; default `*`, `>`, `~` (and `^` for 5010). A line break follows each segment. */
  delimiters?: Partial<Delimiters>;
  /** Reject (AK5 R) sets with segment/element errors instead of accepting them with errors (E). */
  rejectSetsWithSegmentErrors?: boolean;
}

export type SetStatus = 'A' | 'E' | 'R';
export type GroupStatus = 'A' | 'E' | 'P' | 'R';

export interface ElementError {
  /** AK401: position in the segment. */
  element: number;
  /** AK403: syntax error code. */
  code: string;
  note?: string;
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

/** What a 997 says about one set. */
export function acknowledgeSet(
  summary: TransactionSetSummary,
  options: Pick<AcknowledgmentOptions, 'rejectSetsWithSegmentErrors'> = {},
): SetAcknowledgment {
  const codes = new Set<string>();
  let rejected = false;
  const bySegment = new Map<number, SegmentError>();
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
    if (p.code === 'APPLICATION_ERROR') {
      // Data the receiver cannot use: the set is rejected; AK3 (code 8, data element errors) and
      // AK4 (code 7, invalid code value) point at the segment and element when the mapper named them.
      codes.add('5');
      rejected = true;
      if (p.setPosition) {
        let seg = bySegment.get(p.setPosition);
        if (!seg) {
          bySegment.set(
            p.setPosition,
            (seg = { tag: (p.tag ?? '').slice(0, 3), position: p.setPosition, code: '8', elements: [] }),
          );
        }
        if (p.element && !seg.elements.some((e) => e.element === p.element)) {
          seg.elements.push({ element: p.element, code: '7' });
        }
      }
      continue;
    }
    if ((p.code === 'SYNTAX_NOTE' || p.code === 'INVALID_SEGMENT_TAG') && p.setPosition) {
      let seg = bySegment.get(p.setPosition);
      if (!seg) {
        seg = {
          tag: (p.tag ?? '').slice(0, 3),
          position: p.setPosition,
          code: p.code === 'SYNTAX_NOTE' ? '8' : '1',
          elements: [],
        };
        bySegment.set(p.setPosition, seg);
      }
      const code = ak4CodeForNote(p.note);
      // Two notes can fault the same element (PO406 by C0506 and P0607): one AK4 says it.
      if (
        p.code === 'SYNTAX_NOTE' &&
        p.element &&
        !seg.elements.some((e) => e.element === p.element && e.code === code)
      ) {
        seg.elements.push({ element: p.element, code, ...(p.note ? { note: p.note } : {}) });
      }
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

/** What a 997 says about one functional group (AK1, AK2/AK3/AK4/AK5 per set, AK9). */
export function acknowledgeGroup(
  group: FunctionalGroup,
  options: Pick<AcknowledgmentOptions, 'rejectSetsWithSegmentErrors'> = {},
): GroupAcknowledgment {
  const sets = group.summaries.map((s) => acknowledgeSet(s, options));
  const codes = new Set<string>();
  let groupError = false;
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
    // Misplaced segments between sets taint the group but do not reject it.
    if (p.code !== 'SEGMENT_OUTSIDE_SET') {
      groupError = true;
    }
  }
  const accepted = sets.filter((s) => s.status !== 'R').length;
  const anyErrors = sets.some((s) => s.status === 'E') || group.problems.length > 0;
  let status: GroupStatus;
  if (groupError) {
    status = 'R';
  } else if (sets.length > 0 && accepted === 0) {
    status = 'R';
  } else if (accepted < sets.length) {
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
    included: Number.isNaN(declared) ? sets.length : declared,
    received: sets.length,
    accepted: status === 'R' ? 0 : accepted,
    sets,
    problems: group.problems,
  };
}

/**
 * One interchange holding one 997 per functional group of `interchange` (in one GS*FA).
 * Returns the X12 text. Throws only on bad options (control numbers out of range).
 */
export function build997(interchange: Interchange, options: AcknowledgmentOptions): string {
  const version = options.version ?? (interchange.fields.version >= '00501' ? '00501' : '00401');
  const serialization = serializationOptions(version, options.delimiters);
  const out = new X12Interchange(serialization);
  out.setHeader(isaHeader(interchange, options, version));
  const first = interchange.groups[0];
  const group = out.addFunctionalGroup(serialization);
  group.setHeader([
    'FA',
    first?.receiverCode.trim() || options.senderId,
    first?.senderCode.trim() || (options.receiverId ?? interchange.fields.senderId.trim()),
    ccyymmdd(options.date),
    hhmm(options.date),
    String(controlNumber(options.groupControlNumber ?? options.controlNumber)),
    'X',
    version === '00501' ? '005010' : '004010',
  ]);
  interchange.groups.forEach((received, i) => {
    const ack = acknowledgeGroup(received, options);
    const transaction = group.addTransaction();
    transaction.setHeader(['997', String(i + 1).padStart(4, '0')]);
    transaction.addSegment(
      'AK1',
      version === '00501' ? [ack.functionalId, ack.control, ack.version] : [ack.functionalId, ack.control],
    );
    for (const set of ack.sets) {
      transaction.addSegment(
        'AK2',
        version === '00501' && set.implementationReference
          ? [set.id, set.control, set.implementationReference]
          : [set.id, set.control],
      );
      for (const seg of set.segmentErrors) {
        transaction.addSegment('AK3', [seg.tag, String(seg.position), '', seg.code]);
        for (const el of seg.elements) {
          transaction.addSegment('AK4', [String(el.element), '', el.code]);
        }
      }
      transaction.addSegment('AK5', [set.status, ...set.codes]);
    }
    transaction.addSegment('AK9', [
      ack.status,
      String(ack.included),
      String(ack.received),
      String(ack.accepted),
      ...ack.codes,
    ]);
  });
  return out.toString(serialization);
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
  const serialization = serializationOptions(version, options.delimiters);
  const segment = (tag: string, elements: string[]) =>
    new X12Segment(tag, serialization).setElements(elements).toString(serialization);
  const f = interchange.fields;
  const control = String(controlNumber(options.controlNumber)).padStart(9, '0');
  return [
    segment('ISA', isaHeader(interchange, options, version)),
    segment('TA1', [f.controlNumber.trim(), f.date.trim(), f.time.trim(), code, note]),
    segment('IEA', ['0', control]),
  ].join(serialization.endOfLine);
}

function isaHeader(interchange: Interchange, options: AcknowledgmentOptions, version: string): string[] {
  const f = interchange.fields;
  const d = { ...defaultDelimiters(version), ...options.delimiters };
  return [
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    (options.senderQualifier ?? 'ZZ').padEnd(2),
    options.senderId.padEnd(15).slice(0, 15),
    (options.receiverQualifier ?? (f.senderQualifier.trim() || 'ZZ')).padEnd(2),
    (options.receiverId ?? f.senderId.trim()).padEnd(15).slice(0, 15),
    yymmdd(options.date),
    hhmm(options.date),
    version === '00501' ? (d.repetition ?? '^') : 'U',
    version,
    String(controlNumber(options.controlNumber)).padStart(9, '0'),
    '0',
    options.usage ?? (/^[PTI]$/.test(f.usage) ? f.usage : 'P'),
    d.component,
  ];
}

function defaultDelimiters(version: string): Delimiters {
  return { element: '*', component: '>', segment: '~', ...(version === '00501' ? { repetition: '^' } : {}) };
}

function serializationOptions(version: string, delimiters: Partial<Delimiters> = {}): X12SerializationOptions {
  const d = { ...defaultDelimiters(version), ...delimiters };
  return {
    elementDelimiter: d.element,
    segmentTerminator: d.segment,
    subElementDelimiter: d.component,
    repetitionDelimiter: d.repetition ?? 'U',
    endOfLine: '\n',
    format: true,
  };
}

function controlNumber(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 999_999_999) {
    throw new RangeError(`control number ${n} must be an integer in 1..999999999`);
  }
  return n;
}

const two = (n: number) => String(n).padStart(2, '0');
const ccyymmdd = (d: Date) => `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}`;
const yymmdd = (d: Date) => ccyymmdd(d).slice(2);
const hhmm = (d: Date) => `${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
