import { OperationStatus } from './audit.types';

/** Still to be delivered: not yet sent, or a call for it under way. */
export const isUnsettled = (status: OperationStatus): boolean => status === 'pending' || status === 'delivering';

export type DerivedMessageStatus = 'delivering' | 'delivered' | 'partially_failed' | 'failed' | 'superseded';

/**
 * A message's status from its operations' statuses. While any operation is pending or
 * delivering the message is `delivering`; once all are settled it is `delivered` when none
 * failed, `failed` when all failed, `partially_failed` otherwise. A skipped operation (nothing
 * to do on the platform) counts as a success, as does a superseded one (a newer write to its target
 * was delivered); a message whose operations were all superseded is `superseded`. A message
 * without operations is `delivered`.
 */
export function deriveMessageStatus(statuses: readonly OperationStatus[]): DerivedMessageStatus {
  if (statuses.some(isUnsettled)) {
    return 'delivering';
  }
  const failed = statuses.filter((s) => s === 'failed').length;
  if (failed === 0) {
    return statuses.length > 0 && statuses.every((s) => s === 'superseded') ? 'superseded' : 'delivered';
  }
  return failed === statuses.length ? 'failed' : 'partially_failed';
}
