import type { Load } from '@dockbridge/platform';
import { ELEMENT_ERROR, SEGMENT_ERROR } from '@dockbridge/x12';
import {
  buildMapping,
  documentIdProblem,
  Purpose,
  quantity,
  quantityValue,
  SharedSegments,
  TransactionMapping,
} from './document-builder';
import { DEFAULT_LOAD_TAG_QUALIFIERS, el, elOnce, loadTagOf, productIdError } from './edi-fields';
import { PURCHASE_ORDER_DATES } from './dates';
import type { EdiMappingSettings, EdiSegment, EdiTransaction, MappingDiagnostic, PartyDirectory } from './edi-types';

/** BEG01 transaction set purpose → what to do with the document, and its status name. */
const PURPOSES: Record<string, { purpose: Purpose; status: string }> = {
  '00': { purpose: 'upsert', status: 'Original' },
  '05': { purpose: 'upsert', status: 'Replace' },
  '01': { purpose: 'delete', status: 'Cancellation' },
  '07': { purpose: 'duplicate', status: 'Duplicate' },
};

/** BEG03, plus "-" BEG04 when there is a release; '' without BEG03 (a release alone names no order). */
export function purchaseOrderId(beg: EdiSegment): string {
  const order = el(beg, 3);
  const release = el(beg, 4);
  return order ? (release ? `${order}-${release}` : order) : '';
}

/**
 * 850 Purchase Order → one PurchaseOrder document: id BEG03 (+ "-" + BEG04 release), one load per
 * PO1 (quantity PO102, name PID05 else the product id, tag by qualifier priority).
 */
export function mapPurchaseOrder(
  transaction: EdiTransaction,
  settings: EdiMappingSettings,
  directory: PartyDirectory,
): TransactionMapping {
  const control = transaction.envelope.transactionControl;
  const diagnostics: MappingDiagnostic[] = [];
  const begIndex = transaction.segments.findIndex((s) => s.tag === 'BEG');
  const beg = transaction.segments[begIndex];
  if (!beg) {
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: 2,
      segmentTag: 'BEG',
      segmentCode: SEGMENT_ERROR.mandatorySegmentMissing,
      message: 'the 850 has no BEG segment',
    });
  }
  const code = el(beg, 1);
  const purpose = PURPOSES[code];
  if (beg && !purpose) {
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: begIndex + 1,
      segmentTag: 'BEG',
      element: 1,
      ...(code ? { code: ELEMENT_ERROR.invalidCodeValue, value: code } : { code: ELEMENT_ERROR.mandatoryMissing }),
      message: code
        ? `BEG01 purpose code ${JSON.stringify(code)} is not handled (00, 01, 05, 07)`
        : 'BEG01 (purpose code) is missing',
    });
  }
  // BEG03 is the purchase order number; a release number (BEG04) alone names nothing.
  const documentId = beg ? purchaseOrderId(beg) : '';
  const problem =
    beg && !documentId
      ? { code: ELEMENT_ERROR.mandatoryMissing, message: 'BEG03 (purchase order number) is missing' }
      : documentIdProblem(documentId, el(beg, 3));
  if (problem) {
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: begIndex + 1,
      segmentTag: 'BEG',
      element: 3,
      ...problem,
    });
  }
  const priority = settings.loadTagQualifiers ?? DEFAULT_LOAD_TAG_QUALIFIERS;

  const loads: Load[] = [];
  const productIdErrors: string[] = [];
  const segments = transaction.segments;
  // The same pass notes the segments buildMapping reads.
  const shared = new SharedSegments();
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    shared.note(segment.tag, i);
    if (segment.tag !== 'PO1') {
      continue;
    }
    const raw = el(segment, 2);
    const qty = quantityValue(raw) ?? quantity(raw, { control, position: i + 1, tag: 'PO1', element: 2 }, diagnostics);
    if (qty === undefined) {
      continue;
    }
    const tag = loadTagOf(segment, 6, priority);
    // PID belongs to this line when it comes before the next PO1 (or the summary).
    let description = '';
    for (let j = i + 1; j < segments.length; j++) {
      const next = segments[j];
      if (next.tag === 'PO1' || next.tag === 'CTT' || next.tag === 'SE') {
        break;
      }
      if (next.tag === 'PID') {
        description = elOnce(next, 5);
        if (description) {
          break;
        }
      }
    }
    const load: Load = { name: description || tag || settings.defaultLoadName || 'Item', quantity: qty };
    if (tag) {
      load.loadTag = tag;
    }
    loads.push(load);
    if (transaction.elementErrors) {
      const lost = productIdError(transaction.elementErrors, i + 1, 'PO1', 6);
      if (lost) {
        productIdErrors.push(`load ${loads.length}: ${lost}`);
      }
    }
  }

  return buildMapping(transaction, settings, directory, {
    documentId,
    purpose: purpose?.purpose ?? 'upsert',
    statusName: purpose?.status ?? code,
    typeName: 'PurchaseOrder',
    loads,
    productIdErrors,
    dates: PURCHASE_ORDER_DATES,
    diagnostics,
    shared,
  });
}
