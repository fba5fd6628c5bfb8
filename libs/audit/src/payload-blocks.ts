import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import type { EntityManager } from 'typeorm';
import type { JsonObject } from './audit.types';
import { parsedWeightOf } from './payload-weight';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/**
 * Operations whose payloads share a `payload_block` row. A block is compressed whole, and the
 * documents of one message repeat each other (keys, parties, products): documents of 40 loads took
 * 221 bytes each in blocks of 100 (229 in blocks of 64, 272 of 16), against ~1,330 in TOAST as one
 * compressed jsonb a row. Reading one payload inflates its block (~280 KB of JSON for such
 * documents, about a millisecond). Translation stores 200 a transaction: two blocks.
 */
export const BLOCK_OPERATIONS = 100;

/**
 * A block also ends once its text reaches this many characters: a partner's documents can be large,
 * and reading one payload inflates its whole block (a document over it is a block of its own).
 */
export const BLOCK_MAX_CHARS = 1024 * 1024;

/**
 * How a block's body is written: `deflate` (raw deflate of the JSON lines, as the gateway writes
 * them) or `json` (the lines as UTF-8; payloads moved here by the migration, compressed by TOAST).
 */
export type BlockEncoding = 'deflate' | 'json';

/** A block as stored: the payloads of seqs firstSeq .. firstSeq + lines - 1, a line each (lineOf). */
export interface EncodedBlock {
  firstSeq: number;
  lines: number;
  encoding: BlockEncoding;
  body: Buffer;
}

/** The part of a payload a batch body sends: an upsert's document, a delete's document id. */
export type BodyField = 'document' | 'documentId';

/**
 * A payload as a block line: its JSON, or, when it has a body field, the JSON of the rest, a tab,
 * the field's name, a tab and the field's JSON: a batch body takes that last part as it is, with
 * neither a parse nor a stringify (both were ~2 s of a 100 MiB file's 41,000 documents). JSON text
 * holds no raw tab or line break (JSON.stringify escapes them, as Postgres' jsonb output does).
 */
export function lineOf(payload: JsonObject): { line: string; bodyBytes: number } {
  const field: BodyField | null =
    payload.document !== undefined ? 'document' : payload.documentId !== undefined ? 'documentId' : null;
  if (field === null) {
    return { line: JSON.stringify(payload), bodyBytes: 0 };
  }
  const { [field]: value, ...rest } = payload;
  const json = JSON.stringify(value);
  return { line: `${JSON.stringify(rest)}\t${field}\t${json}`, bodyBytes: Buffer.byteLength(json) };
}

/** A block line's payload. */
export function payloadOfLine(line: string): JsonObject {
  const tab = line.indexOf('\t');
  if (tab < 0) {
    return JSON.parse(line) as JsonObject;
  }
  const second = line.indexOf('\t', tab + 1);
  const rest = JSON.parse(line.slice(0, tab)) as JsonObject;
  return { ...rest, [line.slice(tab + 1, second)]: JSON.parse(line.slice(second + 1)) };
}

/**
 * A block line's payload as JSON text, its body field's text taken as it is (not parsed: a document
 * can be large), and the rest of it parsed (kind, organisation, options: small).
 */
export function jsonOfLine(line: string): { json: string; rest: JsonObject } {
  const tab = line.indexOf('\t');
  if (tab < 0) {
    return { json: line, rest: JSON.parse(line) as JsonObject };
  }
  const second = line.indexOf('\t', tab + 1);
  const restText = line.slice(0, tab);
  const member = `${JSON.stringify(line.slice(tab + 1, second))}:${line.slice(second + 1)}`;
  const json = restText === '{}' ? `{${member}}` : `${restText.slice(0, -1)},${member}}`;
  return { json, rest: JSON.parse(restText) as JsonObject };
}

/** The JSON text of a block line's `field` ('null' when it has none). */
export function bodyOfLine(line: string, field: BodyField): string {
  const tab = line.indexOf('\t');
  if (tab < 0) {
    return JSON.stringify((JSON.parse(line) as JsonObject)[field]) ?? 'null'; // a line the migration wrote
  }
  const second = line.indexOf('\t', tab + 1);
  return line.slice(tab + 1, second) === field ? line.slice(second + 1) : 'null';
}

/**
 * The payloads of operations numbered from `firstSeq`, in blocks of BLOCK_OPERATIONS, and the bytes
 * of each one's body field.
 */
export async function encodeBlocks(
  firstSeq: number,
  payloads: readonly JsonObject[],
): Promise<{ blocks: EncodedBlock[]; measures: LineMeasures[] }> {
  const writer = new BlockWriter(firstSeq);
  const measures = payloads.map((payload) => writer.add(payload));
  return { blocks: await writer.finish(), measures };
}

/** What a row records of its payload's line: the bytes of its body field (lineOf), and what it weighs parsed. */
export interface LineMeasures {
  bodyBytes: number;
  weight: number;
}

/**
 * Payloads of operations numbered from `firstSeq` into blocks of BLOCK_OPERATIONS lines or
 * BLOCK_MAX_CHARS, each compressed as soon as it is full: only the block being filled is held as
 * text. Level 1: level 6 saved another ~20% for five times the CPU.
 */
export class BlockWriter {
  private readonly blocks: Promise<EncodedBlock>[] = [];
  private lines: string[] = [];
  private chars = 0;
  /** Payloads in blocks already compressed. */
  private closed = 0;

  constructor(
    readonly firstSeq: number,
    private readonly compress: (text: string) => Promise<Buffer> = (text) => deflate(text, { level: 1 }),
  ) {}

  /** Payloads added. */
  get size(): number {
    return this.closed + this.lines.length;
  }

  /** Adds the next payload; returns what its row records of it. */
  add(payload: JsonObject): LineMeasures {
    const { line, bodyBytes } = lineOf(payload);
    if (this.lines.length > 0 && this.chars + line.length > BLOCK_MAX_CHARS) {
      this.close();
    }
    this.lines.push(line);
    this.chars += line.length + 1;
    if (this.lines.length === BLOCK_OPERATIONS) {
      this.close();
    }
    return { bodyBytes, weight: parsedWeightOf(line) };
  }

  /** Keeps the first `count` payloads; false (nothing changed) when some after them are compressed already. */
  truncate(count: number): boolean {
    if (count < this.closed) {
      return false;
    }
    this.lines.length = Math.min(count - this.closed, this.lines.length);
    this.chars = this.lines.reduce((sum, line) => sum + line.length + 1, 0);
    return true;
  }

  async finish(): Promise<EncodedBlock[]> {
    if (this.lines.length > 0) {
      this.close();
    }
    return Promise.all(this.blocks);
  }

  private close(): void {
    const first = this.firstSeq + this.closed;
    const count = this.lines.length;
    const text = this.lines.join('\n');
    const block = this.compress(text).then((body): EncodedBlock => ({
      firstSeq: first,
      lines: count,
      encoding: 'deflate',
      body,
    }));
    // Handled here too: a batch given up before finish() (the write before it failed) must not leave
    // a rejection nobody awaits, which would end the process.
    block.catch(() => undefined);
    this.blocks.push(block);
    this.closed += count;
    this.lines = [];
    this.chars = 0;
  }
}

/** A block's lines: line k is the payload of seq firstSeq + k. */
export async function decodeBlock(encoding: BlockEncoding, body: Uint8Array): Promise<string[]> {
  const bytes = encoding === 'deflate' ? await inflate(body) : Buffer.from(body.buffer, body.byteOffset, body.length);
  return bytes.toString('utf8').split('\n');
}

/** Blocks as the one JSON parameter insertBlocks and a streamed write read (PGlite and pg take it alike). */
export function blocksJson(blocks: readonly EncodedBlock[]): string {
  return JSON.stringify(
    blocks.map((b) => ({
      first_seq: b.firstSeq,
      lines: b.lines,
      encoding: b.encoding,
      body: b.body.toString('base64'),
    })),
  );
}

/**
 * The INSERT of blocks of message $1 given as blocksJson (`blocks`, a parameter); `from` names what
 * else the SELECT reads (a CTE, with its comma).
 */
export const insertBlocksSql = (blocks: string, from = '') => `
  INSERT INTO payload_block (message_id, first_seq, lines, encoding, body)
  SELECT $1::uuid, r.first_seq, r.lines, r.encoding, decode(r.body, 'base64')
    FROM ${from}jsonb_to_recordset(${blocks}::jsonb) AS r(first_seq integer, lines integer, encoding text, body text)`;

/** Writes blocks of one message. */
export async function insertBlocks(manager: EntityManager, messageId: string, blocks: readonly EncodedBlock[]) {
  if (blocks.length > 0) {
    await manager.query(insertBlocksSql('$2'), [messageId, blocksJson(blocks)]);
  }
}

/** Where an operation's payload is: its message and position. */
export interface PayloadAddress {
  messageId: string;
  seq: number;
}

/**
 * The block line of each operation's payload (payloadOfLine, bodyOfLine), by `messageId:seq`
 * (missing when no block holds it).
 * A seq's block is the message's one with the greatest first_seq at or before it: a translation
 * that discarded operations from a seq and wrote others in their place wrote a newer block there.
 */
export async function payloadTexts(
  manager: EntityManager,
  addresses: readonly PayloadAddress[],
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  if (addresses.length === 0) {
    return texts;
  }
  const blocks: { message_id: string; first_seq: number; encoding: BlockEncoding; body: Uint8Array; seqs: number[] }[] =
    await manager.query(
      `WITH wanted AS (
         SELECT DISTINCT w.message_id, w.seq,
           (SELECT max(p.first_seq) FROM payload_block p WHERE p.message_id = w.message_id AND p.first_seq <= w.seq) AS first_seq
         FROM unnest($1::uuid[], $2::int[]) AS w(message_id, seq)
       )
       SELECT b.message_id, b.first_seq, b.encoding, b.body, array_agg(w.seq) AS seqs
         FROM wanted w JOIN payload_block b ON b.message_id = w.message_id AND b.first_seq = w.first_seq
        WHERE w.seq < b.first_seq + b.lines
        GROUP BY b.message_id, b.first_seq`,
      [addresses.map((a) => a.messageId), addresses.map((a) => a.seq)],
    );
  await Promise.all(
    blocks.map(async (block) => {
      const lines = await decodeBlock(block.encoding, block.body);
      for (const seq of block.seqs) {
        texts.set(`${block.message_id}:${seq}`, lines[seq - block.first_seq]);
      }
    }),
  );
  return texts;
}

/** Gives each operation its payload, read from its message's blocks. */
export async function attachPayloads<T extends { messageId: string; seq: number; payload?: JsonObject }>(
  manager: EntityManager,
  operations: T[],
): Promise<T[]> {
  const payloads = await payloadsAt(manager, operations);
  operations.forEach((op, i) => (op.payload = payloads[i]));
  return operations;
}

/** The payloads at these places, in their order (an empty object where none is stored). */
export async function payloadsAt(manager: EntityManager, addresses: readonly PayloadAddress[]): Promise<JsonObject[]> {
  const texts = await payloadTexts(manager, addresses);
  return addresses.map((a) => {
    const text = texts.get(`${a.messageId}:${a.seq}`);
    return text === undefined ? {} : payloadOfLine(text);
  });
}
