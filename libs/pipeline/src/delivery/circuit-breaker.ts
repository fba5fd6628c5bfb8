/** The first pause after the breaker opens; it doubles while probes fail, up to MAX_COOL_DOWN_MS. */
const MIN_COOL_DOWN_MS = 1_000;
const MAX_COOL_DOWN_MS = 60_000;

export type CallOutcomeClass = 'success' | 'retryable' | 'answered';

/**
 * One platform account's circuit breaker. After `threshold` retryable failures in a row (5xx, 429,
 * timeouts) its deliveries pause — deferred without spending a try — and after a cool-down one
 * probe goes out: success closes it, another failure doubles the pause (up to a minute). Any answer
 * that is not a retryable failure (a 400, a 401) shows the platform is up and resets the count. So a
 * platform that is down for an afternoon costs each operation a few tries, not its whole horizon,
 * and delivery resumes by itself. Kept per process: each worker learns the outage on its own.
 */
export class CircuitBreaker {
  private failures = 0;
  private openUntil = 0;
  private coolDownMs = MIN_COOL_DOWN_MS;
  private probing = false;
  /** The reason of the last retryable failure, shown on the operations it pauses. */
  lastFailure: string | undefined;

  constructor(
    private readonly threshold: number,
    private readonly now: () => number = Date.now,
  ) {}

  get open(): boolean {
    return this.failures >= this.threshold;
  }

  /** 0 when a call may go now (the probe, when open); otherwise how long to wait before asking again. */
  admit(): number {
    if (!this.open) {
      return 0;
    }
    const now = this.now();
    if (now < this.openUntil) {
      return this.openUntil - now;
    }
    if (this.probing) {
      return this.coolDownMs;
    }
    this.probing = true;
    return 0;
  }

  /** Records how a call ended; returns the transition, if any, for the log. */
  record(outcome: CallOutcomeClass, reason?: string): 'opened' | 'closed' | null {
    const wasOpen = this.open;
    this.lastFailure = outcome === 'retryable' ? reason : undefined;
    if (outcome !== 'retryable') {
      this.failures = 0;
      this.probing = false;
      this.coolDownMs = MIN_COOL_DOWN_MS;
      return wasOpen ? 'closed' : null;
    }
    this.failures++;
    if (!this.open) {
      return null;
    }
    if (wasOpen && this.probing) {
      this.coolDownMs = Math.min(MAX_COOL_DOWN_MS, this.coolDownMs * 2);
    }
    this.probing = false;
    this.openUntil = this.now() + this.coolDownMs;
    return wasOpen ? null : 'opened';
  }
}

/** Breakers by platform client (one per account). */
export class CircuitBreakers<K extends object> {
  private readonly breakers = new WeakMap<K, CircuitBreaker>();
  constructor(
    private readonly threshold: number,
    private readonly now: () => number = Date.now,
  ) {}

  for(key: K): CircuitBreaker {
    let breaker = this.breakers.get(key);
    if (!breaker) {
      this.breakers.set(key, (breaker = new CircuitBreaker(this.threshold, this.now)));
    }
    return breaker;
  }
}
