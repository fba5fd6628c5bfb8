/**
 * How far past the bytes written in order an upload's writes may reach: clients keep a few MiB of
 * writes in flight and they arrive out of order. Further is a sparse write, refused.
 */
export const MAX_WRITE_AHEAD_BYTES = 16 * 1024 * 1024;
/** Writes held out of order at once (clients keep tens to a few hundred in flight). */
export const MAX_PENDING_WRITES = 1024;
/** First allocation for an upload; it doubles as data arrives. */
const INITIAL_BYTES = 64 * 1024;

/** A write that cannot be taken (the message says why); the upload can go on. */
export class WriteRefused extends Error {}
/** A write past the upload's size limit; the upload cannot succeed any more. */
export class UploadTooLarge extends Error {
  constructor(readonly atLeastBytes: number) {
    super(`the upload reaches ${atLeastBytes} bytes`);
  }
}

interface Piece {
  offset: number;
  data: Buffer;
}

/**
 * The bytes of one upload as its WRITEs arrive. Memory follows the data received, never the
 * offsets a client names: what is written in order lands in one growing buffer; a write ahead of
 * it (out of order, within MAX_WRITE_AHEAD_BYTES) is kept aside until the gap before it is filled.
 * A hole is never allocated, and one left at the end fails `content()`.
 */
export class UploadBuffer {
  private buffer: Buffer;
  /** Bytes 0..inOrder-1 are all written. */
  private inOrder: number;
  /** Writes ahead of `inOrder`, sorted by offset, disjoint (a later write replaces what it overlaps). */
  private ahead: Piece[] = [];

  constructor(
    private readonly maxBytes: number,
    initial: Buffer = Buffer.alloc(0),
  ) {
    if (initial.length > maxBytes) {
      throw new UploadTooLarge(initial.length);
    }
    this.buffer = Buffer.alloc(Math.min(maxBytes, Math.max(INITIAL_BYTES, initial.length)));
    initial.copy(this.buffer);
    this.inOrder = initial.length;
  }

  /** The file's size so far: the end of the furthest write. */
  get size(): number {
    return Math.max(this.inOrder, this.ahead.at(-1) ? this.ahead.at(-1)!.offset + this.ahead.at(-1)!.data.length : 0);
  }

  /** The bytes written in order so far (what a READ on the upload sees). */
  get written(): Buffer {
    return this.buffer.subarray(0, this.inOrder);
  }

  write(offset: number, data: Buffer): void {
    const end = offset + data.length;
    if (end > this.maxBytes) {
      throw new UploadTooLarge(end);
    }
    if (end - this.inOrder > MAX_WRITE_AHEAD_BYTES) {
      throw new WriteRefused(
        `a write at offset ${offset} would leave a hole after the ${this.inOrder} bytes written in order so far (writes may run at most ${MAX_WRITE_AHEAD_BYTES} bytes ahead): write the file in order`,
      );
    }
    this.dropOverlaps(offset, end);
    if (offset > this.inOrder) {
      return this.keepAhead({ offset, data: Buffer.from(data) });
    }
    this.place(offset, data);
    while (this.ahead.length && this.ahead[0].offset <= this.inOrder) {
      const piece = this.ahead.shift()!;
      this.place(piece.offset, piece.data);
    }
  }

  /** The whole file; refused when a range was never written (a sparse file). */
  content(): Buffer {
    if (this.ahead.length) {
      const next = this.ahead[0].offset;
      throw new WriteRefused(`the file has a hole: bytes ${this.inOrder} to ${next - 1} were never written`);
    }
    return this.buffer.subarray(0, this.inOrder);
  }

  /** Lets the memory go (the upload failed or was handed on). */
  release(): void {
    this.buffer = Buffer.alloc(0);
    this.inOrder = 0;
    this.ahead = [];
  }

  private place(offset: number, data: Buffer): void {
    const end = offset + data.length;
    if (end > this.buffer.length) {
      const grown = Buffer.alloc(Math.min(this.maxBytes, Math.max(end, this.buffer.length * 2)));
      this.buffer.copy(grown, 0, 0, this.inOrder);
      this.buffer = grown;
    }
    data.copy(this.buffer, offset);
    this.inOrder = Math.max(this.inOrder, end);
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
