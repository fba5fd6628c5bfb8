import { OperationStatus } from './audit.types';

export type DerivedMessageStatus = 'delivering' | 'delivered' | 'partially_failed' | 'failed';

/**
 * A message's status from its operations' statuses. While any operation is pending or
 * delivering the message is `delivering`; once all are settled it is `delivered` when none
 * failed, `failed` when all failed, `partially_failed` otherwise. A skipped operation (nothing
 * to do on the platform) counts as a success. A message without operations is `delivered`.
 */
export function deriveMessageStatus(statuses: readonly OperationStatus[]): DerivedMessageStatus {
  if (statuses.some((s) => s === 'pending' || s === 'delivering')) return 'delivering';
  const failed = statuses.filter((s) => s === 'failed').length;
  if (failed === 0) return 'delivered';
  return failed === statuses.length ? 'failed' : 'partially_failed';
}
