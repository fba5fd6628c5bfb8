import { type NewOperation, type OperationRepository, type PlanEntry, StreamedBatch } from '@dockbridge/audit';
import { type CanonicalOperation, orderKeyOf, targetOf } from '@dockbridge/mapping';
import type { OperationSink, RefusedUnit } from './translators';

/**
 * A batch of operations stored while a file is translated ends at STREAM_BATCH_WEIGHT (an operation
 * weighs 1 + its loads: ~0.5 MiB of rows) or at STREAM_BATCH operations, whichever comes first. The
 * batch being written and the one being mapped are both held: 500 documents of 40 loads took a
 * worker translating 100 MiB files ~15 MiB further (229–234 against 216 MiB) for no faster
 * translation. Small documents need the larger count: a write spans a few of the reader's turns
 * (~10 ms), and 200 ASNs of 4 loads are mapped in less, so translation waited for every write.
 */
export const STREAM_BATCH = 1000;
export const STREAM_BATCH_WEIGHT = 8000;

/** Out-of-scope operations named one by one; the rest are counted. */
const MAX_SCOPE_PROBLEMS = 20;

/** What an operation weighs in a batch: 1, and 1 a load. */
const weightOf = (operation: CanonicalOperation): number =>
  1 + (operation.kind === 'document.upsert' ? (operation.document.loads?.length ?? 0) : 0);

const refusedRow = (unit: RefusedUnit): NewOperation => ({
  kind: unit.kind,
  organisationId: unit.organisationId,
  targetId: unit.targetId,
  payload: { kind: unit.kind, refused: unit.description },
  failed: { lastError: unit.reason },
});

/**
 * A streamed X12 translation's operations and refused sets, stored in numbered batches as the sets
 * are mapped (seq 1, 2, ... in file order), then the refused interchanges after them. Holds one
 * batch and the seq range of each interchange, never the file's operations (a refused set is
 * stored in its place: 100 MiB of sets the mapping refused, held to be stored after the others,
 * ran a 192 MiB worker out of heap). A batch is written while the next is mapped (one write
 * in flight at most): the reader and Postgres work at once instead of in turn. It holds its
 * operations encoded (StreamedBatch), not as the mapper's objects.
 */
export class StoredOperations implements OperationSink {
  private nextSeq = 1;
  private buffer: StreamedBatch;
  /** What each operation of the buffer weighs (weightOf). */
  private weights: number[] = [];
  private bufferWeight = 0;
  private current?: { key: string; fromSeq: number };
  private readonly ranges = new Map<string, { fromSeq: number; toSeq: number }>();
  /** Operations on organisations the partner may not act on: every seq, the first few whole. */
  private outOfScopeSeqs: number[] = [];
  private outOfScope: { seq: number; operation: CanonicalOperation }[] = [];
  /** The batch being written; its failure is thrown by the next call that waits for it. */
  private writing: Promise<void> = Promise.resolve();
  /** Operations up to this seq were stored by a translation before this one, the last one writing this target (resumeAfter). */
  private storedThrough = 0;
  private lastTarget: string | null = null;
  private lastRefused = false;

  constructor(
    private readonly operations: OperationRepository,
    private readonly messageId: string,
    private readonly run: string,
    private readonly allowed: ReadonlySet<string>,
    private readonly batchSize = STREAM_BATCH,
    private readonly batchWeight = STREAM_BATCH_WEIGHT,
    /**
     * Delivery as the file is read: each batch's operations, once stored (the file was verified
     * first, so nothing stored is forgotten later). Called in seq order, one batch at a time.
     */
    private readonly stored?: (entries: PlanEntry[]) => Promise<void>,
  ) {
    this.buffer = new StreamedBatch(messageId, 1);
  }

  /**
   * Operations up to `seq` were stored by a translation taken up again: they are counted, not stored
   * twice. The one at `seq` must write `target` again, and be a refused set again if it was one: else
   * the file no longer reads as it did (its partner's settings changed) and going on would store some
   * twice and skip others, or keep a set's first reading against its 997.
   */
  resumeAfter(seq: number, target: string | null, refused = false): void {
    this.storedThrough = seq;
    this.lastTarget = target;
    this.lastRefused = refused;
    this.buffer = new StreamedBatch(this.messageId, seq + 1);
  }

  /** The seq of the last operation or refused set (refused interchanges come after). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  async operation(interchangeKey: string, operation: CanonicalOperation): Promise<void> {
    this.enter(interchangeKey);
    const seq = this.nextSeq;
    if (!this.allowed.has(String(operation.organisationId).toLowerCase())) {
      this.outOfScopeSeqs.push(seq);
      if (this.outOfScope.length < MAX_SCOPE_PROBLEMS) {
        this.outOfScope.push({ seq, operation });
      }
    }
    await this.store(
      {
        kind: operation.kind,
        organisationId: operation.organisationId,
        targetId: targetOf(operation),
        orderKey: orderKeyOf(operation),
        payload: operation,
      },
      weightOf(operation),
    );
  }

  /** A set refused on its own: stored failed, in its place among the operations. */
  async refusedSet(interchangeKey: string, unit: RefusedUnit): Promise<void> {
    this.enter(interchangeKey);
    await this.store(refusedRow(unit), 1);
  }

  /** Numbers the row and adds it to the batch, unless a translation before this one stored it. */
  private async store(row: NewOperation, weight: number): Promise<void> {
    const seq = this.nextSeq++;
    if (seq <= this.storedThrough) {
      const target = row.targetId ?? null;
      const refused = row.failed !== undefined;
      if (seq === this.storedThrough && (target !== this.lastTarget || refused !== this.lastRefused)) {
        const reading = (t: string | null, r: boolean) => `${r ? 'refuses' : 'writes'} ${t}`;
        throw new Error(
          `operation ${seq} of message ${this.messageId} ${reading(target, refused)} now, ${reading(this.lastTarget, this.lastRefused)} when it was stored: the file no longer reads as it did`,
        );
      }
      return;
    }
    this.buffer.add(row);
    this.weights.push(weight);
    this.bufferWeight += weight;
    if (this.buffer.size >= this.batchSize || this.bufferWeight >= this.batchWeight) {
      await this.handOver();
    }
  }

  async discardInterchange(key: string): Promise<void> {
    if (this.current?.key !== key) {
      return; // it gave nothing
    }
    if (this.stored) {
      // Its operations may be at the platform: the verifying read said nothing would be refused.
      throw new Error(`interchange ${key} was refused at its end after it was verified: the file changed`);
    }
    const { fromSeq } = this.current;
    this.current = undefined;
    if (fromSeq >= this.buffer.firstSeq && this.buffer.truncate(fromSeq - this.buffer.firstSeq)) {
      this.weights.length = this.buffer.size;
      this.bufferWeight = this.weights.reduce((sum, weight) => sum + weight, 0);
    } else {
      // Some of it is stored, or compressed in the batch being filled: stored, then removed.
      await this.handOver();
      await this.written();
      await this.operations.removeSeqRange(this.messageId, fromSeq);
      this.buffer = new StreamedBatch(this.messageId, fromSeq);
    }
    this.nextSeq = fromSeq;
    this.ranges.delete(key);
    this.outOfScopeSeqs = this.outOfScopeSeqs.filter((seq) => seq < fromSeq);
    this.outOfScope = this.outOfScope.filter((o) => o.seq < fromSeq);
  }

  /** Stores what is still held of the operations, and waits until everything is stored. */
  async flush(): Promise<void> {
    await this.handOver();
    await this.written();
  }

  /** Starts writing the batch held once the previous one is written, and goes on with an empty one. */
  private async handOver(): Promise<void> {
    this.closeInterchange();
    const batch = this.buffer;
    this.buffer = new StreamedBatch(this.messageId, this.nextSeq);
    this.weights = [];
    this.bufferWeight = 0;
    await this.written();
    if (batch.size > 0) {
      const stored = this.stored;
      const written = this.operations.appendStreamed(this.run, batch);
      this.writing = stored ? written.then(() => stored(batch.planEntries())) : written;
      this.writing.catch(() => undefined); // handled: the next wait for it throws the failure
    }
  }

  private async written(): Promise<void> {
    const writing = this.writing;
    this.writing = Promise.resolve();
    await writing;
  }

  /** Removes the operations of these interchanges (duplicates of earlier messages). */
  async removeInterchanges(keys: ReadonlySet<string>): Promise<void> {
    await this.written();
    for (const key of keys) {
      const range = this.ranges.get(key);
      if (range) {
        await this.operations.removeSeqRange(this.messageId, range.fromSeq, range.toSeq);
      }
    }
  }

  /** Removes everything stored: the message is not delivered at all. */
  async removeAll(): Promise<void> {
    await this.written();
    await this.operations.removeSeqRange(this.messageId, 1);
  }

  /** Stores the refused interchanges after the operations and refused sets. */
  async storeRefused(interchanges: readonly RefusedUnit[]): Promise<void> {
    await this.flush();
    const rows = interchanges.map(refusedRow);
    for (let i = 0; i < rows.length; i += this.batchSize) {
      const batch = StreamedBatch.of(this.messageId, this.nextSeq, rows.slice(i, i + this.batchSize));
      await this.operations.appendStreamed(this.run, batch);
      // Planned too: they place a group's last chunks, as a plan from the stored rows has them.
      await this.stored?.(batch.planEntries());
      this.nextSeq += batch.size;
    }
  }

  /** Operations on organisations the partner may not act on, as organisationScopeProblems names them. */
  scopeProblems(): string[] {
    const problems = this.outOfScope.map(
      ({ seq, operation }) =>
        `operations[${seq - 1}] (${operation.kind}) acts on organisation ${operation.organisationId}, which this partner may not act on`,
    );
    const more = this.outOfScopeSeqs.length - problems.length;
    return more > 0
      ? [...problems, `and ${more} more operations on organisations this partner may not act on`]
      : problems;
  }

  private enter(key: string): void {
    if (this.current?.key === key) {
      return;
    }
    this.closeInterchange();
    this.current = { key, fromSeq: this.nextSeq };
  }

  private closeInterchange(): void {
    if (this.current) {
      const known = this.ranges.get(this.current.key);
      this.ranges.set(this.current.key, { fromSeq: known?.fromSeq ?? this.current.fromSeq, toSeq: this.nextSeq });
    }
  }
}
