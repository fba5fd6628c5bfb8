import fc from 'fast-check';
import { BUDGET_BYTES_PER_VALUE, parsedWeightOf, valuesAtMost } from './payload-weight';

/** The JSON values in `value`, itself included: what parsing it makes. */
const valuesIn = (value: unknown): number =>
  value !== null && typeof value === 'object'
    ? 1 + Object.values(value).reduce((sum: number, member) => sum + valuesIn(member), 0)
    : 1;

describe('valuesAtMost', () => {
  it('never counts fewer values than a JSON text holds', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(valuesAtMost(JSON.stringify(value))).toBeGreaterThanOrEqual(valuesIn(value));
      }),
      { numRuns: 500 },
    );
  });

  it('counts what a payload of small values holds closely, where its bytes would say little', () => {
    const loads = JSON.stringify(Array.from({ length: 1_000 }, () => ({ name: 'Pallet', quantity: 1 })));
    expect(valuesIn(JSON.parse(loads))).toBe(3_001);
    expect(valuesAtMost(loads)).toBe(4_002); // an array, and per load an object, a member and a comma or two
    expect(valuesAtMost('7')).toBe(1);
    expect(valuesAtMost('"a, b, [c]"')).toBe(5); // what strings hold only raises the bound
  });
});

describe('parsedWeightOf', () => {
  it('weighs a text of small values by them, a text of long strings by its length', () => {
    const dense = JSON.stringify({ extra: Array.from({ length: 150_000 }, () => ({})) });
    expect(parsedWeightOf(dense)).toBeGreaterThanOrEqual(150_000 * BUDGET_BYTES_PER_VALUE);
    const prose = JSON.stringify({ description: 'x'.repeat(100_000) });
    expect(parsedWeightOf(prose)).toBe(prose.length);
  });
});
