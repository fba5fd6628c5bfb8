import { MAX_PENDING_WRITES, MAX_WRITE_AHEAD_BYTES, UploadBuffer, UploadTooLarge, WriteRefused } from './upload-buffer';

const MiB = 1024 * 1024;
const text = (upload: UploadBuffer) => upload.content().toString('latin1');
/** The memory an upload holds (its buffer and the writes kept ahead). */
const held = (upload: UploadBuffer) => {
  const inner = upload as unknown as { buffer: Buffer; ahead: { data: Buffer }[] };
  return inner.buffer.length + inner.ahead.reduce((sum, piece) => sum + piece.data.length, 0);
};

describe('UploadBuffer', () => {
  it('takes writes in order, and out of order within the window, into one file', () => {
    const upload = new UploadBuffer(MiB);
    upload.write(4, Buffer.from('EFGH'));
    upload.write(8, Buffer.from('IJ'));
    expect(upload.size).toBe(10);
    upload.write(0, Buffer.from('ABCD'));
    expect(text(upload)).toBe('ABCDEFGHIJ');
  });

  it('lets a later write win over an earlier one it overlaps, whatever the order they land in', () => {
    const upload = new UploadBuffer(MiB);
    upload.write(4, Buffer.from('old!'));
    upload.write(2, Buffer.from('NEWNEW')); // ahead too, replaces bytes 4..7 of the first
    upload.write(0, Buffer.from('ab'));
    expect(text(upload)).toBe('abNEWNEW');
    upload.write(6, Buffer.from('xyz'));
    expect(text(upload)).toBe('abNEWNxyz');
  });

  it('resumes after the bytes an upload already had', () => {
    const upload = new UploadBuffer(MiB, Buffer.from('ISA*'));
    upload.write(4, Buffer.from('00*'));
    expect(text(upload)).toBe('ISA*00*');
  });

  it('refuses a write whose end is more than the window past what was written in order', () => {
    const upload = new UploadBuffer(256 * MiB);
    expect(() => upload.write(64 * MiB - 1, Buffer.from('~'))).toThrow(
      new WriteRefused(
        `a write at offset ${64 * MiB - 1} would leave a hole after the 0 bytes written in order so far (writes may run at most ${MAX_WRITE_AHEAD_BYTES} bytes ahead): write the file in order`,
      ),
    );
    expect(upload.size).toBe(0);
  });

  // One byte per window used to allocate (zero-filled) up to the size limit: 16 writes, 256 MiB.
  it('never allocates a hole: writes ahead cannot step the window forward', () => {
    const upload = new UploadBuffer(256 * MiB);
    upload.write(MAX_WRITE_AHEAD_BYTES - 1, Buffer.from('~'));
    expect(() => upload.write(2 * MAX_WRITE_AHEAD_BYTES - 1, Buffer.from('~'))).toThrow(WriteRefused);
    expect(held(upload)).toBeLessThanOrEqual(64 * 1024 + 1);
  });

  it('refuses at the end a file with a range never written', () => {
    const upload = new UploadBuffer(MiB);
    upload.write(0, Buffer.from('ISA'));
    upload.write(100, Buffer.from('~'));
    expect(() => upload.content()).toThrow(new WriteRefused('the file has a hole: bytes 3 to 99 were never written'));
  });

  it('refuses more writes ahead than clients keep in flight', () => {
    const upload = new UploadBuffer(MiB);
    for (let i = 1; i <= MAX_PENDING_WRITES; i++) {
      upload.write(2 * i, Buffer.from('x'));
    }
    expect(() => upload.write(2 * MAX_PENDING_WRITES + 2, Buffer.from('x'))).toThrow(/more than 1024 writes ahead/);
  });

  it('says how large an upload over the limit got', () => {
    const upload = new UploadBuffer(1024);
    upload.write(0, Buffer.alloc(1000, 0x41));
    expect(() => upload.write(1000, Buffer.alloc(100, 0x41))).toThrow(new UploadTooLarge(1100));
  });
});
