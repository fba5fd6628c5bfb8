import type { TransactionMapping } from './document-builder';
import type { EdiMappingSettings, EdiTransaction, PartyDirectory } from './edi-types';
import { EMPTY_DIRECTORY } from './edi-types';
import type { EdiSegment } from './edi-types';
import { mapPurchaseOrder, purchaseOrderId } from './purchase-order.mapper';
import { mapShipNotice, shipNoticeId } from './ship-notice.mapper';

const MAPPERS: Record<string, typeof mapPurchaseOrder> = { '850': mapPurchaseOrder, '856': mapShipNotice };

/** Sets dockbridge turns into documents. Others are acknowledged and reported, never delivered. */
export const MAPPED_SETS = Object.keys(MAPPERS);

/** Maps one transaction set. Pure: X12 in, at most one operation plus diagnostics out. */
export function mapTransaction(
  transaction: EdiTransaction,
  settings: EdiMappingSettings,
  directory: PartyDirectory = EMPTY_DIRECTORY,
): TransactionMapping {
  const mapper = MAPPERS[transaction.setId];
  if (mapper) {
    return mapper(transaction, settings, directory);
  }
  return {
    transactionControl: transaction.envelope.transactionControl,
    setId: transaction.setId,
    rejected: true,
    diagnostics: [
      {
        level: 'error',
        transactionControl: transaction.envelope.transactionControl,
        message: `transaction set ${transaction.setId} is not supported (850, 856)`,
      },
    ],
  };
}

/** The document id a set names (BEG03[-BEG04], BSN02) without mapping it: '' when it names none. */
export function documentIdOf(setId: string, segments: readonly EdiSegment[]): string {
  const tag = setId === '850' ? 'BEG' : setId === '856' ? 'BSN' : undefined;
  const header = tag ? segments.find((s) => s.tag === tag) : undefined;
  if (!header) {
    return '';
  }
  return tag === 'BEG' ? purchaseOrderId(header) : shipNoticeId(header);
}
