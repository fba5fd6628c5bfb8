export interface GroupCommitOptions<T> {
  /** Most items in one commit. */
  maxBatch: number;
  /** Most weight (e.g. payload bytes) in one commit; an item heavier than this goes alone. */
  maxWeight: number;
  weigh: (item: T) => number;
  /** Commits running at once; items arriving meanwhile wait and go together in the next one. */
  maxInFlight: number;
  /**
   * Whether a failed commit certainly wrote nothing (e.g. the database refused the statement), so
   * its items may be committed again one by one: one bad item then fails only its own caller. A
   * commit whose outcome is unknown (connection lost) fails all its callers instead.
   */
  wroteNothing?: (error: unknown) => boolean;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: callers submit one item each and are answered when the commit that carried it is
 * done; the items of concurrent callers share commits. Self-tuning: a lone caller is committed on
 * the next turn of the event loop (no added wait), and under load the items that arrive while
 * commits are running form the next batch. A commit answers each item with its result or an Error
 * (that caller alone fails).
 */
export class GroupCommit<T, R> {
  private readonly waiting: Waiting<T, R>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idle?: { promise: Promise<void>; resolve: () => void };

  constructor(
    private readonly commit: (items: T[]) => Promise<(R | Error)[]>,
    private readonly options: GroupCommitOptions<T>,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once every item submitted so far is committed (or failed). */
  async drain(): Promise<void> {
    if (this.waiting.length === 0 && this.inFlight === 0) {
      return;
    }
    if (!this.idle) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.idle = { promise, resolve };
    }
    await this.idle.promise;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight) {
      return;
    }
    this.scheduled = true;
    // setImmediate runs after this turn's I/O callbacks: the requests read in this turn go together.
    setImmediate(() => {
      this.scheduled = false;
      this.startBatches();
    });
  }

  private startBatches(): void {
    while (this.waiting.length > 0 && this.inFlight < this.options.maxInFlight) {
      const batch = this.takeBatch();
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        if (this.waiting.length > 0) {
          this.schedule();
        } else if (this.inFlight === 0 && this.idle) {
          this.idle.resolve();
          this.idle = undefined;
        }
      });
    }
  }

  private takeBatch(): Waiting<T, R>[] {
    const { maxBatch, maxWeight, weigh } = this.options;
    let weight = 0;
    let count = 0;
    while (count < this.waiting.length && count < maxBatch) {
      weight += weigh(this.waiting[count].item);
      if (count > 0 && weight > maxWeight) {
        break;
      }
      count++;
    }
    return this.waiting.splice(0, count);
  }

  private async run(batch: Waiting<T, R>[]): Promise<void> {
    try {
      settle(batch, await this.commit(batch.map((w) => w.item)));
    } catch (error) {
      if (batch.length === 1 || !this.options.wroteNothing?.(error)) {
        // The outcome may be unknown (a COMMIT whose answer was lost): retrying could write twice.
        for (const w of batch) {
          w.reject(error);
        }
        return;
      }
      for (const w of batch) {
        try {
          settle([w], await this.commit([w.item]));
        } catch (alone) {
          w.reject(alone);
        }
      }
    }
  }
}

function settle<T, R>(batch: Waiting<T, R>[], results: (R | Error)[]): void {
  batch.forEach((w, i) => (results[i] instanceof Error ? w.reject(results[i]) : w.resolve(results[i])));
}
