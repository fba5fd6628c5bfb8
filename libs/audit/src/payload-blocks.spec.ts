import { bodyOfLine, decodeBlock, encodeBlocks, payloadOfLine } from './payload-blocks';

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
    const { blocks, bodyBytes } = await encodeBlocks(5, payloads);

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
    expect(bodyBytes).toEqual([
      ...payloads
        .slice(0, 110)
        .map((p) => Buffer.byteLength(JSON.stringify((p as ReturnType<typeof upsert>).document))),
      Buffer.byteLength('"PO-9"'),
      0,
    ]);
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
