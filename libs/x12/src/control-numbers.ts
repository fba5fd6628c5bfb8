/**
 * Runs, blocks of numbers and other controls held, at most: past these, a scattered one is no longer
 * remembered. A million runs (2, 4, 6, ...) held 81 MB of a worker's 192 MiB heap; these ~7.
 */
export const MAX_SCATTERED_CONTROLS = 100_000;
/** Numbers below the last run are kept as the bits of 32-number blocks (a map entry each, ~40 bytes). */
const BLOCK_BITS = 32;

/**
 * The ST02s seen in one group, for DUPLICATE_ST02, in memory that does not grow with the sets when
 * they count up (0001, 0002, ...: what translators send): numeric controls that rise are kept as
 * runs, one run list per width, so "0001" and "1" stay different controls; a number below the last
 * run's end is a bit in a block of BLOCK_BITS numbers (inserting it among the runs moved them all:
 * 200,000 controls counting down took 8.4 s; one by one, blocks of rising numbers sent in falling
 * order held a number each). Others (letters) are kept one by one. At most MAX_SCATTERED_CONTROLS
 * runs, blocks and others are held; beyond, a duplicate among the controls no longer held goes
 * unnoticed rather than memory growing with whatever a partner sends.
 */
export class ControlNumbers {
  /** By width: ascending, disjoint [from, to] runs, each begun above the one before. */
  private runs = new Map<number, number[][]>();
  /** By width: numbers that came below the last run's end, as bits of blocks keyed by n / BLOCK_BITS. */
  private below = new Map<number, Map<number, number>>();
  private scattered = new Set<string>();
  private held = 0;

  has(control: string): boolean {
    const n = numeric(control);
    if (n === undefined) {
      return this.scattered.has(control);
    }
    const block = this.below.get(control.length)?.get(Math.floor(n / BLOCK_BITS));
    if (block !== undefined && ((block >>> (n % BLOCK_BITS)) & 1) === 1) {
      return true;
    }
    const runs = this.runs.get(control.length);
    if (!runs) {
      return false;
    }
    const at = firstEndingAtOrAfter(runs, n);
    return at < runs.length && runs[at][0] <= n;
  }

  add(control: string): void {
    const n = numeric(control);
    if (n === undefined) {
      if (this.held < MAX_SCATTERED_CONTROLS && !this.scattered.has(control)) {
        this.scattered.add(control);
        this.held++;
      }
      return;
    }
    let runs = this.runs.get(control.length);
    if (!runs) {
      runs = [];
      this.runs.set(control.length, runs);
    }
    const last = runs[runs.length - 1];
    if (last && last[1] + 1 === n) {
      last[1] = n; // the common case: the next number
      return;
    }
    if (!last || n > last[1]) {
      if (this.held < MAX_SCATTERED_CONTROLS) {
        runs.push([n, n]);
        this.held++;
      }
      return;
    }
    let below = this.below.get(control.length);
    if (!below) {
      below = new Map();
      this.below.set(control.length, below);
    }
    const key = Math.floor(n / BLOCK_BITS);
    const block = below.get(key);
    if (block === undefined) {
      if (this.held >= MAX_SCATTERED_CONTROLS) {
        return;
      }
      this.held++;
    }
    below.set(key, ((block ?? 0) | (1 << (n % BLOCK_BITS))) >>> 0);
  }

  clear(): void {
    this.runs.clear();
    this.below.clear();
    this.scattered.clear();
    this.held = 0;
  }
}

/** A control that is a plain number (as sent: its width is kept apart). */
function numeric(control: string): number | undefined {
  return /^\d{1,15}$/.test(control) ? Number(control) : undefined;
}

/** Index of the first run whose end is >= n (runs.length when none). */
function firstEndingAtOrAfter(runs: number[][], n: number): number {
  let lo = 0;
  let hi = runs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (runs[mid][1] < n) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
