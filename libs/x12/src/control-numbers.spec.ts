import { ControlNumbers, MAX_SCATTERED_CONTROLS } from './control-numbers';

describe('ControlNumbers: the ST02s seen in a group', () => {
  it('tells every control added from those not added, in any order, width apart', () => {
    const seen = new ControlNumbers();
    const added = ['0001', '0002', '0004', '0003', '0010', '0008', '0009', '1', 'A1', '0000', '0006'];
    for (const c of added) {
      expect(seen.has(c)).toBe(false);
      seen.add(c);
      expect(seen.has(c)).toBe(true);
    }
    seen.add('0002');
    for (const c of added) {
      expect(seen.has(c)).toBe(true);
    }
    for (const c of ['0005', '0007', '0011', '2', '01', 'A2', '00001']) {
      expect(seen.has(c)).toBe(false);
    }
    seen.clear();
    expect(added.some((c) => seen.has(c))).toBe(false);
  });

  it('agrees with a Set over random controls', () => {
    const seen = new ControlNumbers();
    const reference = new Set<string>();
    let x = 7;
    for (let i = 0; i < 5_000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const c = String(x % 600).padStart(4, '0');
      expect(seen.has(c)).toBe(reference.has(c));
      seen.add(c);
      reference.add(c);
    }
    for (let n = 0; n < 700; n++) {
      const c = String(n).padStart(4, '0');
      expect(seen.has(c)).toBe(reference.has(c));
    }
  });

  it('holds one run for controls that count up, whatever their number', () => {
    const seen = new ControlNumbers();
    for (let n = 1; n <= 200_000; n++) {
      seen.add(String(n).padStart(9, '0'));
    }
    expect((seen as unknown as { held: number }).held).toBe(1);
    expect(seen.has('000200000')).toBe(true);
    expect(seen.has('000200001')).toBe(false);
  });

  const pad = (n: number) => String(n).padStart(9, '0');

  it('keeps controls counting down, or out of order, as bits beside the runs, not among them', () => {
    // Inserted among sorted runs, 100,000 of these took 8.4 s, each insert moving every run after it.
    const seen = new ControlNumbers();
    for (let n = 200_000; n > 0; n -= 2) {
      seen.add(pad(n));
    }
    expect(seen.has(pad(2))).toBe(true);
    expect(seen.has(pad(200_000))).toBe(true);
    expect(seen.has(pad(3))).toBe(false);
    const inside = seen as unknown as { held: number; runs: Map<number, number[][]> };
    expect(inside.runs.get(9)).toEqual([[200_000, 200_000]]);
    // 2..199,998 as bits: 6,250 blocks of 32 numbers.
    expect(inside.held).toBe(1 + 6_250);
  });

  it(`holds at most ${MAX_SCATTERED_CONTROLS} runs and blocks, and forgets past them`, () => {
    const seen = new ControlNumbers();
    seen.add(pad(999_999_999));
    for (let k = 1; k < MAX_SCATTERED_CONTROLS; k++) {
      seen.add(pad(k * 1000)); // a block each
    }
    expect((seen as unknown as { held: number }).held).toBe(MAX_SCATTERED_CONTROLS);
    seen.add(pad(MAX_SCATTERED_CONTROLS * 1000));
    expect(seen.has(pad(MAX_SCATTERED_CONTROLS * 1000))).toBe(false);
    // A number of a block held is still taken.
    seen.add(pad(1001));
    expect(seen.has(pad(1001))).toBe(true);
    expect(seen.has(pad(1000))).toBe(true);
  });
});
