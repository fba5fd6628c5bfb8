import { isUnsettled, type JsonObject, type PlanEntry } from '@dockbridge/audit';
import type { CanonicalOperation } from '@dockbridge/mapping';
import type { BatchJobData } from '../queues';

export interface DeliveryPlan {
  /** Operations delivered one call each. */
  single: string[];
  batches: Omit<BatchJobData, 'platformJobId'>[];
}

/** What a batch body stays under when not told: the platform's request limit is not published; 32 MiB is half the sandbox's. */
export const BATCH_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The first chunks of a group are an eighth, a quarter and a half of the most a batch may hold: the
 * platform starts on a large message's first documents while the rest are claimed and sent (a full
 * first chunk of 12,400 40-load documents reached the platform 2.3-4.3 s after translation, an eighth
 * of it 0.8-1.1 s; bench/README.md).
 */
const RAMP_UP = [1 / 8, 1 / 4, 1 / 2];

/**
 * Splits a message's operations: document upserts (or deletes) for one location and one set of
 * reference options go through platform batch jobs when there are at least `threshold` of them,
 * in chunks of at most `batchSize` documents and `maxBytes` of body (the first ones smaller:
 * RAMP_UP); everything else is delivered one call at a time. Pure.
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

/**
 * planDelivery a page of operations at a time: it keeps ids and sizes, never the payloads, and only
 * of chunks not handed out yet: `takeReady()` answers the batches whose chunks are final while pages
 * are still coming (a large message's first platform job need not wait for its last page), `plan()`
 * the rest once every page is in.
 *
 * Chunks are laid out over every operation of a group, settled ones too, and hold them all: a batch
 * job is found by its first operation's id (batchJobId) and sends only those still open, so the
 * sweeper's re-plan of a message still delivering makes the same jobs, whatever has settled since
 * (the same queued or running job is found, not a new one for documents a live job holds).
 */
export class DeliveryPlanner {
  private readonly groups = new Map<string, PlanGroup>();
  private readonly single: string[] = [];
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly messageId: string,
    private readonly threshold: number,
    private readonly batchSize: number,
    private readonly maxBytes = BATCH_MAX_BYTES,
  ) {}

  /** The message's operations in seq order, settled ones included (they place the chunks). */
  addAll(operations: readonly PlanEntry[]): void {
    for (const op of operations) {
      const open = isUnsettled(op.status);
      if ((op.kind !== 'document.upsert' && op.kind !== 'document.delete') || !op.organisationId) {
        if (open) {
          this.single.push(op.id);
        }
        continue;
      }
      const options = op.kind === 'document.upsert' ? this.optionsKey(op.options) : '';
      const key = `${op.kind}|${op.organisationId}|${options}`;
      let group = this.groups.get(key);
      if (!group) {
        group = { organisationId: op.organisationId, kind: op.kind, seen: 0, chunks: 0, ids: [], bytes: [], open: [] };
        this.groups.set(key, group);
      }
      group.seen++;
      group.ids.push(op.id);
      group.bytes.push(op.bytes + 1);
      group.open.push(open);
    }
  }

  /** The batches whose chunks no later operation can change (their groups reached the threshold), handed out once. */
  takeReady(): DeliveryPlan {
    const batches: DeliveryPlan['batches'] = [];
    for (const group of this.groups.values()) {
      if (group.seen >= this.threshold) {
        this.cut(group, batches, false);
      }
    }
    return { single: [], batches };
  }

  /** optionsKey, once for each way the options are written (a message has one or two). */
  private optionsKey(options: JsonObject | null): string {
    const written = JSON.stringify(options ?? {});
    let key = this.keys.get(written);
    if (key === undefined) {
      key = optionsKey(options);
      if (this.keys.size < 100) {
        this.keys.set(written, key);
      }
    }
    return key;
  }

  /** Everything not handed out yet, once every operation was added. */
  plan(): DeliveryPlan {
    const single = [...this.single];
    const batches: DeliveryPlan['batches'] = [];
    for (const group of this.groups.values()) {
      if (group.seen < this.threshold) {
        // A loop, not a spread: a group under a partner's large threshold can be 100,000s (a spread of ~150,000 throws).
        group.ids.forEach((id, i) => group.open[i] && single.push(id));
      } else {
        this.cut(group, batches, true);
      }
    }
    return { single, batches };
  }

  /** Cuts the group's chunks from its first operation not handed out; without `all`, only those complete. */
  private cut(group: PlanGroup, batches: DeliveryPlan['batches'], all: boolean): void {
    let start = 0;
    while (start < group.ids.length) {
      const share = RAMP_UP[group.chunks] ?? 1;
      const maxDocuments = Math.max(1, Math.floor(this.batchSize * share));
      const maxBytes = this.maxBytes * share;
      let end = start + 1;
      let bytes = group.bytes[start];
      while (end < group.ids.length && end - start < maxDocuments && bytes + group.bytes[end] <= maxBytes) {
        bytes += group.bytes[end++];
      }
      // Complete: full, or the next operation did not fit; else a later page may still add to it.
      if (!all && end === group.ids.length && end - start < maxDocuments) {
        break;
      }
      if (group.open.slice(start, end).includes(true)) {
        batches.push({
          messageId: this.messageId,
          organisationId: group.organisationId,
          kind: group.kind,
          operationIds: group.ids.slice(start, end),
        });
      }
      group.chunks++;
      start = end;
    }
    group.ids.splice(0, start);
    group.bytes.splice(0, start);
    group.open.splice(0, start);
  }
}

/**
 * Reference options as a group's key, whatever the order of their keys: rows read back from
 * Postgres (jsonb orders keys) and a batch just mapped must fall in one group, or a translation
 * taken up again would cut other chunks than the run before it.
 */
function optionsKey(options: JsonObject | null): string {
  if (!options) {
    return '{}';
  }
  const sorted = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, sorted((value as JsonObject)[key])]),
        )
      : value;
  return JSON.stringify(sorted(options));
}

/** A planner's group: its operations not handed out yet, and how many it has seen and cut. */
interface PlanGroup {
  organisationId: string;
  kind: BatchJobData['kind'];
  seen: number;
  chunks: number;
  ids: string[];
  bytes: number[];
  open: boolean[];
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
