import fc from 'fast-check';
import { decodeUtf8InTurns } from './json-body';

describe('decodeUtf8InTurns: a large body decoded a slice at a time', () => {
  // Bytes of every kind UTF-8 decoding meets: ASCII, lead and continuation bytes, bytes never valid.
  const bytes = fc.array(
    fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.integer({ min: 0x80, max: 0xbf }),
      fc.integer({ min: 0xc0, max: 0xf7 }),
      fc.constantFrom(0xf8, 0xfe, 0xff, 0xed, 0xa0),
    ),
    { maxLength: 64 },
  );
  const text = fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => Buffer.from(s, 'utf8'));

  it('gives what toString gives, whatever the bytes and wherever a slice cuts a character', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(bytes.map(Buffer.from), text), fc.integer({ min: 1, max: 7 }), async (body, slice) => {
        expect(await decodeUtf8InTurns(body, slice)).toBe(body.toString('utf8'));
      }),
      { numRuns: 3_000 },
    );
  });

  it('decodes a body of many slices, a 4-byte character across each cut', async () => {
    const body = Buffer.from('é😀{"a":"x"}'.repeat(50_000), 'utf8');
    expect(await decodeUtf8InTurns(body, 1_001)).toBe(body.toString('utf8'));
  });
});
