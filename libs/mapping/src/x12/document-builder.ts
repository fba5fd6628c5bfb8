import type { DocumentInput, Load } from '@dockbridge/platform';
import { ELEMENT_ERROR, type ElementErrorCode } from '@dockbridge/x12';
import type { CanonicalOperation } from '../canonical-operation';
import { el } from './edi-fields';
import { datesOf, DateRules } from './dates';
import type { EdiMappingSettings, EdiTransaction, MappingDiagnostic, PartyDirectory } from './edi-types';
import { resolveParties } from './parties';

/** What a mapper makes of one transaction set: at most one operation, and what it noticed. */
export interface TransactionMapping {
  transactionControl: string;
  setId: string;
  documentId?: string;
  operation?: CanonicalOperation;
  /** True when the set cannot be delivered (an error diagnostic says why). */
  rejected: boolean;
  diagnostics: MappingDiagnostic[];
}

export type Purpose = 'upsert' | 'delete' | 'duplicate';

/** Loads named one by one in `productIdErrors`. */
const MAX_LISTED = 20;

/** The longest document id the platform takes (DocumentInput.id). */
export const MAX_DOCUMENT_ID = 100;

/**
 * What is wrong with the document id a set gives (`value`: the element it came from), in table 723's
 * terms: longer than the platform takes (5), or "." / ".." (7), which a URL path reads as no id at all
 * (`DELETE …/documents/..` is the organisation's own URL; the platform's DTO refuses them too).
 */
export function documentIdProblem(
  documentId: string,
  value: string,
): { code: ElementErrorCode; value: string; message: string } | undefined {
  if (documentId.length > MAX_DOCUMENT_ID) {
    const start = JSON.stringify(documentId.slice(0, 20));
    return {
      code: ELEMENT_ERROR.tooLong,
      value,
      message: `the document id ${start}… is longer than ${MAX_DOCUMENT_ID} characters`,
    };
  }
  if (documentId === '.' || documentId === '..') {
    const id = JSON.stringify(documentId);
    return {
      code: ELEMENT_ERROR.invalidCodeValue,
      value,
      message: `the document id ${id} names no document: a URL path reads it as none`,
    };
  }
  return undefined;
}

/** REF qualifiers copied into attributes: bill of lading, carrier reference (PRO), department, internal vendor number. */
const REFERENCE_ATTRIBUTES: Record<string, string> = {
  BM: 'billOfLading',
  CN: 'carrierReference',
  DP: 'department',
  IA: 'internalVendorNumber',
};

/**
 * Where the segments `buildMapping` reads are (0-based indexes into the set, in order), noted by a
 * mapper during its own pass so that a set is walked once rather than once per part.
 */
export class SharedSegments {
  readonly n1: number[] = [];
  readonly td5: number[] = [];
  readonly dtm: number[] = [];
  readonly ref: number[] = [];

  /** Notes segment `index` when it is one buildMapping reads. */
  note(tag: string, index: number): void {
    if (tag === 'N1') {
      this.n1.push(index);
    } else if (tag === 'REF') {
      this.ref.push(index);
    } else if (tag === 'DTM') {
      this.dtm.push(index);
    } else if (tag === 'TD5') {
      this.td5.push(index);
    }
  }
}

/** The parts every X12 document shares: parties, dates, attributes, settings, and the operation itself. */
export function buildMapping(
  transaction: EdiTransaction,
  settings: EdiMappingSettings,
  directory: PartyDirectory,
  spec: {
    documentId: string;
    purpose: Purpose;
    statusName: string;
    typeName: string;
    loads: Load[];
    /** Each load's order, as runs of loads (`1-24=PO-7001; 25-48=PO-7002`): the attribute `loadOrders`. */
    loadOrders?: string;
    /** Loads whose product id a syntax error broke (a set accepted with errors): `productIdErrors`. */
    productIdErrors?: string[];
    dates: DateRules;
    diagnostics: MappingDiagnostic[];
    /** The set's N1, TD5, DTM and REF segments (found by looking at every segment when not given). */
    shared?: SharedSegments;
  },
): TransactionMapping {
  const control = transaction.envelope.transactionControl;
  const diagnostics = spec.diagnostics.slice();

  // The mappers name the element an id is missing from; this is for one that did not.
  if (!spec.documentId && !hasError(diagnostics)) {
    addError(diagnostics, transaction, 'the document id is missing');
  }
  if (spec.purpose === 'duplicate') {
    diagnostics.push({
      level: 'warning',
      transactionControl: control,
      message: `document ${spec.documentId} is marked as a duplicate: nothing to deliver`,
    });
    return {
      transactionControl: control,
      setId: transaction.setId,
      documentId: spec.documentId,
      rejected: diagnostics.some((d) => d.level === 'error'),
      diagnostics,
    };
  }
  if (spec.purpose === 'delete') {
    const rejected = diagnostics.some((d) => d.level === 'error');
    const base = { transactionControl: control, setId: transaction.setId, documentId: spec.documentId };
    return {
      ...base,
      rejected,
      diagnostics,
      ...(!rejected && {
        operation: { kind: 'document.delete', organisationId: settings.organisationId, documentId: spec.documentId },
      }),
    };
  }

  const shared = spec.shared;
  const parties = resolveParties(transaction.segments, settings, directory, 'SCAC', shared);
  for (let i = 0; i < parties.problems.length; i++) {
    const problem = parties.problems[i];
    addError(diagnostics, transaction, problem.message, problem);
  }
  if (!parties.occupant && !parties.offsite && !parties.carrier) {
    addError(
      diagnostics,
      transaction,
      'no party could be resolved: give N1*ST, N1*SF/SH/VN/SU/SE, a TD5 with a SCAC (TD502 = 2) or N1*CA',
    );
  }
  const dates = datesOf(transaction.segments, spec.dates, shared?.dtm);
  for (let i = 0; i < dates.problems.length; i++) {
    const problem = dates.problems[i];
    addError(diagnostics, transaction, problem.message, problem);
  }

  const attributes: Record<string, string> = {
    interchangeSender: transaction.envelope.senderId,
    interchangeReceiver: transaction.envelope.receiverId,
    interchangeControl: transaction.envelope.interchangeControl,
    groupControl: transaction.envelope.groupControl,
    transactionControl: control,
  };
  const segments = transaction.segments;
  for (let k = 0, count = shared ? shared.ref.length : segments.length; k < count; k++) {
    const segment = segments[shared ? shared.ref[k] : k];
    const name = segment.tag === 'REF' ? REFERENCE_ATTRIBUTES[el(segment, 1)] : undefined;
    if (name && !attributes[name]) {
      const value = el(segment, 2);
      if (value) {
        attributes[name] = value;
      }
    }
  }

  if (spec.loadOrders) {
    attributes.loadOrders = spec.loadOrders;
  }
  const lost = spec.productIdErrors;
  if (lost && lost.length > 0) {
    // Bounded: a file of broken lines must not make a document of megabytes.
    attributes.productIdErrors =
      lost.slice(0, MAX_LISTED).join('; ') + (lost.length > MAX_LISTED ? `; and ${lost.length - MAX_LISTED} more` : '');
  }

  // Built property by property (same keys, same order as spreading optional parts): this runs per set.
  const document: DocumentInput = { id: spec.documentId, direction: parties.direction };
  if (parties.occupant) {
    document.occupant = parties.occupant;
  }
  if (parties.offsite) {
    document.offsite = parties.offsite;
  }
  if (parties.carrier) {
    document.carrier = parties.carrier;
  }
  document.loads = spec.loads;
  if (settings.documentSettings) {
    document.settings = settings.documentSettings;
  }
  if (dates.validDates) {
    document.validDates = dates.validDates;
  }
  if (dates.preferredDates) {
    document.preferredDates = dates.preferredDates;
  }
  document.attributes = attributes;
  document.status = { name: spec.statusName };
  document.type = { name: spec.typeName };
  const rejected = hasError(diagnostics);
  // Spelled out rather than spread from `base`: an object made by spreading takes a slow path
  // when `operation` is added to it afterwards (measured: a quarter of this function).
  const result: TransactionMapping = {
    transactionControl: control,
    setId: transaction.setId,
    documentId: spec.documentId,
    rejected,
    diagnostics,
  };
  if (!rejected) {
    const operation: CanonicalOperation & { kind: 'document.upsert' } = {
      kind: 'document.upsert',
      organisationId: settings.organisationId,
      document,
    };
    if (settings.enableBaseOrgs || settings.selfCoreId) {
      operation.options = {
        ...(settings.enableBaseOrgs && { enableBaseOrgs: true }),
        ...(settings.selfCoreId && { selfCoreId: settings.selfCoreId }),
      };
    }
    result.operation = operation;
  }
  return result;
}

/** Where in the set a problem is: the segment (position, ST = 1), and the element with its table 723 code. */
export interface ProblemLocation {
  position: number;
  element?: number;
  code?: ElementErrorCode;
  value?: string;
}

/** An error diagnostic of the set, at a segment and element when given. */
function addError(
  diagnostics: MappingDiagnostic[],
  transaction: EdiTransaction,
  message: string,
  where?: ProblemLocation,
): void {
  const control = transaction.envelope.transactionControl;
  const diagnostic: MappingDiagnostic = { level: 'error', transactionControl: control, message };
  if (where?.position) {
    diagnostic.segmentPosition = where.position;
    diagnostic.segmentTag = transaction.segments[where.position - 1]?.tag;
    if (where.element) {
      diagnostic.element = where.element;
      diagnostic.code = where.code ?? ELEMENT_ERROR.invalidCodeValue;
      if (where.value) {
        diagnostic.value = where.value;
      }
    }
  }
  diagnostics.push(diagnostic);
}

/**
 * Plain loops rather than callbacks here and in the other per-set code (parties, dates): a big
 * file's first thousand sets run before the optimising compiler gets to this code, and callbacks,
 * iterators and destructuring are slow until it does.
 */
function hasError(diagnostics: readonly MappingDiagnostic[]): boolean {
  for (let i = 0; i < diagnostics.length; i++) {
    if (diagnostics[i].level === 'error') {
      return true;
    }
  }
  return false;
}

/** An X12 decimal (R) that is not negative: digits with an optional point, and 5010's optional exponent. Not hex, not "Infinity". */
const X12_QUANTITY = /^(\d+\.?\d*|\.\d+)(E-?\d+)?$/;
/** The most digits a quantity may have (PO102 is R 1/15; the point and the exponent do not count). */
const MAX_QUANTITY_DIGITS = 15;

/** The value of a quantity element, or undefined when it is not one. */
export function quantityValue(raw: string): number | undefined {
  // Nearly every quantity is a few plain digits: no regular expression needed for those.
  const length = raw.length;
  if (length > 0 && length <= MAX_QUANTITY_DIGITS) {
    // Read as it is checked (15 digits are exact in a double): what Number(raw) gives, without it.
    let value = 0;
    let i = 0;
    for (; i < length; i++) {
      const c = raw.charCodeAt(i);
      if (c < 48 || c > 57) {
        break;
      }
      value = value * 10 + (c - 48);
    }
    if (i === length) {
      return value;
    }
  }
  if (!X12_QUANTITY.test(raw) || mantissaDigits(raw) > MAX_QUANTITY_DIGITS) {
    return undefined;
  }
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

function mantissaDigits(raw: string): number {
  const e = raw.indexOf('E');
  return (e === -1 ? raw : raw.slice(0, e)).replace('.', '').length;
}

/**
 * Table 723's word for a value that is no quantity: missing (1), more digits than R 1/15 allows
 * (5), a negative number (7: a valid R value, but not one a quantity may take), else a character
 * no decimal has (6: letters, a comma, a sign in the wrong place).
 */
export function quantityErrorCode(raw: string): ElementErrorCode {
  if (raw === '') {
    return ELEMENT_ERROR.mandatoryMissing;
  }
  if (raw.charCodeAt(0) === 45 && X12_QUANTITY.test(raw.slice(1))) {
    return ELEMENT_ERROR.invalidCodeValue;
  }
  return X12_QUANTITY.test(raw) ? ELEMENT_ERROR.tooLong : ELEMENT_ERROR.invalidCharacter;
}

/** A quantity element as a number, or an error diagnostic naming segment and element. */
export function quantity(
  raw: string,
  where: { control: string; position: number; tag: string; element: number },
  diagnostics: MappingDiagnostic[],
): number | undefined {
  const value = quantityValue(raw);
  if (value !== undefined) {
    return value;
  }
  const code = quantityErrorCode(raw);
  const name = `${where.tag}0${where.element}`;
  diagnostics.push({
    level: 'error',
    transactionControl: where.control,
    segmentPosition: where.position,
    segmentTag: where.tag,
    element: where.element,
    code,
    ...(raw !== '' && { value: raw }),
    message:
      code === ELEMENT_ERROR.mandatoryMissing
        ? `${name} (quantity) is missing`
        : code === ELEMENT_ERROR.tooLong
          ? `${name} has more than ${MAX_QUANTITY_DIGITS} digits, got ${JSON.stringify(raw)}`
          : `${name} must be a non-negative quantity, got ${JSON.stringify(raw)}`,
  });
  return undefined;
}
