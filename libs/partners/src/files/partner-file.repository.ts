import { createHash, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { PARTNER_ID_PATTERN } from '../entities/partner.entity';
import { PartnerNotFoundError } from '../partners.errors';
import { InvalidPartnerFilePathError, PartnerFileExistsError, PartnerFileNotFoundError } from './partner-file.errors';
import {
  isPartnerFileName,
  isPartnerFolder,
  PartnerFileInfo,
  PartnerFileRecord,
  PartnerFileWithContent,
  PartnerFolder,
  PutFileOptions,
  RenameFileOptions,
} from './partner-file.types';

export interface PartnerFileRepositoryOptions {
  /** The clock (tests); `new Date()` by default. */
  now?: () => Date;
}

/**
 * Content is read in slices of this many bytes. bytea travels as hex text (two characters a byte)
 * and the driver buffers a whole row before decoding it: a 60 MiB file read in one query took
 * ~550 MiB of the gateway's memory at once (and the hex of a 256 MiB file is longer than a
 * JavaScript string may be). In slices, reading costs the file plus a few MiB.
 */
export const READ_SLICE_BYTES = 4 * 1024 * 1024;

/** Bytes per stored chunk of an upload written as it arrives (the last one may be shorter). */
export const FILE_CHUNK_BYTES = 1024 * 1024;
/** Chunks read per query, at most: a READ_SLICE_BYTES slice. */
const CHUNKS_PER_READ = Math.max(1, READ_SLICE_BYTES / FILE_CHUNK_BYTES);

/** An upload whose chunks are all stored, to become a file (`completeUpload`). */
export interface StoredUpload {
  /** The file's id, chosen when the upload started (its chunks carry it). */
  id: string;
  partnerId: string;
  name: string;
  size: number;
  sha256: string;
}

/** Records what a file becomes (its message) inside the transaction that makes the file live; returns the message id. */
export type FileBecomes = (manager: EntityManager, file: PartnerFileInfo) => Promise<string>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INFO_COLUMNS = 'id, partner_id, folder, name, size, sha256, created_at, message_id, kind';
/** The most files one `list` call answers. */
export const LIST_PAGE_MAX = 1000;
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

interface FileRow {
  id: string;
  partner_id: string;
  folder: PartnerFolder;
  name: string;
  size: number;
  sha256: string;
  created_at: Date;
  message_id: string | null;
  kind: string | null;
  removed_at?: Date | null;
  fetched_at?: Date | null;
  content?: Buffer;
  /** A listing's count of every row it matched. */
  total?: string;
}

function toInfo(row: FileRow): PartnerFileInfo {
  return {
    id: row.id,
    partnerId: row.partner_id,
    folder: row.folder,
    name: row.name,
    size: Number(row.size),
    sha256: row.sha256,
    createdAt: row.created_at instanceof Date ? row.created_at : new Date(row.created_at),
    messageId: row.message_id,
    kind: row.kind,
  };
}

const toBuffer = (content: unknown): Buffer =>
  Buffer.isBuffer(content) ? content : Buffer.from((content as Uint8Array | null) ?? []);

/** SQLSTATE of a byte no text of the encoding may hold (a NUL byte read as text). */
const NOT_IN_REPERTOIRE = '22021';

function pgCode(error: unknown): string | undefined {
  const e = error as { code?: string; driverError?: { code?: string } };
  return e?.driverError?.code ?? e?.code;
}

function pgConstraint(error: unknown): string | undefined {
  const e = error as { constraint?: string; driverError?: { constraint?: string } };
  return e?.driverError?.constraint ?? e?.constraint;
}

/**
 * Runs SQL and returns its rows. Statements whose effect is counted end in `RETURNING`, so the count
 * is the number of rows: the same on node-postgres and PGlite (which reports no `rowCount`).
 */
async function exec(
  manager: EntityManager,
  sql: string,
  params: unknown[],
): Promise<{ rows: FileRow[]; affected: number }> {
  const own = !manager.queryRunner;
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = await runner.query(sql, params, true);
    const rows = (Array.isArray(result.records) ? result.records : []) as FileRow[];
    return { rows, affected: rows.length };
  } finally {
    if (own) {
      await runner.release();
    }
  }
}

/** A new file row; `content` null when its bytes are stored in chunks. */
interface NewFileRow {
  id: string;
  partnerId: string;
  folder: PartnerFolder;
  name: string;
  content: Buffer | null;
  size: number;
  sha256: string;
  messageId?: string | null;
  kind?: string | null;
}

/**
 * Marks removed at `now` the live versions `where` (its parameters from $2) picks; answers how many.
 * The bytes of those no message reads (an inbound upload replaced, e.g. resumed, which copies it;
 * removed; undone; renamed over) go too, the row staying for the record: a partner re-opening a
 * 256 MiB upload without writing kept a copy a round trip.
 */
async function removeVersions(manager: EntityManager, now: Date, where: string, params: unknown[]): Promise<number> {
  const { rows } = await exec(
    manager,
    `UPDATE partner_file SET removed_at = $1 WHERE ${where} AND removed_at IS NULL RETURNING id, folder, message_id`,
    [now, ...params],
  );
  const ids = rows.filter((row) => row.folder === 'inbound' && row.message_id == null).map((row) => row.id);
  if (ids.length > 0) {
    await exec(manager, `DELETE FROM partner_file_chunk WHERE file_id = ANY($1::uuid[])`, [ids]);
  }
  return rows.length;
}

/**
 * `work` (a transaction writing live files), run again when another writer of the same name
 * committed first: the partial unique index refuses the second insert, and the retry replaces the
 * first writer's file, as if it had come second. Two uploads of one name finishing at once failed
 * the second otherwise.
 */
async function nameTakenRetried<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      // Each round one of the writers commits: a few more tries than uploads of one partner at once.
      if (pgCode(error) !== UNIQUE_VIOLATION || pgConstraint(error) !== LIVE_NAME_INDEX || attempt >= 10) {
        throw error;
      }
    }
  }
}
const LIVE_NAME_INDEX = 'partner_file_live_name_idx';

/** Inserts a live file in place of any live file of its name, which is kept marked removed at `now`. */
async function replaceLive(manager: EntityManager, file: NewFileRow, now: Date): Promise<PartnerFileInfo> {
  await removeVersions(manager, now, `partner_id = $2 AND folder = $3 AND name = $4`, [
    file.partnerId,
    file.folder,
    file.name,
  ]);
  const { rows } = await exec(
    manager,
    `INSERT INTO partner_file (id, partner_id, folder, name, content, size, sha256, created_at, message_id, kind)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     RETURNING ${INFO_COLUMNS}`,
    [
      file.id,
      file.partnerId,
      file.folder,
      file.name,
      file.content,
      file.size,
      file.sha256,
      now,
      file.messageId ?? null,
      file.kind ?? null,
    ],
  );
  return toInfo(rows[0]);
}

export const sha256Hex = (content: Buffer): string => createHash('sha256').update(content).digest('hex');

/**
 * The partners' virtual file system (`partner_file`): two flat folders per partner, `inbound` and
 * `outbound`. Every method takes the partner id and only ever touches that partner's rows: there is
 * no way to reach another partner's files through this class. Removing or replacing a file keeps
 * its row (with `removed_at`) for the record; only live files are listed, read or renamed.
 */
export class PartnerFileRepository {
  private readonly now: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    options: PartnerFileRepositoryOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Stores a file, replacing a live file of the same name (the old row is kept, removed). Throws
   * PartnerNotFoundError for an unknown partner, InvalidPartnerFilePathError for a bad folder or name.
   */
  async put(
    partnerId: string,
    folder: PartnerFolder,
    name: string,
    content: Buffer,
    options: PutFileOptions = {},
  ): Promise<PartnerFileInfo> {
    const [info] = await this.putMany(partnerId, folder, [{ name, content, ...options }]);
    return info;
  }

  /**
   * Stores several files as `put` does, in one transaction of two statements: a translation's
   * 997/TA1s, one per interchange, are one commit (a file of 10,000 interchanges waited ~16 s on
   * a commit each). Of two files of the same name, the later is kept. Answers them in no order.
   */
  async putMany(
    partnerId: string,
    folder: PartnerFolder,
    files: readonly ({ name: string; content: Buffer } & PutFileOptions)[],
  ): Promise<PartnerFileInfo[]> {
    files.forEach(({ name }) => this.checkPath(folder, name));
    if (!PARTNER_ID_PATTERN.test(partnerId)) {
      throw new PartnerNotFoundError(partnerId);
    }
    for (const { content, messageId } of files) {
      if (!Buffer.isBuffer(content)) {
        throw new TypeError('content must be a Buffer');
      }
      if (messageId != null && !UUID.test(messageId)) {
        throw new RangeError(`messageId is not a uuid: ${messageId}`);
      }
    }
    const rows = [...new Map(files.map((file) => [file.name, file])).values()];
    try {
      return await nameTakenRetried(() => {
        const now = this.now();
        return this.dataSource.transaction(async (manager) => {
          await removeVersions(manager, now, `partner_id = $2 AND folder = $3 AND name = ANY($4::text[])`, [
            partnerId,
            folder,
            rows.map((row) => row.name),
          ]);
          const { rows: inserted } = await exec(
            manager,
            `INSERT INTO partner_file (id, partner_id, folder, name, content, size, sha256, created_at, message_id, kind)
             SELECT id, $1, $2, name, content, octet_length(content), sha256, $3, message_id, kind
               FROM unnest($4::uuid[], $5::text[], $6::bytea[], $7::text[], $8::uuid[], $9::text[])
                 AS f (id, name, content, sha256, message_id, kind)
             RETURNING ${INFO_COLUMNS}`,
            [
              partnerId,
              folder,
              now,
              rows.map(() => randomUUID()),
              rows.map((row) => row.name),
              rows.map((row) => row.content),
              rows.map((row) => sha256Hex(row.content)),
              rows.map((row) => row.messageId ?? null),
              rows.map((row) => row.kind ?? null),
            ],
          );
          return inserted.map(toInfo);
        });
      });
    } catch (error) {
      if (pgCode(error) === FOREIGN_KEY_VIOLATION && pgConstraint(error) === 'partner_file_partner_id_fkey') {
        throw new PartnerNotFoundError(partnerId);
      }
      throw error;
    }
  }

  /**
   * A page of the folder's live files by name, without content: those after `after` (a name), at
   * most `limit` (≤ LIST_PAGE_MAX). A partner grows its folders (every upload, every 997), so a
   * listing is read a page at a time, never whole.
   */
  async list(
    partnerId: string,
    folder: PartnerFolder,
    page: { after?: string; limit?: number } = {},
  ): Promise<PartnerFileInfo[]> {
    if (!isPartnerFolder(folder)) {
      throw new InvalidPartnerFilePathError(String(folder), '');
    }
    if (!PARTNER_ID_PATTERN.test(partnerId)) {
      return [];
    }
    const limit = Math.min(Math.max(Math.trunc(page.limit ?? LIST_PAGE_MAX), 1), LIST_PAGE_MAX);
    const { rows } = await exec(
      this.dataSource.manager,
      `SELECT ${INFO_COLUMNS} FROM partner_file
        WHERE partner_id = $1 AND folder = $2 AND removed_at IS NULL AND ($3::text IS NULL OR name > $3)
        ORDER BY name LIMIT $4`,
      [partnerId, folder, page.after ?? null, limit],
    );
    return rows.map(toInfo);
  }

  /** A live file's metadata, or null. */
  async stat(partnerId: string, folder: PartnerFolder, name: string): Promise<PartnerFileInfo | null> {
    if (!this.validPath(partnerId, folder, name)) {
      return null;
    }
    const { rows } = await exec(
      this.dataSource.manager,
      `SELECT ${INFO_COLUMNS} FROM partner_file
        WHERE partner_id = $1 AND folder = $2 AND name = $3 AND removed_at IS NULL`,
      [partnerId, folder, name],
    );
    return rows[0] ? toInfo(rows[0]) : null;
  }

  /** A live file with its bytes, or null. Read slice by slice (READ_SLICE_BYTES); `readRange` and `slicesOf` hold less. */
  async read(partnerId: string, folder: PartnerFolder, name: string): Promise<PartnerFileWithContent | null> {
    const info = await this.stat(partnerId, folder, name);
    if (!info) {
      return null;
    }
    const content = Buffer.allocUnsafe(info.size);
    let offset = 0;
    for await (const slice of this.slicesOf(partnerId, info.id)) {
      slice.copy(content, offset);
      offset += slice.length;
    }
    if (offset !== info.size) {
      throw new Error(`partner file ${info.id} holds ${offset} bytes, not the ${info.size} recorded`);
    }
    return { ...info, content };
  }

  /**
   * A file's bytes in order, a slice (at most `sliceBytes`, READ_SLICE_BYTES by default) at a time;
   * nothing for a file the partner does not have.
   */
  slicesOf(partnerId: string, fileId: string, sliceBytes = READ_SLICE_BYTES): AsyncGenerator<Buffer> {
    return this.slices(partnerId, fileId, sliceBytes, (...at) => this.readStored(...at));
  }

  /** slicesOf as latin1 text, a character a byte (what a reader that can take ASCII text as it is wants). */
  latin1SlicesOf(partnerId: string, fileId: string, sliceBytes = READ_SLICE_BYTES): AsyncGenerator<string> {
    return this.slices(partnerId, fileId, sliceBytes, (...at) => this.readStoredText(...at));
  }

  private async *slices<T>(
    partnerId: string,
    fileId: string,
    sliceBytes: number,
    readSlice: (fileId: string, chunked: boolean, offset: number, length: number) => Promise<T>,
  ): AsyncGenerator<T> {
    const stored = await this.storage(partnerId, fileId);
    if (!stored) {
      return;
    }
    const read = (offset: number) => {
      const slice = readSlice(fileId, stored.chunked, offset, Math.min(sliceBytes, stored.size - offset));
      slice.catch(() => undefined); // a consumer that stops early never awaits it: its failure is no crash
      return slice;
    };
    // The next slice is on its way while this one is used: the reader and Postgres work at once.
    let next = stored.size > 0 ? read(0) : undefined;
    for (let offset = sliceBytes; next; offset += sliceBytes) {
      const slice = await next;
      next = offset < stored.size ? read(offset) : undefined;
      yield slice;
    }
  }

  /** Bytes `offset` to `offset + length - 1` of a file (fewer at its end); empty past the end or for a file the partner does not have. */
  async readRange(partnerId: string, fileId: string, offset: number, length: number): Promise<Buffer> {
    const stored = await this.storage(partnerId, fileId);
    if (!stored || offset >= stored.size || length <= 0) {
      return Buffer.alloc(0);
    }
    return this.readStored(fileId, stored.chunked, offset, Math.min(length, stored.size - offset));
  }

  /** Stores one chunk of an upload in progress (`seq` from 0; FILE_CHUNK_BYTES each but the last). A retried chunk replaces itself. */
  async appendChunk(fileId: string, seq: number, data: Buffer): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO partner_file_chunk (file_id, seq, data) VALUES ($1, $2, $3)
       ON CONFLICT (file_id, seq) DO UPDATE SET data = EXCLUDED.data`,
      [fileId, seq, data],
    );
  }

  /** Bytes of an upload still in progress (its chunks stored so far, no file row yet). */
  async readUploadRange(fileId: string, offset: number, length: number): Promise<Buffer> {
    return this.readStored(fileId, true, offset, length);
  }

  /** Removes the chunks of an upload that will not complete (refused, or cut off). */
  async discardChunks(fileId: string): Promise<void> {
    if (UUID.test(fileId)) {
      await this.dataSource.query(`DELETE FROM partner_file_chunk WHERE file_id = $1`, [fileId]);
    }
  }

  /**
   * Chunks of uploads that never became a file (the process died mid-upload, or its discard
   * failed) and got no chunk since `idleSince`: an upload still going keeps adding chunks. Returns
   * how many chunks went.
   */
  async purgeAbandonedChunks(idleSince: Date): Promise<number> {
    const { affected } = await exec(
      this.dataSource.manager,
      `DELETE FROM partner_file_chunk c
        WHERE c.file_id IN (SELECT file_id FROM partner_file_chunk GROUP BY file_id HAVING max(created_at) < $1)
          AND NOT EXISTS (SELECT 1 FROM partner_file f WHERE f.id = c.file_id)
        RETURNING 1`,
      [idleSince],
    );
    return affected;
  }

  /**
   * Makes an upload whose chunks are stored a live inbound file (replacing a live file of its name)
   * and, given `becomes`, records its message in the same transaction: the file and its message
   * commit together, so no file is left that nothing processes.
   */
  async completeUpload(upload: StoredUpload, becomes?: FileBecomes): Promise<PartnerFileInfo> {
    this.checkPath('inbound', upload.name);
    return nameTakenRetried(() =>
      this.dataSource.transaction(async (manager) => {
        const file = await replaceLive(manager, { ...upload, folder: 'inbound', content: null }, this.now());
        if (!becomes) {
          return file;
        }
        const messageId = await becomes(manager, file);
        await exec(manager, `UPDATE partner_file SET message_id = $2 WHERE id = $1`, [file.id, messageId]);
        return { ...file, messageId };
      }),
    );
  }

  /**
   * Makes chunks stored as they were written (a 997 too large to hold, `appendChunk`) a live outbound
   * file, replacing a live file of its name, as `put` does for a file written whole.
   */
  async completeOutbound(file: StoredUpload, options: PutFileOptions = {}): Promise<PartnerFileInfo> {
    this.checkPath('outbound', file.name);
    if (options.messageId != null && !UUID.test(options.messageId)) {
      throw new RangeError(`messageId is not a uuid: ${options.messageId}`);
    }
    return nameTakenRetried(() =>
      this.dataSource.transaction((manager) =>
        replaceLive(manager, { ...file, folder: 'outbound', content: null, ...options }, this.now()),
      ),
    );
  }

  /** Records the message a stored file becomes (a temporary upload renamed to its final name), with the link, in one transaction. */
  async becomeMessage(file: PartnerFileInfo, becomes: FileBecomes): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      const messageId = await becomes(manager, file);
      const { affected } = await exec(
        manager,
        `UPDATE partner_file SET message_id = $3 WHERE id = $1 AND partner_id = $2 AND message_id IS NULL RETURNING id`,
        [file.id, file.partnerId, messageId],
      );
      if (affected === 0) {
        throw new Error(`${file.folder}/${file.name} became a message already, or is gone`);
      }
      return messageId;
    });
  }

  private async storage(partnerId: string, fileId: string): Promise<{ size: number; chunked: boolean } | null> {
    if (!PARTNER_ID_PATTERN.test(partnerId) || !UUID.test(fileId)) {
      return null;
    }
    const { rows } = await exec(
      this.dataSource.manager,
      `SELECT size, content IS NULL AS chunked FROM partner_file WHERE id = $1 AND partner_id = $2`,
      [fileId, partnerId],
    );
    const row = rows[0] as unknown as { size: number | string; chunked: boolean } | undefined;
    return row ? { size: Number(row.size), chunked: row.chunked === true } : null;
  }

  /** `length` bytes from `offset`, all within the file: from its chunks, or from its content column. */
  private async readStored(fileId: string, chunked: boolean, offset: number, length: number): Promise<Buffer> {
    return Buffer.from(await this.readStoredText(fileId, chunked, offset, length), 'latin1');
  }

  /**
   * readStored as latin1 text: a character a byte, each byte exactly (Postgres' `convert_from(..,
   * 'LATIN1')`, which the driver hands out as it arrives). Reading 100 MiB took the reader ~0.25 s of
   * CPU as text against ~0.7 s as `bytea`, which travels as hex decoded in JS (bench/README.md); text
   * holds no NUL byte, so a slice with one is read as `bytea`.
   */
  private async readStoredText(fileId: string, chunked: boolean, offset: number, length: number): Promise<string> {
    let text: string;
    try {
      text = (await this.readStoredParts('latin1', fileId, chunked, offset, length)).join('');
    } catch (error) {
      if (pgCode(error) !== NOT_IN_REPERTOIRE) {
        throw error;
      }
      const parts = await this.readStoredParts('bytea', fileId, chunked, offset, length);
      text = Buffer.concat(parts.map(toBuffer)).toString('latin1');
    }
    if (text.length !== length) {
      throw new Error(`partner file ${fileId}: ${text.length} bytes at offset ${offset}, not ${length}`);
    }
    return text;
  }

  /** The slice's values as the driver gives them (`latin1` text or `bytea`), a row per chunk it spans. */
  private async readStoredParts(
    as: 'latin1' | 'bytea',
    fileId: string,
    chunked: boolean,
    offset: number,
    length: number,
  ): Promise<unknown[]> {
    const value = (bytes: string) => (as === 'latin1' ? `convert_from(${bytes}, 'LATIN1')` : bytes);
    if (!chunked) {
      const { rows } = await exec(
        this.dataSource.manager,
        `SELECT ${value('substring(content FROM $2 FOR $3)')} AS content FROM partner_file WHERE id = $1`,
        [fileId, offset + 1, length],
      );
      return [rows[0]?.content ?? ''];
    }
    const first = Math.floor(offset / FILE_CHUNK_BYTES);
    const last = Math.floor((offset + length - 1) / FILE_CHUNK_BYTES);
    const parts: unknown[] = [];
    // Only the slice's bytes of each chunk travel: a small slice is a small string.
    for (let from = first; from <= last; from += CHUNKS_PER_READ) {
      const rows: { data: unknown }[] = await this.dataSource.query(
        `SELECT ${value(`substring(data
           FROM (greatest($2::bigint, seq::bigint * $4) - seq::bigint * $4 + 1)::int
           FOR (least($2::bigint + $3, (seq::bigint + 1) * $4) - greatest($2::bigint, seq::bigint * $4))::int)`)} AS data
         FROM partner_file_chunk WHERE file_id = $1 AND seq BETWEEN $5 AND $6 ORDER BY seq`,
        [fileId, offset, length, FILE_CHUNK_BYTES, from, Math.min(last, from + CHUNKS_PER_READ - 1)],
      );
      parts.push(...rows.map((row) => row.data));
    }
    return parts;
  }

  /** Records the partner's first read of a file (later reads leave the time alone). */
  async markFetched(partnerId: string, fileId: string): Promise<void> {
    if (PARTNER_ID_PATTERN.test(partnerId) && UUID.test(fileId)) {
      await this.dataSource.query(
        `UPDATE partner_file SET fetched_at = $3 WHERE id = $1 AND partner_id = $2 AND fetched_at IS NULL`,
        [fileId, partnerId, this.now()],
      );
    }
  }

  /** Removes a live file (its row stays, marked removed). False when there was none. */
  async remove(partnerId: string, folder: PartnerFolder, name: string): Promise<boolean> {
    if (!this.validPath(partnerId, folder, name)) {
      return false;
    }
    return this.dataSource.transaction(
      async (manager) =>
        (await removeVersions(manager, this.now(), `partner_id = $2 AND folder = $3 AND name = $4`, [
          partnerId,
          folder,
          name,
        ])) > 0,
    );
  }

  /**
   * Renames a live file within its folder. Throws PartnerFileNotFoundError when `from` is not
   * there, PartnerFileExistsError when `to` is (unless `overwrite`, which removes that file).
   */
  async rename(
    partnerId: string,
    folder: PartnerFolder,
    from: string,
    to: string,
    options: RenameFileOptions = {},
  ): Promise<PartnerFileInfo> {
    this.checkPath(folder, from);
    this.checkPath(folder, to);
    if (!PARTNER_ID_PATTERN.test(partnerId)) {
      throw new PartnerFileNotFoundError(partnerId, folder, from);
    }
    try {
      return await this.dataSource.transaction(async (manager) => {
        const { rows: source } = await exec(
          manager,
          `SELECT ${INFO_COLUMNS} FROM partner_file
            WHERE partner_id = $1 AND folder = $2 AND name = $3 AND removed_at IS NULL FOR UPDATE`,
          [partnerId, folder, from],
        );
        if (!source[0]) {
          throw new PartnerFileNotFoundError(partnerId, folder, from);
        }
        if (from === to) {
          return toInfo(source[0]);
        }
        const { rows: target } = await exec(
          manager,
          `SELECT id FROM partner_file
            WHERE partner_id = $1 AND folder = $2 AND name = $3 AND removed_at IS NULL FOR UPDATE`,
          [partnerId, folder, to],
        );
        if (target[0]) {
          if (!options.overwrite) {
            throw new PartnerFileExistsError(partnerId, folder, to);
          }
          await removeVersions(manager, this.now(), `id = $2`, [target[0].id]);
        }
        const { rows } = await exec(
          manager,
          `UPDATE partner_file SET name = $2 WHERE id = $1 RETURNING ${INFO_COLUMNS}`,
          [source[0].id, to],
        );
        return toInfo(rows[0]);
      });
    } catch (error) {
      // A file created under `to` between our check and the update.
      if (pgCode(error) === UNIQUE_VIOLATION) {
        throw new PartnerFileExistsError(partnerId, folder, to);
      }
      throw error;
    }
  }

  /** Records the message a file became (inbound) or belongs to. False when the partner has no such file. */
  async linkMessage(partnerId: string, fileId: string, messageId: string): Promise<boolean> {
    if (!PARTNER_ID_PATTERN.test(partnerId) || !UUID.test(fileId)) {
      return false;
    }
    if (!UUID.test(messageId)) {
      throw new RangeError(`messageId is not a uuid: ${messageId}`);
    }
    const { affected } = await exec(
      this.dataSource.manager,
      `UPDATE partner_file SET message_id = $3 WHERE id = $1 AND partner_id = $2 RETURNING id`,
      [fileId, partnerId, messageId],
    );
    return affected > 0;
  }

  /**
   * A message's files, live or removed, oldest first, the first `limit` of them, and how many it has:
   * the upload it came from, the 997s and TA1s written for it (one per interchange: thousands in a
   * large file), an export's file. `removedAt` tells when the partner removed it (fetched, as a
   * rule) or a newer file of the same name replaced it.
   */
  async listByMessage(messageId: string, limit: number): Promise<{ files: PartnerFileRecord[]; total: number }> {
    if (!UUID.test(messageId)) {
      return { files: [], total: 0 };
    }
    const { rows } = await exec(
      this.dataSource.manager,
      `SELECT ${INFO_COLUMNS}, removed_at, fetched_at, count(*) OVER () AS total FROM partner_file
        WHERE message_id = $1 ORDER BY created_at, folder, name LIMIT $2`,
      [messageId, limit],
    );
    return {
      files: rows.map((row) => ({
        ...toInfo(row),
        removedAt: row.removed_at ? new Date(row.removed_at) : null,
        fetchedAt: row.fetched_at ? new Date(row.fetched_at) : null,
      })),
      total: rows.length > 0 ? Number(rows[0].total) : 0,
    };
  }

  /** Removes one particular version of a file (by id) if it is still live; used to undo a failed upload. */
  async removeById(partnerId: string, fileId: string): Promise<boolean> {
    if (!PARTNER_ID_PATTERN.test(partnerId) || !UUID.test(fileId)) {
      return false;
    }
    return this.dataSource.transaction(
      async (manager) =>
        (await removeVersions(manager, this.now(), `id = $2 AND partner_id = $3`, [fileId, partnerId])) > 0,
    );
  }

  private validPath(partnerId: string, folder: PartnerFolder, name: string): boolean {
    if (!isPartnerFolder(folder)) {
      throw new InvalidPartnerFilePathError(String(folder), String(name));
    }
    return PARTNER_ID_PATTERN.test(partnerId) && isPartnerFileName(name);
  }

  private checkPath(folder: PartnerFolder, name: string): void {
    if (!isPartnerFolder(folder) || !isPartnerFileName(name)) {
      throw new InvalidPartnerFilePathError(String(folder), String(name));
    }
  }
}
