import { createHash } from 'node:crypto';
import { FILE_CHUNK_BYTES } from '@dockbridge/partners';
import {
  ChunkStore,
  InboundUpload,
  MAX_HELD_BYTES,
  MAX_PENDING_WRITES,
  MAX_WRITE_AHEAD_BYTES,
  UploadMemory,
  UploadRefused,
  UploadTooLarge,
  WriteRefused,
} from './inbound-upload';

const MiB = 1024 * 1024;
/** What the bench's ssh2 client writes at once, and the most data one of its WRITE packets carries (34,000 - 2,048). */
const SSH2_WRITE_BYTES = 32 * 1024;
const SSH2_MAX_WRITE_LEN = 34_000 - 2048;

/** Chunks kept in memory, as the partner_file_chunk table keeps them; `slow` delays each append. */
class MemoryChunks implements ChunkStore {
  readonly chunks = new Map<string, Map<number, Buffer>>();
  appends = 0;
  constructor(private readonly slow = 0) {}
  async appendChunk(fileId: string, seq: number, data: Buffer): Promise<void> {
    this.appends++;
    await new Promise((resolve) => setTimeout(resolve, this.slow));
    const file = this.chunks.get(fileId) ?? new Map<number, Buffer>();
    file.set(seq, Buffer.from(data));
    this.chunks.set(fileId, file);
  }
  async readUploadRange(fileId: string, offset: number, length: number): Promise<Buffer> {
    return Promise.resolve(this.bytes(fileId).subarray(offset, offset + length));
  }
  async discardChunks(fileId: string): Promise<void> {
    this.chunks.delete(fileId);
    await Promise.resolve();
  }
  bytes(fileId: string): Buffer {
    const file = this.chunks.get(fileId) ?? new Map<number, Buffer>();
    return Buffer.concat([...file.keys()].sort((a, b) => a - b).map((seq) => file.get(seq)!));
  }
}

const upload = (store = new MemoryChunks(), max = MiB) => ({ store, up: new InboundUpload(store, 'p1', 'a.edi', max) });
/** Finishes an upload and answers its stored bytes as latin1 text. */
const finished = async (store: MemoryChunks, up: InboundUpload) => {
  const done = await up.finish();
  return { done, text: store.bytes(done.id).toString('latin1') };
};
/** The memory an upload holds (its tail and the writes kept ahead). */
const held = (up: InboundUpload) => {
  const inner = up as unknown as { tail: Buffer; ahead: { data: Buffer }[] };
  return inner.tail.length + inner.ahead.reduce((sum, piece) => sum + piece.data.length, 0);
};

describe('InboundUpload', () => {
  it('takes writes in order, and out of order within the window, into one stored file', async () => {
    const { store, up } = upload();
    await up.write(4, Buffer.from('EFGH'));
    await up.write(8, Buffer.from('IJ'));
    expect(up.size).toBe(10);
    await up.write(0, Buffer.from('ABCD'));
    const { done, text } = await finished(store, up);
    expect(text).toBe('ABCDEFGHIJ');
    expect(done).toMatchObject({ partnerId: 'p1', name: 'a.edi', size: 10, encoding: 'utf-8' });
    expect(done.sha256).toBe(createHash('sha256').update('ABCDEFGHIJ').digest('hex'));
  });

  it('lets a later write win over an earlier one it overlaps, whatever the order they land in', async () => {
    const { store, up } = upload();
    await up.write(4, Buffer.from('old!'));
    await up.write(2, Buffer.from('NEWNEW')); // ahead too, replaces bytes 4..7 of the first
    await up.write(0, Buffer.from('ab'));
    await up.write(6, Buffer.from('xyz')); // still in the tail: may change
    expect((await finished(store, up)).text).toBe('abNEWNxyz');
  });

  it('stores full chunks as they fill, with the hash and size of the whole file', async () => {
    const { store, up } = upload(new MemoryChunks(), 8 * MiB);
    const bytes = Buffer.alloc(3 * FILE_CHUNK_BYTES + 123, 0x41);
    for (let offset = 0; offset < bytes.length; offset += 32 * 1024) {
      await up.write(offset, bytes.subarray(offset, offset + 32 * 1024));
    }
    await new Promise((resolve) => setTimeout(resolve, 20)); // the store's queue runs
    expect(store.appends).toBe(3); // the last, partial one only at the end
    expect(held(up)).toBeLessThanOrEqual(2 * FILE_CHUNK_BYTES);
    const { done, text } = await finished(store, up);
    expect(store.appends).toBe(4);
    expect(text).toBe(bytes.toString('latin1'));
    expect(done.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('waits for the store when it falls behind, instead of holding the file', async () => {
    const { up } = upload(new MemoryChunks(5), 64 * MiB);
    const chunk = Buffer.alloc(256 * 1024, 0x41);
    let most = 0;
    for (let offset = 0; offset < 32 * MiB; offset += chunk.length) {
      await up.write(offset, chunk);
      const inner = up as unknown as { storingChunks: number };
      most = Math.max(most, inner.storingChunks);
    }
    expect(most).toBeLessThanOrEqual(3); // MAX_STORING_CHUNKS and the one just handed over
  });

  it('never refuses an ssh2 client that keeps 64 writes in flight, however slow the store (the bench at load 6)', async () => {
    // ssh2 sends a 32 KiB write as two requests, the second only once the first is answered (its packets hold
    // 31,952 bytes of data), and counts writes, not a window: while the first part of one write waited for the
    // store and writes ahead of it were answered at once, the client kept writing ahead of the hole it left.
    const store = new MemoryChunks(20);
    const up = new InboundUpload(store, 'p1', 'big.edi', 64 * MiB);
    const bytes = Buffer.alloc(48 * MiB, 0x41);
    const inFlight = new Set<Promise<void>>();
    let most = 0;
    for (let offset = 0; offset < bytes.length; offset += SSH2_WRITE_BYTES) {
      const end = Math.min(bytes.length, offset + SSH2_WRITE_BYTES);
      const split = Math.min(end, offset + SSH2_MAX_WRITE_LEN);
      const write: Promise<void> = up
        .write(offset, bytes.subarray(offset, split))
        .then(() => (split < end ? up.write(split, bytes.subarray(split, end)) : undefined))
        .then(() => void inFlight.delete(write));
      inFlight.add(write);
      if (inFlight.size >= 64) {
        await Promise.race(inFlight);
      }
      most = Math.max(most, held(up));
    }
    await Promise.all(inFlight);
    const { done } = await finished(store, up);
    expect(done.size).toBe(bytes.length);
    expect(most).toBeLessThanOrEqual(2 * FILE_CHUNK_BYTES + 64 * SSH2_WRITE_BYTES); // the tail and one client's writes
  });

  it('refuses a client that sends on without waiting for answers once the upload holds its most', async () => {
    let stored = 0;
    let answer = () => undefined as void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const stuck: ChunkStore = {
      appendChunk: () => answered, // the database does not answer until the end
      readUploadRange: () => Promise.resolve(Buffer.alloc(0)),
      discardChunks: () => Promise.resolve(),
    };
    const memory = new UploadMemory();
    const up = new InboundUpload(stuck, 'p1', 'flood.edi', 256 * MiB, undefined, undefined, memory);
    const chunk = Buffer.alloc(SSH2_WRITE_BYTES, 0x41);
    let refusal: unknown;
    for (let offset = 0; offset < 64 * MiB && !refusal; offset += chunk.length) {
      // Each write is answered late (the store is behind); the flood does not wait for the answers.
      up.write(offset, chunk).catch((error: unknown) => (refusal ??= error));
      await Promise.resolve();
      stored = offset + chunk.length;
    }
    expect(refusal).toBeInstanceOf(WriteRefused);
    expect((refusal as Error).message).toMatch(
      new RegExp(`would have this upload hold more than ${MAX_HELD_BYTES} bytes not yet stored`),
    );
    expect(stored).toBeLessThanOrEqual(MAX_HELD_BYTES + chunk.length);
    expect(up.heldBytes).toBeLessThanOrEqual(MAX_HELD_BYTES);
    expect(memory.held).toBe(up.heldBytes);
    answer();
    await up.discard();
    expect(memory.held).toBe(0);
  });

  it('counts what it holds in the process total, and gives it back as it is stored', async () => {
    const memory = new UploadMemory();
    const store = new MemoryChunks();
    const up = new InboundUpload(store, 'p1', 'a.edi', 8 * MiB, undefined, undefined, memory);
    await up.write(MiB, Buffer.alloc(MiB, 0x41)); // ahead of a gap
    expect(memory.held).toBe(MiB);
    await up.write(0, Buffer.alloc(MiB + 10, 0x42)); // fills it, overlapping the start of what was ahead
    expect(memory.held).toBe(up.heldBytes);
    await up.finish();
    expect(memory.held).toBe(0);
    expect(up.size).toBe(2 * MiB);
  });

  it('reads back what was written in order, stored or not', async () => {
    const { up } = upload(new MemoryChunks(), 4 * MiB);
    const bytes = Buffer.from('0123456789'.repeat(150_000)); // 1.5 MB: one chunk stored, the rest in the tail
    await up.write(0, bytes);
    const across = await up.readWritten(FILE_CHUNK_BYTES - 5, 10);
    expect(across.toString()).toBe(bytes.subarray(FILE_CHUNK_BYTES - 5, FILE_CHUNK_BYTES + 5).toString());
    expect((await up.readWritten(bytes.length - 3, 100)).toString()).toBe('789');
    expect(await up.readWritten(bytes.length, 10)).toHaveLength(0);
  });

  it('refuses to change bytes already stored, saying so', async () => {
    const { up } = upload(new MemoryChunks(), 4 * MiB);
    await up.write(0, Buffer.alloc(FILE_CHUNK_BYTES + 10, 0x41));
    await expect(up.write(5, Buffer.from('x'))).rejects.toThrow(
      new WriteRefused(
        `a write at offset 5 would change bytes already stored (the first ${FILE_CHUNK_BYTES}): write the file once, in order`,
      ),
    );
  });

  it('refuses a write whose end is more than the window past what was written in order', async () => {
    const { up } = upload(new MemoryChunks(), 256 * MiB);
    await expect(up.write(64 * MiB - 1, Buffer.from('~'))).rejects.toThrow(
      new WriteRefused(
        `a write at offset ${64 * MiB - 1} would leave a hole after the 0 bytes written in order so far (writes may run at most ${MAX_WRITE_AHEAD_BYTES} bytes ahead): write the file in order`,
      ),
    );
    expect(up.size).toBe(0);
  });

  it('never allocates a hole: writes ahead cannot step the window forward', async () => {
    const { up } = upload(new MemoryChunks(), 256 * MiB);
    await up.write(MAX_WRITE_AHEAD_BYTES - 1, Buffer.from('~'));
    await expect(up.write(2 * MAX_WRITE_AHEAD_BYTES - 1, Buffer.from('~'))).rejects.toThrow(WriteRefused);
    expect(held(up)).toBeLessThanOrEqual(1);
  });

  it('refuses at the end a file with a range never written', async () => {
    const { up } = upload();
    await up.write(0, Buffer.from('ISA'));
    await up.write(100, Buffer.from('~'));
    await expect(up.finish()).rejects.toThrow(
      new WriteRefused('the file has a hole: bytes 3 to 99 were never written'),
    );
  });

  it('refuses more writes ahead than clients keep in flight', async () => {
    const { up } = upload();
    for (let i = 1; i <= MAX_PENDING_WRITES; i++) {
      await up.write(2 * i, Buffer.from('x'));
    }
    await expect(up.write(2 * MAX_PENDING_WRITES + 2, Buffer.from('x'))).rejects.toThrow(/more than 1024 writes ahead/);
  });

  it('says how large an upload over the limit got', async () => {
    const { up } = upload(new MemoryChunks(), 1024);
    await up.write(0, Buffer.alloc(1000, 0x41));
    await expect(up.write(1000, Buffer.alloc(100, 0x41))).rejects.toThrow(new UploadTooLarge(1100));
  });

  it('refuses a NUL byte anywhere, naming its offset, and tells latin1 from UTF-8 across chunks', async () => {
    const nul = upload(new MemoryChunks(), 4 * MiB);
    const bytes = Buffer.alloc(FILE_CHUNK_BYTES + 10, 0x41);
    bytes[FILE_CHUNK_BYTES + 3] = 0;
    await nul.up.write(0, bytes);
    await expect(nul.up.finish()).rejects.toThrow(
      new UploadRefused(
        `the file holds a NUL byte at offset ${FILE_CHUNK_BYTES + 3}: X12 is text, so binary content (or a hole left by a write past the end) is not accepted; nothing was recorded`,
      ),
    );
    // "é" split across the chunk boundary is still UTF-8; a lone 0xE9 is latin1.
    const split = upload(new MemoryChunks(), 4 * MiB);
    const utf8 = Buffer.concat([Buffer.alloc(FILE_CHUNK_BYTES - 1, 0x41), Buffer.from('é~')]);
    await split.up.write(0, utf8);
    expect((await split.up.finish()).encoding).toBe('utf-8');
    const latin = upload();
    await latin.up.write(0, Buffer.from([0x41, 0xe9, 0x7e]));
    expect((await latin.up.finish()).encoding).toBe('latin1');
  });

  it('discards what it stored', async () => {
    const { store, up } = upload(new MemoryChunks(), 4 * MiB);
    await up.write(0, Buffer.alloc(FILE_CHUNK_BYTES + 1, 0x41));
    await up.discard();
    expect(store.chunks.size).toBe(0);
    await expect(up.write(FILE_CHUNK_BYTES + 1, Buffer.from('x'))).rejects.toThrow(/discarded/);
  });
});
