import type { DocumentOperation, PlanEntry } from '@dockbridge/audit';
import type { CanonicalOperation } from '@dockbridge/mapping';
import type { BatchJobData } from '../queues';

export interface DeliveryPlan {
  /** Operations delivered one call each. */
  single: string[];
  batches: Omit<BatchJobData, 'platformJobId'>[];
}

/** What a batch body stays under when not told: the platform's request limit is not published; 32 MiB is half the sandbox's. */
export const BATCH_MAX_BYTES = 32 * 1024 * 1024;

/** The bytes an operation adds to a batch body: its document as JSON (upserts), its id as a JSON string (deletes). */
const bodyBytesOf = (payload: CanonicalOperation): number =>
  Buffer.byteLength(
    JSON.stringify(
      payload.kind === 'document.upsert' ? payload.document : (payload as { documentId?: string }).documentId,
    ),
  ) + 1;

/**
 * Splits a message's operations: document upserts (or deletes) for one location and one set of
 * reference options go through platform batch jobs when there are at least `threshold` of them,
 * in chunks of at most `batchSize` documents and `maxBytes` of body; everything else is delivered
 * one call at a time. Pure.
 */
export function planDelivery(
  messageId: string,
  operations: readonly PlanEntry[],
  threshold: number,
  batchSize: number,
  maxBytes = BATCH_MAX_BYTES,
): DeliveryPlan {
  const planner = new DeliveryPlanner(messageId, threshold, batchSize, maxBytes);
  planner.addAll(operations);
  return planner.plan();
}

/** An operation row as planning reads it, from memory (planEntryOf) or from the database (OperationRepository.planEntryPages). */
export function planEntryOf(
  op: Pick<DocumentOperation, 'id' | 'status' | 'kind' | 'organisationId' | 'payload'>,
): PlanEntry {
  const payload = op.payload as CanonicalOperation;
  return {
    id: op.id,
    status: op.status,
    kind: op.kind,
    organisationId: op.organisationId,
    options: payload.kind === 'document.upsert' ? ((payload.options ?? null) as PlanEntry['options']) : null,
    bytes: payload.kind === 'document.upsert' || payload.kind === 'document.delete' ? bodyBytesOf(payload) - 1 : 0,
  };
}

/** planDelivery a page of operations at a time: it keeps ids and sizes, never the payloads. */
export class DeliveryPlanner {
  private readonly groups = new Map<
    string,
    { organisationId: string; kind: BatchJobData['kind']; ids: string[]; bytes: number[] }
  >();
  private readonly single: string[] = [];

  constructor(
    private readonly messageId: string,
    private readonly threshold: number,
    private readonly batchSize: number,
    private readonly maxBytes = BATCH_MAX_BYTES,
  ) {}

  addAll(operations: readonly PlanEntry[]): void {
    for (const op of operations) {
      if (op.status !== 'pending' && op.status !== 'delivering') {
        continue;
      }
      if ((op.kind !== 'document.upsert' && op.kind !== 'document.delete') || !op.organisationId) {
        this.single.push(op.id);
        continue;
      }
      const options = op.kind === 'document.upsert' ? JSON.stringify(op.options ?? {}) : '';
      const key = `${op.kind}|${op.organisationId}|${options}`;
      const group = this.groups.get(key) ?? { organisationId: op.organisationId, kind: op.kind, ids: [], bytes: [] };
      group.ids.push(op.id);
      group.bytes.push(op.bytes + 1);
      this.groups.set(key, group);
    }
  }

  plan(): DeliveryPlan {
    const single = [...this.single];
    const batches: DeliveryPlan['batches'] = [];
    for (const group of this.groups.values()) {
      if (group.ids.length < this.threshold) {
        single.push(...group.ids);
        continue;
      }
      for (let start = 0; start < group.ids.length;) {
        let end = start + 1;
        let bytes = group.bytes[start];
        while (end < group.ids.length && end - start < this.batchSize && bytes + group.bytes[end] <= this.maxBytes) {
          bytes += group.bytes[end++];
        }
        batches.push({
          messageId: this.messageId,
          organisationId: group.organisationId,
          kind: group.kind,
          operationIds: group.ids.slice(start, end),
        });
        start = end;
      }
    }
    return { single, batches };
  }
}

/**
 * Within one message, a later document upsert or delete of the same document makes earlier ones
 * moot (each writes the whole document): keep only the last, so parallel delivery cannot let an
 * older version win. Booking operations are kept as they are. Pure.
 */
export function dropSupersededWrites<T extends { operation: CanonicalOperation }>(
  items: readonly T[],
): { kept: T[]; notes: string[] } {
  const key = ({ operation: op }: T) =>
    op.kind === 'document.upsert'
      ? `${op.organisationId}|${op.document.id}`
      : op.kind === 'document.delete'
        ? `${op.organisationId}|${op.documentId}`
        : undefined;
  const last = new Map<string, number>();
  items.forEach((item, i) => {
    const k = key(item);
    if (k) {
      last.set(k, i);
    }
  });
  const notes: string[] = [];
  const kept = items.filter((item, i) => {
    const k = key(item);
    if (!k || last.get(k) === i) {
      return true;
    }
    notes.push(
      `operation ${i + 1} (document ${k.split('|')[1]}) is superseded by operation ${last.get(k)! + 1} of the same message`,
    );
    return false;
  });
  return { kept, notes };
}
