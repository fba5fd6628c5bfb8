import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  let now = 0;
  const breaker = () => new CircuitBreaker(3, () => now);
  beforeEach(() => (now = 1_000_000));

  it('stays closed through fewer retryable failures in a row than the threshold, and any answer resets them', () => {
    const b = breaker();
    expect(b.record('retryable')).toBeNull();
    expect(b.record('retryable')).toBeNull();
    expect(b.record('answered')).toBeNull();
    expect(b.record('retryable')).toBeNull();
    expect(b.admit()).toBe(0);
  });

  it('opens at the threshold: calls wait, then one probe goes; its success closes it', () => {
    const b = breaker();
    b.record('retryable');
    b.record('retryable');
    expect(b.record('retryable')).toBe('opened');
    expect(b.admit()).toBe(1000);
    now += 999;
    expect(b.admit()).toBe(1);
    now += 1;
    expect(b.admit()).toBe(0); // the probe
    expect(b.admit()).toBeGreaterThan(0); // everyone else still waits
    expect(b.record('success')).toBe('closed');
    expect(b.admit()).toBe(0);
  });

  it('doubles the pause while probes fail, up to a minute', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) {
      b.record('retryable');
    }
    const pauses: number[] = [];
    for (let i = 0; i < 10; i++) {
      now += b.admit();
      expect(b.admit()).toBe(0);
      b.record('retryable');
      pauses.push(b.admit());
    }
    expect(pauses).toEqual([2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000, 60_000]);
  });
});
