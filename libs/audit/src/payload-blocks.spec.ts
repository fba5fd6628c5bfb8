import {
  BLOCK_MAX_CHARS,
  BlockWriter,
  bodyOfLine,
  decodeBlock,
  encodeBlocks,
  jsonOfLine,
  payloadOfLine,
} from './payload-blocks';
import { parsedWeightOf } from './payload-weight';

const upsert = (id: string) => ({
  kind: 'document.upsert',
  organisationId: 'org-1',
  document: { id, name: 'tab\there, line\nthere, quote " and é', loads: [{ quantity: 1 }] },
  options: { references: 'lenient' },
});
const remove = (id: string) => ({ kind: 'document.delete', organisationId: 'org-1', documentId: id });
const booking = { kind: 'booking.status', targetId: 'B-1', status: 'arrived' };

describe('payload blocks', () => {
  it('give back every payload, and each body field as the JSON a batch body sends', async () => {
    const payloads = [...Array.from({ length: 110 }, (_, i) => upsert(`PO-${i}`)), remove('PO-9'), booking];
    const { blocks, measures } = await encodeBlocks(5, payloads);

    expect(blocks.map((b) => [b.firstSeq, b.lines])).toEqual([
      [5, 100],
      [105, 12],
    ]);
    const lines = (await Promise.all(blocks.map((b) => decodeBlock(b.encoding, b.body)))).flat();
    expect(lines.map(payloadOfLine)).toEqual(payloads);
    expect(lines.map((line) => bodyOfLine(line, 'document'))).toEqual([
      ...payloads.slice(0, 110).map((p) => JSON.stringify((p as ReturnType<typeof upsert>).document)),
      'null',
      'null',
    ]);
    expect(bodyOfLine(lines[110], 'documentId')).toBe('"PO-9"');
    expect(measures.map((m) => m.bodyBytes)).toEqual([
      ...payloads
        .slice(0, 110)
        .map((p) => Buffer.byteLength(JSON.stringify((p as ReturnType<typeof upsert>).document))),
      Buffer.byteLength('"PO-9"'),
      0,
    ]);
    // What each weighs parsed is its line's, as a worker's payload budget counts it.
    expect(measures.map((m) => m.weight)).toEqual(lines.map(parsedWeightOf));
  });

  it('give back each payload as JSON text without parsing its body, and the rest of it parsed', async () => {
    const payloads = [upsert('PO-1'), remove('PO-9'), booking, { document: { id: 'bare' } }];
    const { blocks } = await encodeBlocks(1, payloads);
    const lines = (await Promise.all(blocks.map((b) => decodeBlock(b.encoding, b.body)))).flat();
    const texts = lines.map(jsonOfLine);
    expect(texts.map((t) => JSON.parse(t.json))).toEqual(payloads);
    expect(texts.map((t) => t.rest)).toEqual([
      { kind: 'document.upsert', organisationId: 'org-1', options: { references: 'lenient' } },
      { kind: 'document.delete', organisationId: 'org-1' },
      booking,
      {},
    ]);
  });

  it('end a block at a MiB of text, so that reading one large document never inflates a hundred', async () => {
    const large = (n: number) => ({ ...upsert(`BIG-${n}`), document: { id: `BIG-${n}`, note: 'x'.repeat(400_000) } });
    const payloads = [...Array.from({ length: 7 }, (_, n) => large(n)), upsert('small'), large(7), large(8)];
    const { blocks } = await encodeBlocks(1, payloads);

    const decoded = await Promise.all(blocks.map((b) => decodeBlock(b.encoding, b.body)));
    expect(decoded.every((lines) => lines.join('\n').length <= BLOCK_MAX_CHARS)).toBe(true);
    expect(blocks.map((b) => [b.firstSeq, b.lines])).toEqual([
      [1, 2],
      [3, 2],
      [5, 2],
      [7, 3], // the small one fits beside two large ones
      [10, 1],
    ]);
    expect(decoded.flat().map(payloadOfLine)).toEqual(payloads);
    // A document longer than a block is a block of its own.
    const huge = { ...upsert('HUGE'), document: { id: 'HUGE', note: 'y'.repeat(BLOCK_MAX_CHARS) } };
    expect((await encodeBlocks(1, [upsert('a'), huge, upsert('b')])).blocks.map((b) => b.lines)).toEqual([1, 1, 1]);
  });

  it('are compressed as each fills, so that only the open one can still be cut short', async () => {
    const writer = new BlockWriter(1);
    for (let i = 0; i < 130; i++) {
      writer.add(upsert(`PO-${i}`));
    }
    expect(writer.truncate(99)).toBe(false); // seq 100 is in the first block, compressed
    expect(writer.size).toBe(130);
    expect(writer.truncate(110)).toBe(true);
    expect(writer.size).toBe(110);
    writer.add(remove('PO-X'));

    const blocks = await writer.finish();
    expect(blocks.map((b) => [b.firstSeq, b.lines])).toEqual([
      [1, 100],
      [101, 11],
    ]);
    const lines = (await Promise.all(blocks.map((b) => decodeBlock(b.encoding, b.body)))).flat();
    expect(lines.map(payloadOfLine)).toEqual([
      ...Array.from({ length: 110 }, (_, i) => upsert(`PO-${i}`)),
      remove('PO-X'),
    ]);
  });

  it('leave no rejection unhandled when a block fails to compress and its batch is given up', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const writer = new BlockWriter(1, async () => {
        throw new Error('zlib: out of memory');
      });
      for (let i = 0; i < 100; i++) {
        writer.add(upsert(`PO-${i}`)); // the hundredth closes a block: its compression fails at once
      }
      await new Promise((resolve) => setTimeout(resolve, 20)); // no finish(): the batch was given up
      expect(unhandled).toEqual([]);
      await expect(writer.finish()).rejects.toThrow('zlib: out of memory'); // a batch that is written says so
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('read a line the migration wrote: the payload as Postgres prints jsonb', () => {
    const line = '{"kind": "document.upsert", "document": {"id": "PO-1", "name": "a\\tb"}, "organisationId": "org-1"}';
    expect(payloadOfLine(line)).toEqual({
      kind: 'document.upsert',
      organisationId: 'org-1',
      document: { id: 'PO-1', name: 'a\tb' },
    });
    expect(JSON.parse(bodyOfLine(line, 'document'))).toEqual({ id: 'PO-1', name: 'a\tb' });
    expect(bodyOfLine(line, 'documentId')).toBe('null');
  });
});
