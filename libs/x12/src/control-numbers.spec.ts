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

  it('keeps controls counting down, or out of order, apart from the runs instead of inserting among them', () => {
    // Inserted among sorted runs, 200,000 of these took 8.4 s, each insert moving every run after it.
    const seen = new ControlNumbers();
    for (let n = 2 * MAX_SCATTERED_CONTROLS; n > 0; n -= 2) {
      seen.add(String(n).padStart(9, '0'));
    }
    expect(seen.has('000000002')).toBe(true);
    expect(seen.has(String(2 * MAX_SCATTERED_CONTROLS).padStart(9, '0'))).toBe(true);
    expect(seen.has('000000003')).toBe(false);
    const inside = seen as unknown as { held: number; runs: Map<number, number[][]>; below: Map<number, Set<number>> };
    expect(inside.held).toBe(MAX_SCATTERED_CONTROLS);
    expect(inside.runs.get(9)).toEqual([[2 * MAX_SCATTERED_CONTROLS, 2 * MAX_SCATTERED_CONTROLS]]);
    expect(inside.below.get(9)!.size).toBe(MAX_SCATTERED_CONTROLS - 1);
    // Past the limit, nothing more is held (a duplicate among those goes unnoticed).
    seen.add('000000001');
    expect(seen.has('000000001')).toBe(false);
  });
});
