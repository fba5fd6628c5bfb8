import { isUtf8 } from 'node:buffer';
import { createHash, randomUUID } from 'node:crypto';
import { DomainError } from '@dockbridge/audit';
import { FILE_CHUNK_BYTES, type StoredUpload } from '@dockbridge/partners';

/**
 * How far past the bytes written in order an upload's writes may reach: clients keep a few MiB of
 * writes in flight and they arrive out of order. Further is a sparse write, refused.
 */
export const MAX_WRITE_AHEAD_BYTES = 16 * 1024 * 1024;
/** Writes held out of order at once (clients keep tens to a few hundred in flight). */
export const MAX_PENDING_WRITES = 1024;
/** Chunks handed to the store and not yet stored, past which a write waits: a client faster than the database is slowed down, not buffered. */
const MAX_STORING_CHUNKS = 2;
/**
 * Bytes one upload may hold before they are stored (its tail, its writes ahead, its chunks being
 * stored): a client that does not wait for its writes' answers is refused here, not buffered.
 */
export const MAX_HELD_BYTES = MAX_WRITE_AHEAD_BYTES + 8 * 1024 * 1024;

/** What this process's uploads hold in memory, not yet stored: their sum, and each partner's, for admission. */
export class UploadMemory {
  held = 0;
  private readonly byPartner = new Map<string, number>();

  /** Counts `delta` more bytes held by an upload of `partnerId`. */
  add(partnerId: string, delta: number): void {
    this.held += delta;
    const now = (this.byPartner.get(partnerId) ?? 0) + delta;
    if (now > 0) {
      this.byPartner.set(partnerId, now);
    } else {
      this.byPartner.delete(partnerId);
    }
  }

  heldBy(partnerId: string): number {
    return this.byPartner.get(partnerId) ?? 0;
  }
}

/** A write that cannot be taken (the message says why); the upload can go on. */
export class WriteRefused extends Error {}
/** A write past the upload's size limit; the upload cannot succeed any more. */
export class UploadTooLarge extends Error {
  constructor(readonly atLeastBytes: number) {
    super(`the upload reaches ${atLeastBytes} bytes`);
  }
}
/** An upload that cannot be a message, for a reason the partner must be told (the SFTP status says it). */
export class UploadRefused extends DomainError {
  readonly kind = 'invalid';
}

/** Where an upload's chunks go as they fill (PartnerFileRepository). */
export interface ChunkStore {
  appendChunk(fileId: string, seq: number, data: Buffer): Promise<void>;
  readUploadRange(fileId: string, offset: number, length: number): Promise<Buffer>;
  discardChunks(fileId: string): Promise<void>;
}

/** A completed upload: stored, and what its bytes are as text. */
export interface FinishedUpload extends StoredUpload {
  /** `utf-8` when the bytes are valid UTF-8 (a BOM is kept), else `latin1` (every byte one character). */
  encoding: 'utf-8' | 'latin1';
}

interface Piece {
  offset: number;
  data: Buffer;
}

/**
 * What an upload's bytes are as text, found a chunk at a time: EDI is ASCII/UTF-8, anything else is
 * kept as latin1 (never dropped); a NUL byte is refused outright (X12 is text, Postgres text cannot
 * hold it, and a file of NULs is what a write far past the end leaves), found with a byte search.
 */
export class UploadTextCheck {
  private nulAt = -1;
  private size = 0;
  private utf8 = true;
  /** The start of a UTF-8 sequence cut by the end of the last chunk. */
  private carry = Buffer.alloc(0);

  /** The next bytes of the file, in order. Checked in place: no string is made of them. */
  update(chunk: Buffer): void {
    const nul = this.nulAt === -1 ? chunk.indexOf(0) : -1;
    if (nul !== -1) {
      this.nulAt = this.size + nul;
    }
    this.size += chunk.length;
    if (!this.utf8) {
      return;
    }
    let from = 0;
    if (this.carry.length) {
      from = Math.min(chunk.length, sequenceLength(this.carry[0]) - this.carry.length);
      const joined = Buffer.concat([this.carry, chunk.subarray(0, from)]);
      this.carry = Buffer.alloc(0);
      if (from < chunk.length || joined.length === sequenceLength(joined[0])) {
        this.utf8 = isUtf8(joined);
      } else {
        this.carry = joined; // still incomplete: a chunk of one or two bytes
        return;
      }
    }
    const cut = incompleteTail(chunk, from);
    this.utf8 &&= isUtf8(chunk.subarray(from, cut));
    this.carry = Buffer.from(chunk.subarray(cut));
  }

  /** The file's encoding, or UploadRefused saying why it cannot be a message. */
  finish(): FinishedUpload['encoding'] {
    if (this.nulAt !== -1) {
      throw new UploadRefused(
        `the file holds a NUL byte at offset ${this.nulAt}: X12 is text, so binary content (or a hole left by a write past the end) is not accepted; nothing was recorded`,
      );
    }
    // A file that ends inside a multi-byte sequence is not UTF-8.
    return this.utf8 && this.carry.length === 0 ? 'utf-8' : 'latin1';
  }
}

/** Bytes of the UTF-8 sequence a lead byte starts (1 for a byte that cannot lead: isUtf8 refuses it). */
function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

/** Where a multi-byte sequence that the chunk's end cuts begins (the chunk's length when none is cut). */
function incompleteTail(chunk: Buffer, from: number): number {
  for (let i = chunk.length - 1; i >= Math.max(from, chunk.length - 3); i--) {
    if ((chunk[i] & 0xc0) !== 0x80) {
      return i + sequenceLength(chunk[i]) > chunk.length ? i : chunk.length;
    }
  }
  return chunk.length;
}

/**
 * One upload as its WRITEs arrive, stored as it goes: bytes written in order fill a tail that is
 * handed to the store a chunk (FILE_CHUNK_BYTES) at a time, with the running SHA-256 and the text
 * checks (NUL, UTF-8) taken over each chunk; a write ahead of the tail (out of order, within
 * MAX_WRITE_AHEAD_BYTES) is kept aside until the gap before it is filled. Memory is the tail, the
 * writes kept ahead and a few chunks being stored, whatever the file's size. Bytes already stored
 * cannot be written again (refused, saying so); those still in the tail can.
 */
export class InboundUpload {
  /** Bytes handed to the store: chunks 0..seq-1. */
  private stored = 0;
  private seq = 0;
  /** Bytes stored..inOrder-1 (written in order, not yet a full chunk) at its start; the rest is room. */
  private tail = Buffer.alloc(0);
  private inOrder = 0;
  /** Writes ahead of `inOrder`, sorted by offset, disjoint (a later write replaces what it overlaps). */
  private ahead: Piece[] = [];
  private readonly hash = createHash('sha256');
  private readonly text = new UploadTextCheck();
  private storing: Promise<void> = Promise.resolve();
  private storingChunks = 0;
  private storingBytes = 0;
  /** This upload's share of `memory.held`, as last counted. */
  private counted = 0;
  /** Writes whose answer waits for the store, first come first; all go once it is back to MAX_STORING_CHUNKS. */
  private held: (() => void)[] = [];
  private failure: Error | null = null;
  private discarded = false;

  private ended = false;

  constructor(
    private readonly store: ChunkStore,
    readonly partnerId: string,
    readonly name: string,
    private readonly maxBytes: number,
    /** Called once, when the upload ends (finished or discarded): its admission is given back. */
    private readonly onEnd: () => void = () => undefined,
    /** The id the stored file will have; its chunks carry it from the first. */
    readonly fileId: string = randomUUID(),
    private readonly memory = new UploadMemory(),
  ) {}

  /** Bytes held and not yet stored: the tail, the writes kept ahead, the chunks being stored. */
  get heldBytes(): number {
    return (
      this.inOrder - this.stored + this.ahead.reduce((sum, piece) => sum + piece.data.length, 0) + this.storingBytes
    );
  }

  /** Brings the process's count up to date with what this upload holds now. */
  private count(): void {
    const now = this.ended ? 0 : this.heldBytes;
    this.memory.add(this.partnerId, now - this.counted);
    this.counted = now;
  }

  /** The upload holds nothing more in memory: it was finished or discarded. */
  private end(): void {
    if (!this.ended) {
      this.ended = true;
      this.count();
      this.onEnd();
    }
  }

  /** The file's size so far: the end of the furthest write. */
  get size(): number {
    const last = this.ahead.at(-1);
    return Math.max(this.inOrder, last ? last.offset + last.data.length : 0);
  }

  /** Takes one WRITE; resolves when the caller may answer it (its bytes are held, and the store keeps up). */
  async write(offset: number, data: Buffer): Promise<void> {
    this.throwIfFailed();
    const end = offset + data.length;
    if (end > this.maxBytes) {
      throw new UploadTooLarge(end);
    }
    if (offset < this.stored && data.length > 0) {
      throw new WriteRefused(
        `a write at offset ${offset} would change bytes already stored (the first ${this.stored}): write the file once, in order`,
      );
    }
    if (end - this.inOrder > MAX_WRITE_AHEAD_BYTES) {
      throw new WriteRefused(
        `a write at offset ${offset} would leave a hole after the ${this.inOrder} bytes written in order so far (writes may run at most ${MAX_WRITE_AHEAD_BYTES} bytes ahead): write the file in order`,
      );
    }
    if (this.heldBytes + data.length > MAX_HELD_BYTES) {
      throw new WriteRefused(
        `a write at offset ${offset} would have this upload hold more than ${MAX_HELD_BYTES} bytes not yet stored: wait for writes to be answered before sending more`,
      );
    }
    this.dropOverlaps(offset, end);
    if (offset > this.inOrder) {
      this.keepAhead({ offset, data: Buffer.from(data) });
    } else {
      this.place(offset, data);
      while (this.ahead.length && this.ahead[0].offset <= this.inOrder) {
        const piece = this.ahead.shift()!;
        this.place(piece.offset, piece.data);
      }
      while (this.inOrder - this.stored >= FILE_CHUNK_BYTES) {
        this.storeChunk(FILE_CHUNK_BYTES);
      }
    }
    this.count();
    // Answers wait in the order their writes came: one answered before an earlier one lets a client that sends a
    // write's rest only once its first part is answered (ssh2) run on ahead of the hole that rest would fill.
    if (this.storingChunks > MAX_STORING_CHUNKS || this.held.length) {
      await new Promise<void>((resolve) => this.held.push(resolve));
      this.throwIfFailed();
    }
  }

  /** Bytes written in order from `offset` (what a READ on the upload sees); empty at or past the end. */
  async readWritten(offset: number, length: number): Promise<Buffer> {
    const end = Math.min(this.inOrder, offset + length);
    if (offset >= end) {
      return Buffer.alloc(0);
    }
    await this.storing;
    this.throwIfFailed();
    const fromStore =
      offset < this.stored
        ? await this.store.readUploadRange(this.fileId, offset, Math.min(end, this.stored) - offset)
        : Buffer.alloc(0);
    const tailFrom = Math.max(offset, this.stored) - this.stored;
    return Buffer.concat([fromStore, Buffer.from(this.tail.subarray(tailFrom, Math.max(tailFrom, end - this.stored)))]);
  }

  /**
   * The upload is over: refuses a file with a range never written or a NUL byte, stores the last
   * chunk and answers what was stored. The caller makes it a file (`completeUpload`) or discards it.
   */
  async finish(): Promise<FinishedUpload> {
    this.throwIfFailed();
    if (this.ahead.length) {
      const next = this.ahead[0].offset;
      throw new WriteRefused(`the file has a hole: bytes ${this.inOrder} to ${next - 1} were never written`);
    }
    if (this.inOrder > this.stored) {
      this.storeChunk(this.inOrder - this.stored);
    }
    await this.storing;
    this.throwIfFailed();
    const encoding = this.text.finish();
    this.end();
    return {
      id: this.fileId,
      partnerId: this.partnerId,
      name: this.name,
      size: this.inOrder,
      sha256: this.hash.digest('hex'),
      encoding,
    };
  }

  /** Drops what was held and stored (the upload failed, was refused or was cut off). */
  async discard(): Promise<void> {
    if (this.discarded) {
      return;
    }
    this.discarded = true;
    this.end();
    this.failure ??= new Error('the upload was discarded');
    this.tail = Buffer.alloc(0);
    this.ahead = [];
    this.release();
    await this.storing;
    await this.store.discardChunks(this.fileId);
  }

  private throwIfFailed(): void {
    if (this.failure) {
      throw this.failure;
    }
  }

  /** Hands the first `length` bytes of the tail to the store as the next chunk, checking them on the way. */
  private storeChunk(length: number): void {
    const chunk = Buffer.from(this.tail.subarray(0, length));
    this.tail.copy(this.tail, 0, length, this.inOrder - this.stored);
    this.hash.update(chunk);
    this.text.update(chunk);
    this.stored += length;
    const seq = this.seq++;
    this.storingChunks++;
    this.storingBytes += length;
    this.storing = this.storing.then(async () => {
      try {
        if (!this.failure) {
          await this.store.appendChunk(this.fileId, seq, chunk);
        }
      } catch (error) {
        this.failure = error as Error;
      } finally {
        this.storingChunks--;
        this.storingBytes -= length;
        this.count();
        this.release();
      }
    });
  }

  /** Answers the held writes when the store has caught up (or failed: they learn why). */
  private release(): void {
    if (this.storingChunks <= MAX_STORING_CHUNKS || this.failure) {
      const held = this.held;
      this.held = [];
      held.forEach((answer) => answer());
    }
  }

  /** Writes `data` at `offset` (at or before `inOrder`, not before `stored`) into the tail. */
  private place(offset: number, data: Buffer): void {
    const start = offset - this.stored;
    const end = start + data.length;
    if (end > this.tail.length) {
      // Doubling up to two chunks' room: a small file holds little, a big one stops growing.
      const room = Math.max(end, Math.min(2 * Math.max(this.tail.length, 64 * 1024), 2 * FILE_CHUNK_BYTES));
      const grown = Buffer.alloc(room);
      this.tail.copy(grown, 0, 0, this.inOrder - this.stored);
      this.tail = grown;
    }
    data.copy(this.tail, start);
    this.inOrder = Math.max(this.inOrder, offset + data.length);
  }

  private keepAhead(piece: Piece): void {
    if (this.ahead.length >= MAX_PENDING_WRITES) {
      throw new WriteRefused(
        `more than ${MAX_PENDING_WRITES} writes ahead of the ${this.inOrder} bytes written in order: write the file in order`,
      );
    }
    this.ahead.push(piece);
    this.ahead.sort((a, b) => a.offset - b.offset);
  }

  /** A newer write replaces what older writes kept ahead hold in its range. */
  private dropOverlaps(start: number, end: number): void {
    if (!this.ahead.length || end <= this.ahead[0].offset) {
      return;
    }
    const kept: Piece[] = [];
    for (const piece of this.ahead) {
      const pieceEnd = piece.offset + piece.data.length;
      if (pieceEnd <= start || piece.offset >= end) {
        kept.push(piece);
        continue;
      }
      if (piece.offset < start) {
        kept.push({ offset: piece.offset, data: piece.data.subarray(0, start - piece.offset) });
      }
      if (pieceEnd > end) {
        kept.push({ offset: end, data: piece.data.subarray(end - piece.offset) });
      }
    }
    this.ahead = kept;
  }
}
