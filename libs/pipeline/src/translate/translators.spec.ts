import type { Message } from '@dockbridge/audit';
import { JSON_CUT_CHARS } from '../json-in-turns';
import { MAPPED_LIMITS, NoteList, TranslationContext, translateCanonical, translateWebhook } from './translators';

/** A webhook message and a context whose current mapping is `expression` (version 3). */
const translate = (expression: string, body: unknown = { orders: [{ id: 'PO-1' }] }) =>
  translateWebhook(
    { partnerId: 'acme-wms', rawPayload: JSON.stringify(body), metadata: { mappingVersion: 3 } } as unknown as Message,
    {
      partner: null,
      mapping: async () => ({ version: 3, expression }),
      nextControlNumber: async () => 1,
      now: new Date(),
    } satisfies TranslationContext,
  );

describe('translateWebhook: partner mappings that do not end', () => {
  it('rejects runaway recursion with the reason, instead of exhausting the worker', async () => {
    const result = await translate('( $f := function($x) { $f($x) + 1 }; $f(1) )');
    expect(result.rejection).toMatch(/^mapping v3 failed: Stack overflow/);
  });

  it('rejects a mapping that runs past its time with the reason', async () => {
    const started = Date.now();
    const result = await translate('$sum([1..9000000].($ * 2))');
    expect(result.rejection).toMatch(/^mapping v3 failed: Evaluation timeout after 2000 milliseconds/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('rejects a mapping that copies more than a message may hold, naming it, without storing it', async () => {
    const copy = (field: string) =>
      `items.{ "kind": "document.upsert", "organisationId": "3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f", ` +
      `"document": { "id": id, "direction": "Inbound", "occupant": { "coreName": "ACME", "coreId": "DC01" }, ` +
      `"attributes": { "note": $$.${field} } } }`;
    const items = Array.from({ length: 50 }, (_, i) => ({ id: `PO-${i}` }));
    // 50 copies of a 400,000-character note: 20 MB of text from a 400 KB body.
    const long = await translate(copy('note'), { note: 'x'.repeat(400_000), items });
    expect(long.rejection).toBe(
      `mapping v3 produced more than ${MAPPED_LIMITS.maxChars} characters of JSON (what it copies counts each time)`,
    );
    expect(long.operations).toEqual([]);
    // 50 copies of an object of 40,000 values: 2 million values.
    const wide = await translate(copy('wide'), { wide: Array.from({ length: 40_000 }, () => 1), items });
    expect(wide.rejection).toBe(
      `mapping v3 produced more than ${MAPPED_LIMITS.maxValues} JSON values (a message may hold no more)`,
    );
    // An object as wide as a body may not hold, shared at many places: refused at once (the operation
    // check's key handling took 249 s over ten copies of 139,000 keys).
    const keys = Object.fromEntries(Array.from({ length: 139_000 }, (_, i) => [`k${i}`, 1]));
    const many = await translate(copy('keys'), { keys, items: items.slice(0, 10) });
    expect(many.rejection).toBe(
      "mapping v3 produced an object of 139000 members, more than 1000 (a message's hold no more)",
    );
    // A long array of small objects shared at many places is measured once: quick, counted at each place.
    const rows = Array.from({ length: 100_000 }, (_, i) => ({ n: i }));
    const tall = await translate(copy('rows'), { rows, items: items.slice(0, 8) });
    expect(tall.rejection).toBe(
      `mapping v3 produced more than ${MAPPED_LIMITS.maxValues} JSON values (a message may hold no more)`,
    );
    // Below both, the same copies map.
    const small = await translate(copy('note'), { note: 'x'.repeat(1_000), items });
    expect(small.rejection).toBeUndefined();
    expect(small.operations).toHaveLength(50);
  });

  it("holds a mapping's result to a message's nesting, a shared value checked at each depth it sits at", async () => {
    const nested = (levels: number): unknown => (levels === 0 ? 1 : { a: nested(levels - 1) });
    const place = (first: string) =>
      `[${first} { "kind": "document.upsert", "organisationId": "3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f", ` +
      `"document": { "id": "PO-1", "direction": "Inbound", "x": $$.deep } }]`;
    const refusal = "mapping v3 produced JSON nested deeper than 64 levels (a message's is no deeper)";
    // document.x sits at level 5 of the message (body, operations, operation, document, x): 60 levels fit there.
    expect((await translate(place(''), { deep: nested(60) })).rejection).not.toBe(refusal);
    expect((await translate(place(''), { deep: nested(61) })).rejection).toBe(refusal);
    // Met first as an operation of its own (level 3), where 61 levels fit, then at level 5: refused there.
    expect((await translate(place('$$.deep,'), { deep: nested(61) })).rejection).toBe(refusal);
  });

  it('still maps what a normal mapping produces', async () => {
    const result = await translate(
      `orders.{ "kind": "document.delete", "organisationId": "3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f", "documentId": id }`,
    );
    expect(result.rejection).toBeUndefined();
    expect(result.operations.map((o) => o.operation)).toEqual([
      { kind: 'document.delete', organisationId: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f', documentId: 'PO-1' },
    ]);
  });
});

describe('translateCanonical: a large payload', () => {
  const operations = Array.from({ length: 3000 }, (_, i) => ({
    kind: 'document.delete',
    organisationId: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
    documentId: `PO-${i}`,
  }));
  const text = JSON.stringify({ operations });
  const message = (rawPayload: string) => ({ channel: 'api', rawPayload }) as unknown as Message;
  const context = {} as TranslationContext;

  it('is read in turns of the event loop, to the same operations', async () => {
    expect(text.length).toBeGreaterThan(JSON_CUT_CHARS);
    const result = await translateCanonical(message(text), context);
    expect(result.operations.map((o) => o.operation)).toEqual(operations);
  });

  it('that is not JSON is rejected with where, in the whole text', async () => {
    const broken = text.replace('"PO-2999"', '"PO-2999" x');
    const result = await translateCanonical(message(broken), context);
    // Where the piece that holds the break starts, at or before the break itself.
    const at = Number(/\(in the piece of JSON at position (\d+)\)$/.exec(result.rejection ?? '')?.[1]);
    expect(result.rejection).toMatch(/^payload is not valid JSON: /);
    expect(at).toBeLessThanOrEqual(broken.indexOf(' x'));
    expect(at).toBeGreaterThan(broken.indexOf(' x') - JSON_CUT_CHARS);
  });
});

describe('NoteList', () => {
  it('keeps the first 50 notes of lists of any length and counts the rest', () => {
    const notes = new NoteList();
    // A file rewriting one document 200,000 times gives a note each (superseded writes).
    notes.add(
      ['first'],
      Array.from({ length: 200_000 }, (_, i) => `superseded ${i}`),
    );
    const other = new NoteList();
    other.add(Array.from({ length: 60 }, (_, i) => `other ${i}`));
    notes.addAll(other);
    expect(notes.list).toHaveLength(51);
    expect(notes.list[0]).toBe('first');
    expect(notes.list.at(-1)).toBe(`and ${200_001 + 60 - 50} more notes`);
  });
});
