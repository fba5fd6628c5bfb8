/** Keys remembered at most: a flood of made-up user names or addresses cannot grow memory without bound. */
const MAX_TRACKED = 10_000;
/** A failed login is answered after this much per failure so far, at most MAX_DELAY_MS: guessing slows at once. */
const DELAY_PER_FAILURE_MS = 250;
const MAX_DELAY_MS = 3_000;

interface Failures {
  count: number;
  /** Locked until then (ms since epoch); 0 while under the limit. */
  lockedUntil: number;
  lastAt: number;
}

/**
 * Password (and key) guessing over SFTP, throttled per user name and per source address: each
 * failure delays its answer a little more, and `maxFailures` failures lock the key out for
 * `lockoutMs` (even the right password is refused meanwhile). A success clears its user name.
 * Kept in process: each replica counts its own connections.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly options: { maxFailures: number; lockoutMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** Until when a login by this user from this address is refused, or null. */
  lockedUntil(username: string, ip: string): Date | null {
    const until = Math.max(this.lockOf(`user:${username}`), this.lockOf(`ip:${ip}`));
    return until > 0 ? new Date(until) : null;
  }

  /** Records a failed login; returns how long to wait before answering it, and whether it locked a key. */
  fail(username: string, ip: string): { delayMs: number; locked: string[] } {
    const locked: string[] = [];
    let most = 0;
    for (const key of [`user:${username}`, `ip:${ip}`]) {
      const entry = this.entry(key);
      entry.count++;
      entry.lastAt = this.now();
      if (entry.count >= this.options.maxFailures && entry.lockedUntil === 0) {
        entry.lockedUntil = this.now() + this.options.lockoutMs;
        locked.push(key);
      }
      most = Math.max(most, entry.count);
    }
    return { delayMs: Math.min(MAX_DELAY_MS, most * DELAY_PER_FAILURE_MS), locked };
  }

  succeed(username: string): void {
    this.failures.delete(`user:${username}`);
  }

  private lockOf(key: string): number {
    const entry = this.failures.get(key);
    if (!entry) {
      return 0;
    }
    if (entry.lockedUntil > 0 && entry.lockedUntil <= this.now()) {
      this.failures.delete(key);
      return 0;
    }
    return entry.lockedUntil;
  }

  private entry(key: string): Failures {
    let entry = this.failures.get(key);
    if (entry && entry.lockedUntil === 0 && this.now() - entry.lastAt > this.options.lockoutMs) {
      entry = undefined;
    }
    if (!entry) {
      if (this.failures.size >= MAX_TRACKED) {
        this.failures.delete(this.failures.keys().next().value!);
      }
      entry = { count: 0, lockedUntil: 0, lastAt: this.now() };
    }
    // Re-inserted so the map's order is least recently failed first (what MAX_TRACKED evicts).
    this.failures.delete(key);
    this.failures.set(key, entry);
    return entry;
  }
}
