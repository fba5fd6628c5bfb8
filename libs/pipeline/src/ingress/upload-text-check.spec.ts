import { constants } from 'node:buffer';
import { decodePayload, UploadRefused } from './receive-upload';

const { MAX_STRING_LENGTH } = constants;

const MiB = 1024 * 1024;

describe('decodePayload', () => {
  it('keeps UTF-8 text as it is, a BOM included', () => {
    const text = '\ufeffISA*00*Müller~';
    expect(decodePayload(Buffer.from(text, 'utf8'))).toEqual({ text, encoding: 'utf-8' });
  });

  it('keeps bytes that are not UTF-8 as latin1, one character per byte', () => {
    const bytes = Buffer.from([0x49, 0x53, 0x41, 0x2a, 0xe9, 0x7e]); // ISA*é~ in latin1
    expect(decodePayload(bytes)).toEqual({ text: 'ISA*é~', encoding: 'latin1' });
  });

  it('refuses a NUL byte, naming its offset', () => {
    expect(() => decodePayload(Buffer.from('ISA*00*\u0000~'))).toThrow(
      new UploadRefused(
        'the file holds a NUL byte at offset 7: X12 is text, so binary content (or a hole left by a write past the end) is not accepted; nothing was recorded',
      ),
    );
  });

  // What a one-byte write at offset 64 MiB - 1 leaves. Replacing its NULs in one string
  // operation was a V8 fatal error ("invalid size error") that took the whole process down.
  it('refuses 64 MiB of NULs with one byte search, never a string the size of the file', () => {
    const sparse = Buffer.alloc(64 * MiB);
    sparse[sparse.length - 1] = 0x7e;
    expect(() => decodePayload(sparse)).toThrow(/NUL byte at offset 0/);
  });

  it('refuses a file too large to be one JavaScript string before decoding it', () => {
    // Allocated without zero-filling and never read: only its length matters.
    const huge = Buffer.allocUnsafeSlow(MAX_STRING_LENGTH + 1);
    expect(() => decodePayload(huge)).toThrow(
      new UploadRefused(
        `the file has ${MAX_STRING_LENGTH + 1} bytes, more than the ${MAX_STRING_LENGTH} one message's text can hold; nothing was recorded`,
      ),
    );
  });
});
