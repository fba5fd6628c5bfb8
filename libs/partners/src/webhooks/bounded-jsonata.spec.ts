import jsonata from 'jsonata';
import { boundedJsonata } from './bounded-jsonata';

describe('boundedJsonata', () => {
  it('matches a catastrophic pattern in linear time instead of stalling the process', async () => {
    const started = Date.now();
    const result = await boundedJsonata('$match(text, /^(a+)+$/)', 2000).evaluate({ text: `${'a'.repeat(26)}!` });
    expect(result).toBeUndefined();
    // A backtracking engine takes seconds here (2^26 paths); RE2 takes milliseconds.
    expect(Date.now() - started).toBeLessThan(1000);
    const long = await boundedJsonata('$contains(text, /^(a+)+$/)', 2000).evaluate({ text: `${'a'.repeat(100_000)}!` });
    expect(long).toBe(false);
  });

  it("gives the same results as JavaScript's RegExp: groups, flags, every match, replace, split, tests", async () => {
    const cases: [string, unknown][] = [
      ['$match(s, /(\\d+)-(x)?/i)', { s: 'ab 12-X 3-' }],
      ['$match(s, /[a-z]+/)', { s: 'one two  three' }],
      ['$replace(s, /o+/, "0")', { s: 'foo boo' }],
      ['$replace(s, /(\\w+)@(\\w+)/, "$2 at $1")', { s: 'jo@acme, al@kettle' }],
      ['$split(s, /[,;] */)', { s: 'a, b;c' }],
      ['$contains(s, /^B/m)', { s: 'a\nb' }],
      ['$contains(s, /^B/im)', { s: 'a\nb' }],
      ['s ~> /^P/ ? "po" : "other"', { s: 'PO-1' }],
      ['$match(s, /é+/)', { s: 'café éé' }],
    ];
    for (const [expression, input] of cases) {
      const linear = await boundedJsonata(expression, 2000).evaluate(input);
      const native = await jsonata(expression).evaluate(input);
      expect(JSON.stringify(linear)).toBe(JSON.stringify(native));
    }
  });

  it('refuses a pattern RE2 cannot run in linear time (a backreference), saying why', async () => {
    await expect(boundedJsonata('$match(s, /(a)\\1/)', 2000).evaluate({ s: 'aa' })).rejects.toThrow(
      /invalid escape sequence/,
    );
  });
});
