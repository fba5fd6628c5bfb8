import type { Load } from '@dockbridge/platform';
import { ELEMENT_ERROR, SEGMENT_ERROR } from '@dockbridge/x12';
import {
  buildMapping,
  MAX_DOCUMENT_ID,
  Purpose,
  quantity,
  SharedSegments,
  TransactionMapping,
} from './document-builder';
import { DEFAULT_LOAD_TAG_QUALIFIERS, el, loadTagOf } from './edi-fields';
import { PURCHASE_ORDER_DATES } from './dates';
import type { EdiMappingSettings, EdiTransaction, MappingDiagnostic, PartyDirectory } from './edi-types';

/** BEG01 transaction set purpose → what to do with the document, and its status name. */
const PURPOSES: Record<string, { purpose: Purpose; status: string }> = {
  '00': { purpose: 'upsert', status: 'Original' },
  '05': { purpose: 'upsert', status: 'Replace' },
  '01': { purpose: 'delete', status: 'Cancellation' },
  '07': { purpose: 'duplicate', status: 'Duplicate' },
};

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
  const documentId = el(beg, 3) ? [el(beg, 3), el(beg, 4)].filter(Boolean).join('-') : '';
  if (beg && !documentId) {
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: begIndex + 1,
      segmentTag: 'BEG',
      element: 3,
      code: ELEMENT_ERROR.mandatoryMissing,
      message: 'BEG03 (purchase order number) is missing',
    });
  } else if (documentId.length > MAX_DOCUMENT_ID) {
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: begIndex + 1,
      segmentTag: 'BEG',
      element: 3,
      code: ELEMENT_ERROR.tooLong,
      value: el(beg, 3),
      message: `the document id ${JSON.stringify(documentId.slice(0, 20))}… is longer than ${MAX_DOCUMENT_ID} characters`,
    });
  }
  const priority = settings.loadTagQualifiers ?? DEFAULT_LOAD_TAG_QUALIFIERS;

  const loads: Load[] = [];
  const segments = transaction.segments;
  // The same pass notes the segments buildMapping reads.
  const shared = new SharedSegments();
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    shared.note(segment.tag, i);
    if (segment.tag !== 'PO1') {
      continue;
    }
    const qty = quantity(el(segment, 2), { control, position: i + 1, tag: 'PO1', element: 2 }, diagnostics);
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
      if (next.tag === 'PID' && el(next, 5)) {
        description = el(next, 5);
        break;
      }
    }
    const load: Load = { name: description || tag || settings.defaultLoadName || 'Item', quantity: qty };
    if (tag) {
      load.loadTag = tag;
    }
    loads.push(load);
  }

  return buildMapping(transaction, settings, directory, {
    documentId,
    purpose: purpose?.purpose ?? 'upsert',
    statusName: purpose?.status ?? code,
    typeName: 'PurchaseOrder',
    loads,
    dates: PURCHASE_ORDER_DATES,
    diagnostics,
    shared,
  });
}
