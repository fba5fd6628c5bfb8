import type { DocumentOperation } from '@dockbridge/audit';
import type { CanonicalOperation } from '@dockbridge/mapping';
import type { BatchJobData } from '../queues';

export interface DeliveryPlan {
  /** Operations delivered one call each. */
  single: string[];
  batches: Omit<BatchJobData, 'platformJobId'>[];
}

/**
 * Splits a message's operations: document upserts (or deletes) for one location and one set of
 * reference options go through platform batch jobs when there are at least `threshold` of them,
 * in chunks of at most `batchSize`; everything else is delivered one call at a time. Pure.
 */
export function planDelivery(messageId: string, operations: readonly DocumentOperation[], threshold: number, batchSize: number): DeliveryPlan {
  const groups = new Map<string, { organisationId: string; kind: BatchJobData['kind']; ids: string[] }>();
  const single: string[] = [];
  for (const op of operations) {
    if (op.status !== 'pending' && op.status !== 'delivering') continue;
    const payload = op.payload as CanonicalOperation;
    if (payload.kind !== 'document.upsert' && payload.kind !== 'document.delete') {
      single.push(op.id);
      continue;
    }
    const options = payload.kind === 'document.upsert' ? JSON.stringify(payload.options ?? {}) : '';
    const key = `${payload.kind}|${payload.organisationId}|${options}`;
    const group = groups.get(key) ?? { organisationId: payload.organisationId, kind: payload.kind, ids: [] };
    group.ids.push(op.id);
    groups.set(key, group);
  }
  const batches: DeliveryPlan['batches'] = [];
  for (const group of groups.values()) {
    if (group.ids.length < threshold) {
      single.push(...group.ids);
      continue;
    }
    for (let i = 0; i < group.ids.length; i += batchSize) {
      batches.push({ messageId, organisationId: group.organisationId, kind: group.kind, operationIds: group.ids.slice(i, i + batchSize) });
    }
  }
  return { single, batches };
}
