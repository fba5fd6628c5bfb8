import { createHash } from 'node:crypto';
import { assertStorablePayload, payloadSha256, storableText } from './storable-text';

describe('storableText: text Postgres can hold', () => {
  it('turns NUL and lone surrogates into U+FFFD and keeps everything else', () => {
    expect(storableText('a\u0000b\u0000')).toBe('a\uFFFDb\uFFFD');
    expect(storableText('cut \ud83d here')).toBe('cut \uFFFD here');
    expect(storableText('pair \ud83d\ude9a kept, é too')).toBe('pair \ud83d\ude9a kept, é too');
  });

  it('refuses a payload with NUL rather than change it', () => {
    expect(() => assertStorablePayload('ISA*00\u0000~')).toThrow(/NUL character/);
    expect(() => assertStorablePayload('ISA*00~\ud83d')).not.toThrow();
  });

  it('hashes a payload off the event loop as the message row records it: its storable text, as UTF-8', async () => {
    for (const payload of ['', '{"a":1}', 'é😀\r\n', 'cut \ud83d here', 'x'.repeat(3_000_000)]) {
      expect(await payloadSha256(payload)).toBe(createHash('sha256').update(storableText(payload)).digest('hex'));
    }
    expect(await payloadSha256('cut \ud83d here')).toBe(await payloadSha256('cut \uFFFD here'));
  });
});
