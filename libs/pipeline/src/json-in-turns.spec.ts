import fc from 'fast-check';
import { inspectJson, JSON_BODY_LIMITS, JSON_CUT_CHARS, parseJsonInTurns } from './json-in-turns';

/** Parses as the gateway does a large body, with pieces this small so that every text is cut. */
const cut = (text: string, options: Parameters<typeof parseJsonInTurns>[1] = {}) =>
  parseJsonInTurns(text, { cutChars: 8, turn: async () => undefined, ...options });

/** What JSON.parse says of a text: its value, or that it refused it. */
function reference(text: string): { value: unknown } | 'refused' {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return 'refused';
  }
}

async function ours(text: string): Promise<{ value: unknown } | 'refused'> {
  try {
    return { value: await cut(text) };
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    return 'refused';
  }
}

describe('parseJsonInTurns', () => {
  it('gives what JSON.parse gives for any JSON value, however it is spaced', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.boolean(), async (value, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 2 : undefined);
        expect(await ours(text)).toEqual(reference(text));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what JSON.parse refuses, and takes what it takes, of JSON with a character changed', async () => {
    const edited = fc
      .tuple(fc.jsonValue(), fc.nat(), fc.constantFrom(',', ']', '}', '[', '{', ':', '"', '\\', ' ', 'x', '1', ''))
      .map(([value, at, character]) => {
        const text = JSON.stringify({ operations: [value, value] });
        const i = at % text.length;
        return text.slice(0, i) + character + text.slice(i + 1);
      });
    await fc.assert(
      fc.asyncProperty(edited, async (text) => {
        expect(await ours(text)).toEqual(reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['a trailing comma', '{"operations": [1, 2,]}'],
    ['an empty member between two runs', '{"operations": [1234567890, , 1234567890]}'],
    ['a missing comma', '{"operations": [{"a": 1} {"b": 2}]}'],
    ['a missing colon', '{"operations" [1]}'],
    ['a key that is no string', '{operations: [1]}'],
    ['an unterminated array', '{"operations": [1, 2'],
    ['an unterminated string', '{"operations": ["abc'],
    ['more after the value', '{"operations": [1]} {}'],
    ['a closing bracket too many', '{"operations": [1]}]'],
  ])('refuses %s', async (_, text) => {
    expect(reference(text)).toBe('refused');
    await expect(cut(text)).rejects.toBeInstanceOf(SyntaxError);
  });

  it('makes __proto__ an own property, as JSON.parse does, unless the key check refuses it', async () => {
    const text = '{"__proto__": {"polluted": true}, "operations": [1, 2, 3]}';
    const value = (await cut(text)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'operations']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const refuse = (key: string) => {
      if (key === '__proto__') {
        throw new SyntaxError('__proto__ is not allowed');
      }
    };
    await expect(cut(text, { key: refuse })).rejects.toThrow('__proto__ is not allowed');
  });

  it('parses each piece with the parse it is given', async () => {
    const pieces: string[] = [];
    const parse = (piece: string) => {
      pieces.push(piece);
      return JSON.parse(piece) as unknown;
    };
    await expect(cut('{"operations": [{"id": "a"}, {"id": "b"}], "n": 1}', { parse, cutChars: 20 })).resolves.toEqual({
      operations: [{ id: 'a' }, { id: 'b' }],
      n: 1,
    });
    // Runs of small members together, a large member cut in turn (its key parsed apart).
    expect(pieces).toEqual(['[{"id": "a"}]', '[{"id": "b"}]', '"operations"', '{"n": 1}']);
  });

  it('gives the event loop a turn while it parses a large message, and parses a small one at once', async () => {
    const operations = Array.from({ length: 25_000 }, (_, i) => ({
      kind: 'document.upsert',
      organisationId: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01',
      document: { id: `PO-${i}`, loads: Array.from({ length: 20 }, (_, k) => ({ name: `ITEM ${k}`, quantity: k })) },
    }));
    const text = JSON.stringify({ operations });
    let turns = 0;
    const turn = () => {
      turns++;
      return new Promise<void>((resolve) => setImmediate(resolve));
    };
    // Compared as text: a deep comparison of 25,000 documents takes seconds.
    expect(JSON.stringify(await parseJsonInTurns(text, { turn }))).toBe(text);
    // ~1 ms a thousand documents: a 25,000-document message is several slices of work.
    expect(turns).toBeGreaterThan(1);
    turns = 0;
    await expect(parseJsonInTurns(JSON.stringify({ operations: operations.slice(0, 10) }), { turn })).resolves.toEqual({
      operations: operations.slice(0, 10),
    });
    expect(turns).toBe(0);
  });

  it('cuts a large array however deep in objects it is, giving turns as it goes', async () => {
    const list = Array.from({ length: 20_000 }, (_, i) => ({ id: `PO-${i}`, quantity: i }));
    const text = JSON.stringify({ a: { b: { c: { d: { e: list } } } } });
    let turns = 0;
    const turn = () => {
      turns++;
      return new Promise<void>((resolve) => setImmediate(resolve));
    };
    expect(JSON.stringify(await parseJsonInTurns(text, { turn, cutChars: 4096 }))).toBe(text);
    expect(turns).toBeGreaterThan(1);
  });

  it('parses deep nesting whole below the depth it cuts to', async () => {
    const text = `{"a": ${'['.repeat(100_000)}1${']'.repeat(100_000)}}`;
    // Walked down, not compared: the value is too deep for a recursive comparison.
    let value = ((await cut(text)) as { a: unknown }).a;
    let depth = 0;
    for (; Array.isArray(value) && value.length === 1; depth++) {
      value = value[0] as unknown;
    }
    expect([depth, value]).toEqual([100_000, 1]);
  });
});

describe('inspectJson', () => {
  /** Values as JSON.parse makes them: every primitive, array and object, the root included. */
  const valuesOf = (value: unknown): number =>
    1 +
    (value !== null && typeof value === 'object'
      ? Object.values(value).reduce((n: number, v) => n + valuesOf(v), 0)
      : 0);
  const depthOf = (value: unknown): number =>
    value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;
  const shape = async (text: string, limits: Partial<typeof JSON_BODY_LIMITS>) =>
    (await inspectJson(text, { ...JSON_BODY_LIMITS, ...limits }, async () => undefined)).problem;

  it('counts values and nesting as JSON.parse makes them, strings holding brackets, commas and quotes included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.boolean(), async (value, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 2 : undefined);
        const values = valuesOf(JSON.parse(text));
        const depth = depthOf(JSON.parse(text));
        expect(await shape(text, { maxValues: values, maxDepth: Math.max(depth, 1) })).toBeNull();
        expect((await inspectJson(text)).values).toBe(values);
        expect((await shape(text, { maxValues: values - 1 }))?.tooLarge).toBe(true);
        if (depth > 1) {
          expect((await shape(text, { maxDepth: depth - 1 }))?.reason).toMatch(/nests deeper than/);
        }
      }),
      { numRuns: 300 },
    );
    const tricky = JSON.stringify(['a"\\', { 'b\\"[': [1, 2] }, '],{,"']);
    expect(await shape(tricky, { maxValues: 7, maxDepth: 3 })).toBeNull();
    expect((await shape(tricky, { maxValues: 6 }))?.tooLarge).toBe(true);
    expect((await shape(tricky, { maxDepth: 2 }))?.reason).toMatch(/nests deeper than 2 levels/);
  });

  it('names what went past: nesting, an object too wide, too many values, a large list nested deep', async () => {
    const nested = (levels: number) => '{"a":'.repeat(levels) + '0' + '}'.repeat(levels);
    expect(await shape(nested(64), {})).toBeNull();
    expect(await shape(nested(65), {})).toEqual({
      reason: 'the JSON body nests deeper than 64 levels (at position 320)',
      tooLarge: false,
    });
    const wide = (n: number) =>
      JSON.stringify({ attributes: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])) });
    expect(await shape(wide(1000), {})).toBeNull();
    expect((await shape(wide(1001), {}))?.reason).toMatch(
      /^an object in the JSON body has more than 1000 members \(at position \d+\)$/,
    );
    // Arrays may be long: a document's loads, a message's operations.
    expect(await shape(JSON.stringify({ loads: new Array(5000).fill(1) }), {})).toBeNull();
    expect(await shape(JSON.stringify(new Array(100).fill({})), { maxValues: 100 })).toEqual({
      reason: 'the JSON body holds more than 100 values: send them in several messages',
      tooLarge: true,
    });
    const deepList = (levels: number) =>
      '{"a":'.repeat(levels) + JSON.stringify(new Array(JSON_CUT_CHARS).fill(0)) + '}'.repeat(levels);
    expect(await shape(deepList(7), {})).toBeNull();
    expect((await shape(deepList(8), {}))?.reason).toMatch(
      /^an array or object of over 262144 characters is nested deeper than 8 levels \(at position 40\)/,
    );
  });

  it('leaves text that is not JSON to the parser', async () => {
    expect(await shape('{"a": "never ends', {})).toBeNull();
    expect(await shape(']]]}}', {})).toBeNull();
    expect(await shape('', {})).toBeNull();
  });
});
