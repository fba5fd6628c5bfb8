import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseX12, readX12 } from './reader';
import type { X12Event } from './x12.types';

/**
 * Whatever the bytes, the reader terminates and reports instead of throwing; and how the input
 * is cut into chunks never changes what it reads.
 */
const names = [
  'star-tilde-lf-850.edi',
  'pipe-single-line-4-sets.x12',
  'tilde-element-lf-terminator.x12',
  'caret-repetition-crlf-856.edi',
  'lf-terminator-856.edi',
  'bom-leading-whitespace.edi',
  'two-interchanges.edi',
  'wrapped-80-columns.x12',
  'no-trailing-terminator.edi',
  'broken-missing-ge-iea.edi',
];
const fixtures = names.map((n) => readFileSync(join(__dirname, 'fixtures', n), 'utf8'));
// Multi-byte characters too, so chunk cuts land inside them.
fixtures.push(fixtures[0].replace('STEEL KETTLE', 'STÉEL KETTLE € 𝄞'));

/** Events as plain JSON (structures are complete once the stream is over). */
async function read(chunks: Uint8Array[]): Promise<string> {
  const events: X12Event[] = [];
  for await (const e of readX12(chunks)) {
    events.push(e);
  }
  return JSON.stringify(events);
}

function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const p of at) {
    chunks.push(bytes.subarray(from, p));
    from = p;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

const checkProblems = (text: string) => {
  const doc = parseX12(text);
  for (const p of doc.problems) {
    expect(p.line === undefined || p.line >= 1).toBe(true);
    expect(p.column === undefined || p.column >= 1).toBe(true);
  }
  return doc;
};

describe('reader properties (fast-check)', () => {
  it('random bytes: never throws, terminates, problems are located', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 3000 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (bytes, points) => {
          checkProblems(Buffer.from(bytes).toString('latin1'));
          await read(cut(bytes, points));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('random X12-ish text (delimiters, tags, ISA prefixes): never throws', async () => {
    const piece = fc.constantFrom(
      'ISA*',
      'ISA',
      '*',
      '~',
      '\n',
      '\r\n',
      '>',
      '^',
      '|',
      'GS*',
      'ST*850*1',
      'SE*',
      'GE*1*1',
      'IEA*1*',
      '00',
      ' ',
      '0000000001',
      'N1*ST',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        async (pieces, points) => {
          const text = pieces.join('');
          checkProblems(text);
          await read(cut(Buffer.from(text), points));
        },
      ),
      { numRuns: 300 },
    );
  });

  /**
   * Where each interchange of a file ends (just after its IEA's terminator). A cut there removes
   * whole interchanges and leaves a complete file: nothing can tell.
   */
  const interchangeEnds = (full: string) => {
    let from = 0;
    return parseX12(full).interchanges.flatMap((i) => {
      // A kept trailer is a copy of its segment (its interchange outlives the text it was read from).
      const iea = i.trailer && i.trailer.text.slice(i.trailer.start, i.trailer.end);
      if (!iea) {
        return [];
      }
      from = full.indexOf(iea, from) + iea.length;
      return [full.slice(0, from + 1).trimEnd()];
    });
  };

  it('truncations of valid files: never throw, and a cut that removes data inside an interchange is reported', () => {
    fc.assert(
      fc.property(fc.nat(fixtures.length - 1), fc.nat(), (f, at) => {
        const full = fixtures[f];
        const text = full.slice(0, at % (full.length + 1));
        const doc = checkProblems(text);
        const wholeInterchanges = interchangeEnds(full).includes(text.trimEnd());
        if (!wholeInterchanges && text.trimEnd().length < full.trimEnd().length && text.trim().length > 0) {
          expect(doc.problems.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a cut right after a complete interchange leaves a file read without problems (the case the property above excludes)', () => {
    const full = fixtures[names.indexOf('two-interchanges.edi')];
    const [firstEnd] = interchangeEnds(full);
    expect(firstEnd).toMatch(/IEA\*1\*\d{9}~$/);
    expect(parseX12(firstEnd).problems).toEqual([]);
    expect(parseX12(full.slice(0, firstEnd.length - 1)).problems.length).toBeGreaterThan(0);
  });

  it('mutations of valid files (insert, delete, replace characters): never throw', () => {
    const mutation = fc.record({
      at: fc.nat(),
      remove: fc.nat(4),
      insert: fc.string({
        unit: fc.constantFrom('*', '~', '\n', '\r', 'I', 'S', 'A', '>', '|', '^', 'x', '9', '\ufeff', 'é'),
        maxLength: 4,
      }),
    });
    fc.assert(
      fc.property(fc.nat(fixtures.length - 1), fc.array(mutation, { minLength: 1, maxLength: 6 }), (f, mutations) => {
        let text = fixtures[f];
        for (const m of mutations) {
          const at = m.at % (text.length + 1);
          text = text.slice(0, at) + m.insert + text.slice(at + m.remove);
        }
        checkProblems(text);
      }),
      { numRuns: 500 },
    );
  });

  it('any chunking of a file yields exactly what reading it whole yields', async () => {
    const wholes = await Promise.all(fixtures.map((t) => read([Buffer.from(t)])));
    await fc.assert(
      fc.asyncProperty(fc.nat(fixtures.length - 1), fc.array(fc.nat(), { maxLength: 30 }), async (f, points) => {
        const chunked = await read(cut(Buffer.from(fixtures[f]), points));
        expect(chunked).toBe(wholes[f]);
      }),
      { numRuns: 300 },
    );
  });

  it('streaming and parseX12 read the same sets', async () => {
    for (const text of fixtures) {
      const events: X12Event[] = [];
      for await (const e of readX12([text])) {
        events.push(e);
      }
      const streamed = events.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet] : []));
      const whole = parseX12(text).interchanges.flatMap((i) => i.groups.flatMap((g) => g.transactionSets));
      expect(streamed).toEqual(whole);
    }
  });
});
