import { CreateAuditTables1767225600000 } from './1767225600000-create-audit-tables';
import { CreateInterchangeReceipts1767484800000 } from './1767484800000-create-interchange-receipts';
import { InterchangeReceiptsOutliveMessages1767657600000 } from './1767657600000-interchange-receipts-outlive-messages';
import { MessageArrivalOrder1767744000000 } from './1767744000000-message-arrival-order';
import { IdempotencyKeyOnMessage1767830400000 } from './1767830400000-idempotency-key-on-message';
import { DropMessageSha256Index1767916800000 } from './1767916800000-drop-message-sha256-index';
import { EdiSearchIndexes1768003200000 } from './1768003200000-edi-search-indexes';
import { NewestWriteWins1768089600000 } from './1768089600000-newest-write-wins';
import { IndexMessageReplayOf1768176000000 } from './1768176000000-index-message-replay-of';
import { OperationRetryState1768262400000 } from './1768262400000-operation-retry-state';
import { AttemptRecordedBeforeCall1768400000000 } from './1768400000000-attempt-recorded-before-call';
import { ReplayRuns1768572800000 } from './1768572800000-replay-runs';
import { OperatorAccounts1768800000000 } from './1768800000000-operator-accounts';
import { OperationPayloadOutOfLine1768900000000 } from './1768900000000-operation-payload-out-of-line';
import { OperationUpdatesInPlace1769000000000 } from './1769000000000-operation-updates-in-place';
import { OperationTally1769100000000 } from './1769100000000-operation-tally';
import { OperationPayloadBlocks1769200000000 } from './1769200000000-operation-payload-blocks';
import { CompactDeliveryKeys1769300000000 } from './1769300000000-compact-delivery-keys';
import { OperationClaimedBy1769400000000 } from './1769400000000-operation-claimed-by';
import { UntranslatedMessagesIndex1769500000000 } from './1769500000000-untranslated-messages-index';
import { AbandoningMessagesIndex1769600000000 } from './1769600000000-abandoning-messages-index';
import { OperationPayloadWeight1769700000000 } from './1769700000000-operation-payload-weight';

/** Every audit migration, oldest first. Append; never edit one that has shipped. */
export const AUDIT_MIGRATIONS = [
  CreateAuditTables1767225600000,
  CreateInterchangeReceipts1767484800000,
  InterchangeReceiptsOutliveMessages1767657600000,
  MessageArrivalOrder1767744000000,
  IdempotencyKeyOnMessage1767830400000,
  DropMessageSha256Index1767916800000,
  EdiSearchIndexes1768003200000,
  NewestWriteWins1768089600000,
  IndexMessageReplayOf1768176000000,
  OperationRetryState1768262400000,
  AttemptRecordedBeforeCall1768400000000,
  ReplayRuns1768572800000,
  OperatorAccounts1768800000000,
  OperationPayloadOutOfLine1768900000000,
  OperationUpdatesInPlace1769000000000,
  OperationTally1769100000000,
  OperationPayloadBlocks1769200000000,
  CompactDeliveryKeys1769300000000,
  OperationClaimedBy1769400000000,
  UntranslatedMessagesIndex1769500000000,
  AbandoningMessagesIndex1769600000000,
  OperationPayloadWeight1769700000000,
];
