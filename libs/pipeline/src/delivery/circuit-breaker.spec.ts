import { CircuitBreaker, CircuitBreakers } from './circuit-breaker';

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

  it('lets every call through while closed, not just one', () => {
    const b = breaker();
    b.record('retryable');
    expect([b.admit(), b.admit(), b.admit()]).toEqual([0, 0, 0]);
  });

  it('keeps the reason of the last retryable failure, forgotten on any other outcome', () => {
    const b = breaker();
    b.record('retryable', 'Bad gateway');
    expect(b.lastFailure).toBe('Bad gateway');
    b.record('answered', 'Invalid document');
    expect(b.lastFailure).toBeUndefined();
    b.record('retryable', 'timeout');
    b.record('success', 'ignored');
    expect(b.lastFailure).toBeUndefined();
  });

  it('does not lengthen the pause for a failure that was no probe (a call already under way when it opened)', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) {
      b.record('retryable');
    }
    b.record('retryable');
    expect(b.admit()).toBe(1000);
  });
});

describe('CircuitBreakers', () => {
  it('keeps one breaker per key, made with the threshold and the clock given', () => {
    let now = 5000;
    const breakers = new CircuitBreakers<object>(2, () => now);
    const north = {};
    const south = {};
    expect(breakers.for(north)).toBe(breakers.for(north));
    expect(breakers.for(south)).not.toBe(breakers.for(north));
    breakers.for(north).record('retryable');
    expect(breakers.for(north).record('retryable')).toBe('opened');
    expect(breakers.for(north).admit()).toBe(1000);
    now += 400;
    expect(breakers.for(north).admit()).toBe(600);
    expect(breakers.for(south).admit()).toBe(0);
  });
});
