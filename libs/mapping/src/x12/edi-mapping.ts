import type { TransactionMapping } from './document-builder';
import type { EdiMappingSettings, EdiTransaction, PartyDirectory } from './edi-types';
import { EMPTY_DIRECTORY } from './edi-types';
import { mapPurchaseOrder } from './purchase-order.mapper';
import { mapShipNotice } from './ship-notice.mapper';

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
