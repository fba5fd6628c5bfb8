/** Control numbers held one by one, at most: past these, a scattered one is no longer remembered. */
export const MAX_SCATTERED_CONTROLS = 1_000_000;

/**
 * The ST02s seen in one group, for DUPLICATE_ST02, in memory that does not grow with the sets when
 * they count up (0001, 0002, ...: what translators send): numeric controls are kept as runs, one
 * run list per width, so "0001" and "1" stay different controls. Others (letters, numbers out of
 * order) are kept one by one, up to MAX_SCATTERED_CONTROLS; beyond, a duplicate among them goes
 * unnoticed rather than memory growing with whatever a partner sends.
 */
export class ControlNumbers {
  /** By width: sorted, disjoint, non-adjacent [from, to] runs. */
  private runs = new Map<number, number[][]>();
  private scattered = new Set<string>();
  private held = 0;

  has(control: string): boolean {
    const n = numeric(control);
    if (n === undefined) {
      return this.scattered.has(control);
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
    // The first run that holds n, ends just below it, or lies above it.
    const at = firstEndingAtOrAfter(runs, n - 1);
    const run = runs[at];
    if (run && run[0] <= n && n <= run[1]) {
      return;
    }
    if (run && run[1] === n - 1) {
      run[1] = n;
      const after = runs[at + 1];
      if (after && after[0] === n + 1) {
        run[1] = after[1];
        runs.splice(at + 1, 1);
        this.held--;
      }
    } else if (run && run[0] === n + 1) {
      run[0] = n;
    } else if (this.held < MAX_SCATTERED_CONTROLS) {
      runs.splice(at, 0, [n, n]);
      this.held++;
    }
  }

  clear(): void {
    this.runs.clear();
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
