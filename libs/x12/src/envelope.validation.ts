import type {
  FunctionalGroup,
  Interchange,
  IsaFields,
  Problem,
  ProblemCode,
  Segment,
  TransactionSet,
} from './x12.types';

/**
 * Envelope checks as pure functions over what the reader assembled. Each returns the problems
 * it finds (never throws); the reader attaches them to the structure they concern.
 */

/** Fixed widths of ISA01..ISA16. */
export const ISA_WIDTHS = [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1] as const;

/**
 * What ISA fields of their width (checked first) must hold: the codes of tables I01, I03, I05, I11
 * (a version this reader knows the envelope of), I13 and I14, and a real date and time.
 */
/** Interchange id qualifiers (table I05): ISA05, ISA07. */
export const INTERCHANGE_ID_QUALIFIER = /^(0[1-9]|[1-3]\d|AM|NR|SA|SN|ZZ)$/;

const ISA_FORMATS: Record<number, [RegExp, string]> = {
  1: [/^0[0-6]$/, 'an authorization qualifier (00 to 06)'],
  3: [/^0[01]$/, 'a security qualifier (00 or 01)'],
  5: [INTERCHANGE_ID_QUALIFIER, 'an interchange id qualifier (01 to 38, AM, NR, SA, SN or ZZ)'],
  7: [INTERCHANGE_ID_QUALIFIER, 'an interchange id qualifier (01 to 38, AM, NR, SA, SN or ZZ)'],
  9: [/^\d\d(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/, 'a YYMMDD date'],
  10: [/^([01]\d|2[0-3])[0-5]\d$/, 'an HHMM time'],
  12: [/^00[2-8]\d\d$/, 'an interchange version (00200 to 00899)'],
  13: [/^\d+$/, '9 digits'],
  14: [/^[01]$/, '0 or 1'],
  15: [/^[PTI]$/, 'P, T or I'],
};

export function isaFields(isa: Pick<Segment, 'elements'>): IsaFields {
  const e = isa.elements;
  return {
    authorizationQualifier: e[0] ?? '',
    authorizationInfo: e[1] ?? '',
    securityQualifier: e[2] ?? '',
    securityInfo: e[3] ?? '',
    senderQualifier: e[4] ?? '',
    senderId: e[5] ?? '',
    receiverQualifier: e[6] ?? '',
    receiverId: e[7] ?? '',
    date: e[8] ?? '',
    time: e[9] ?? '',
    standardsIdOrRepetition: e[10] ?? '',
    version: e[11] ?? '',
    controlNumber: e[12] ?? '',
    acknowledgmentRequested: e[13] ?? '',
    usage: e[14] ?? '',
    componentSeparator: e[15] ?? '',
  };
}

/** ISA: 16 elements, each of its fixed width, numeric fields numeric. */
export function validateIsa(isa: Located & Pick<Segment, 'elements'>): Problem[] {
  const problems: Problem[] = [];
  const elements = isa.elements;
  if (elements.length !== 16) {
    problems.push(at(isa, 'ISA_FIELD_INVALID', `ISA has ${elements.length} elements, 16 expected`));
  }
  ISA_WIDTHS.forEach((width, i) => {
    const value = elements[i];
    if (value === undefined) {
      return;
    }
    const n = i + 1;
    if (value.length !== width) {
      problems.push({
        ...at(isa, 'ISA_FIELD_INVALID', `ISA${pad2(n)} "${value}" is ${value.length} characters, ${width} expected`),
        element: n,
      });
      return;
    }
    const format = ISA_FORMATS[n];
    if ((format && !format[0].test(value)) || (n === 9 && !realDay(value))) {
      problems.push({ ...at(isa, 'ISA_FIELD_INVALID', `ISA${pad2(n)} "${value}" must be ${format[1]}`), element: n });
    }
  });
  return problems;
}

/** YYMMDD names a day of its month (no 31 November, 29 February only in a leap year; YY read as 20YY). */
function realDay(yymmdd: string): boolean {
  const year = 2000 + Number(yymmdd.slice(0, 2));
  const month = Number(yymmdd.slice(2, 4));
  const day = Number(yymmdd.slice(4, 6));
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** IEA (or its absence) against the interchange it closes. */
export function validateInterchangeTrailer(
  interchange: Interchange,
  iea: Segment | undefined,
  where?: Segment,
): Problem[] {
  if (!iea) {
    return [
      at(
        where ?? interchange.header,
        'MISSING_IEA',
        `interchange ${interchange.fields.controlNumber} has no IEA (truncated?)`,
      ),
    ];
  }
  const problems: Problem[] = [];
  const count = parseCount(iea.element(1));
  if (count !== interchange.groups.length) {
    problems.push({
      ...at(
        iea,
        'IEA01_GROUP_COUNT',
        `IEA01 "${iea.element(1)}" but the interchange has ${interchange.groups.length} group(s)`,
      ),
      element: 1,
    });
  }
  if (!sameControl(iea.element(2), interchange.fields.controlNumber)) {
    problems.push({
      ...at(
        iea,
        'ISA13_IEA02_MISMATCH',
        `IEA02 "${iea.element(2)}" does not match ISA13 "${interchange.fields.controlNumber}"`,
      ),
      element: 2,
    });
  }
  return problems;
}

/** GS: the 8 elements a group header needs. */
export function validateGroupHeader(gs: Segment): Problem[] {
  const missing = [1, 2, 3, 4, 5, 6, 7, 8].filter((n) => !gs.element(n).trim());
  return missing.length
    ? [{ ...at(gs, 'GS_INVALID', `GS without ${missing.map((n) => `GS${pad2(n)}`).join(', ')}`), element: missing[0] }]
    : [];
}

/** GE (or its absence) against the group it closes. */
export function validateGroupTrailer(group: FunctionalGroup, ge: Segment | undefined, where?: Segment): Problem[] {
  if (!ge) {
    return [at(where ?? group.header, 'MISSING_GE', `functional group ${group.control} has no GE`)];
  }
  const problems: Problem[] = [];
  const count = parseCount(ge.element(1));
  if (count !== group.setCount) {
    problems.push({
      ...at(ge, 'GE01_SET_COUNT', `GE01 "${ge.element(1)}" but the group has ${group.setCount} transaction set(s)`),
      element: 1,
    });
  }
  if (!sameControl(ge.element(2), group.control)) {
    problems.push({
      ...at(ge, 'GS06_GE02_MISMATCH', `GE02 "${ge.element(2)}" does not match GS06 "${group.control}"`),
      element: 2,
    });
  }
  return problems;
}

/** ST: an id and a control number; the control number unique within its group. */
export function validateSetHeader(st: Segment, controlsInGroup: Pick<ReadonlySet<string>, 'has'>): Problem[] {
  const problems: Problem[] = [];
  const id = st.element(1).trim();
  const control = st.element(2).trim();
  if (!/^[0-9A-Z]{3}$/.test(id)) {
    problems.push({ ...at(st, 'ST_INVALID', `ST01 "${id}" is not a transaction set id`), element: 1, setPosition: 1 });
  }
  if (!control) {
    problems.push({ ...at(st, 'ST_INVALID', 'ST02 (control number) is missing'), element: 2, setPosition: 1 });
  } else if (controlsInGroup.has(control)) {
    problems.push({
      ...at(st, 'DUPLICATE_ST02', `ST02 "${control}" is used twice in this group`),
      element: 2,
      setPosition: 1,
    });
  }
  return problems;
}

/** SE (or its absence) against the set it closes: SE01 counts ST..SE inclusive. */
export function validateSetTrailer(set: TransactionSet, se: Segment | undefined, where?: Segment): Problem[] {
  if (!se) {
    return [at(where ?? set.header, 'MISSING_SE', `transaction set ${set.id} ${set.control} has no SE`)];
  }
  const problems: Problem[] = [];
  const count = parseCount(se.element(1));
  const segments = set.segments.length + (set.omitted ?? 0);
  if (count !== segments) {
    problems.push({
      ...at(se, 'SE01_SEGMENT_COUNT', `SE01 "${se.element(1)}" but the set has ${segments} segments (ST..SE)`),
      element: 1,
      setPosition: segments,
    });
  }
  if (!sameControl(se.element(2), set.control)) {
    problems.push({
      ...at(se, 'ST02_SE02_MISMATCH', `SE02 "${se.element(2)}" does not match ST02 "${set.control}"`),
      element: 2,
      setPosition: segments,
    });
  }
  return problems;
}

/**
 * Key for duplicate-interchange detection (same sender + ISA13): the caller keeps these for its
 * window in storage. Padding is not significant.
 */
export function interchangeKey(isa: IsaFields | Interchange): string {
  const f = 'fields' in isa ? isa.fields : isa;
  return `${f.senderQualifier.trim()}/${f.senderId.trim()}/${f.controlNumber.trim()}`;
}

/** A count element ("26", "0000000026"); NaN when it is not a number. */
export function parseCount(value: string | undefined): number {
  const v = (value ?? '').trim();
  return /^\d{1,18}$/.test(v) ? Number(v) : NaN;
}

/** Control numbers match when equal, or equal as numbers when both are numeric (padding aside). */
export function sameControl(a: string | undefined, b: string | undefined): boolean {
  const x = (a ?? '').trim();
  const y = (b ?? '').trim();
  if (x === y) {
    return x.length > 0;
  }
  return /^\d+$/.test(x) && /^\d+$/.test(y) && Number(x) === Number(y);
}

/** What a problem needs to say where it is. */
type Located = Pick<Segment, 'index' | 'line' | 'column' | 'tag'>;

function at(segment: Located, code: ProblemCode, message: string): Problem {
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

const pad2 = (n: number) => String(n).padStart(2, '0');
