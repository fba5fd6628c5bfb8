import { isUtf8 } from 'node:buffer';
import { UploadRefused, UploadTextCheck } from './inbound-upload';

const MiB = 1024 * 1024;
const encodingOf = (...chunks: Buffer[]) => {
  const check = new UploadTextCheck();
  chunks.forEach((chunk) => check.update(chunk));
  return check.finish();
};

describe('UploadTextCheck', () => {
  it('takes UTF-8 as it is, a BOM included, even split inside a character', () => {
    const bytes = Buffer.from('\ufeffISA*00*Müller~', 'utf8');
    expect(encodingOf(bytes)).toBe('utf-8');
    const at = bytes.indexOf(0xc3); // ü is C3 BC
    expect(encodingOf(bytes.subarray(0, at + 1), bytes.subarray(at + 1))).toBe('utf-8');
  });

  it('keeps bytes that are not UTF-8 as latin1, one character per byte', () => {
    expect(encodingOf(Buffer.from([0x49, 0x53, 0x41, 0x2a, 0xe9, 0x7e]))).toBe('latin1'); // ISA*é~ in latin1
    expect(encodingOf(Buffer.from('ISA*'), Buffer.from([0xc3]))).toBe('latin1'); // ends inside a character
  });

  it('refuses a NUL byte, naming its offset in the file', () => {
    expect(() => encodingOf(Buffer.from('ISA*'), Buffer.from('00*\u0000~'))).toThrow(
      new UploadRefused(
        'the file holds a NUL byte at offset 7: X12 is text, so binary content (or a hole left by a write past the end) is not accepted; nothing was recorded',
      ),
    );
  });

  // What a one-byte write at offset 64 MiB - 1 leaves. Replacing its NULs in one string
  // operation was a V8 fatal error ("invalid size error") that took the whole process down.
  it('refuses 64 MiB of NULs with a byte search per chunk, never a string the size of the file', () => {
    const check = new UploadTextCheck();
    for (let i = 0; i < 64; i++) {
      check.update(Buffer.alloc(MiB));
    }
    expect(() => check.finish()).toThrow(/NUL byte at offset 0/);
  });

  it('decides as a check of the whole file would, however the file is cut into chunks', () => {
    const texts = [
      Buffer.from('ISA*Müller*🚚*日本~', 'utf8'),
      Buffer.from([0x41, 0xe2, 0x82]), // ends inside a sequence
      Buffer.from([0x41, 0xc3, 0x41, 0x41]), // a lead byte without its continuation
      Buffer.from([0x80, 0x41]), // a continuation byte without a lead
      Buffer.from([0xf0, 0x9f, 0x9a, 0x9a, 0xf0, 0x9f]),
    ];
    for (const bytes of texts) {
      const whole = isUtf8(bytes) ? 'utf-8' : 'latin1';
      for (let cut = 0; cut <= bytes.length; cut++) {
        expect([bytes, cut, encodingOf(bytes.subarray(0, cut), bytes.subarray(cut))]).toEqual([bytes, cut, whole]);
      }
      const byteByByte = [...bytes].map((b) => Buffer.from([b]));
      expect([bytes, encodingOf(...byteByByte)]).toEqual([bytes, whole]);
    }
  });
});
