import { LoginThrottle } from './login-throttle';

describe('LoginThrottle', () => {
  let now = 0;
  const throttle = () => new LoginThrottle({ maxFailures: 3, lockoutMs: 60_000 }, () => now);
  beforeEach(() => (now = 1_000_000));

  it('slows each failure down a little more, then locks the user name out for the lockout', () => {
    const t = throttle();
    expect(t.fail('kettle', '10.0.0.1')).toEqual({ delayMs: 250, locked: [] });
    expect(t.fail('kettle', '10.0.0.2').delayMs).toBe(500);
    expect(t.lockedUntil('kettle', '10.0.0.9')).toBeNull();
    expect(t.fail('kettle', '10.0.0.3').locked).toEqual(['user:kettle']);
    expect(t.lockedUntil('kettle', '10.0.0.9')).toEqual(new Date(now + 60_000));
    now += 60_001;
    expect(t.lockedUntil('kettle', '10.0.0.9')).toBeNull();
  });

  it('locks a source address out whatever user names it guesses', () => {
    const t = throttle();
    for (const user of ['a1', 'b2', 'c3']) {
      t.fail(user, '192.0.2.7');
    }
    expect(t.lockedUntil('someone-else', '192.0.2.7')).not.toBeNull();
    expect(t.lockedUntil('someone-else', '192.0.2.8')).toBeNull();
  });

  it('forgets a user name failures on success, and old failures after a quiet lockout period', () => {
    const t = throttle();
    t.fail('kettle', '10.0.0.1');
    t.fail('kettle', '10.0.0.2');
    t.succeed('kettle');
    expect(t.fail('kettle', '10.0.0.3').locked).toEqual([]);
    now += 60_001;
    expect(t.fail('kettle', '10.0.0.4').delayMs).toBe(250);
  });

  it('remembers a bounded number of keys', () => {
    const t = throttle();
    for (let i = 0; i < 30_000; i++) {
      t.fail(`user-${i}`, `ip-${i}`);
    }
    expect((t as unknown as { failures: Map<string, unknown> }).failures.size).toBeLessThanOrEqual(10_000);
  });
});
