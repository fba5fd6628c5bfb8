import type { DocumentInput, Load } from '@dockbridge/platform';
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
    dates: DateRules;
    diagnostics: MappingDiagnostic[];
    /** The set's N1, TD5, DTM and REF segments (found by looking at every segment when not given). */
    shared?: SharedSegments;
  },
): TransactionMapping {
  const control = transaction.envelope.transactionControl;
  const diagnostics = spec.diagnostics.slice();

  if (!spec.documentId) {
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
    addError(diagnostics, transaction, parties.problems[i]);
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
    addError(diagnostics, transaction, dates.problems[i].message, dates.problems[i].position);
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

/** An error diagnostic of the set, at a segment (by position) when given. */
function addError(
  diagnostics: MappingDiagnostic[],
  transaction: EdiTransaction,
  message: string,
  segmentPosition?: number,
): void {
  const control = transaction.envelope.transactionControl;
  diagnostics.push({
    level: 'error',
    transactionControl: control,
    message,
    ...(segmentPosition && { segmentPosition, segmentTag: transaction.segments[segmentPosition - 1]?.tag }),
  });
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

/** The value of a quantity element, or undefined when it is not one. */
export function quantityValue(raw: string): number | undefined {
  // Nearly every quantity is a few plain digits: no regular expression needed for those.
  const length = raw.length;
  if (length > 0 && length <= 15) {
    let i = 0;
    while (i < length && raw.charCodeAt(i) >= 48 && raw.charCodeAt(i) <= 57) {
      i++;
    }
    if (i === length) {
      return Number(raw);
    }
  }
  if (!X12_QUANTITY.test(raw)) {
    return undefined;
  }
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
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
  diagnostics.push({
    level: 'error',
    transactionControl: where.control,
    segmentPosition: where.position,
    segmentTag: where.tag,
    element: where.element,
    message: `${where.tag}0${where.element} must be a non-negative quantity, got ${JSON.stringify(raw)}`,
  });
  return undefined;
}
