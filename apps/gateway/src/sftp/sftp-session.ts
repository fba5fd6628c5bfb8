import { Logger } from '@nestjs/common';
import type { Attributes, FileEntry, SFTPWrapper } from 'ssh2';
import { utils } from 'ssh2';
import {
  PartnerFileExistsError,
  PartnerFileInfo,
  PartnerFileNotFoundError,
  PartnerFileRepository,
  PartnerFolder,
} from '@dockbridge/partners';
import {
  InboundUpload,
  ReceiveUpload,
  UploadRefused,
  UploadsBusy,
  UploadTooLarge,
  WriteRefused,
} from '@dockbridge/pipeline';
import { isTemporaryUploadName, resolveVirtualPath, VirtualPath } from './virtual-path';

const { OPEN_MODE, STATUS_CODE } = utils.sftp;

const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
/** Open handles one session may hold at once (a write handle holds a chunk or two and the writes ahead of it). */
export const MAX_OPEN_HANDLES = 64;
/** Entries per READDIR answer. */
const READDIR_BATCH = 100;
/** Largest READ answer (clients ask for 32 KiB or 256 KiB). */
const MAX_READ_CHUNK = 256 * 1024;

export interface SftpSessionContext {
  partnerId: string;
  username: string;
  files: PartnerFileRepository;
  ingest: ReceiveUpload;
  maxFileBytes: number;
  /** Registers work the server must let finish before shutting down (a CLOSE being recorded). */
  track<T>(work: Promise<T>): Promise<T>;
  /** Whether the login still holds (account not revoked, partner enabled): asked before each file is listed, opened, received or removed. */
  stillAllowed(): Promise<boolean>;
  /** Ends the whole SSH connection (every channel of it): the login no longer holds. */
  disconnect(): void;
}

interface DirHandle {
  type: 'dir';
  path: string;
  /** The folder listed, a page per READDIR after the last name answered; null for the root. */
  folder: PartnerFolder | null;
  after: string | undefined;
  done: boolean;
  /** The READDIR being answered: a client may send the next before this one's answer. */
  reading: Promise<void>;
}
interface ReadHandle {
  type: 'read';
  folder: PartnerFolder;
  name: string;
  /** The version opened: read on demand, a READ at a time. */
  info: PartnerFileInfo;
  /** Its first read was recorded (`fetchedAt`). */
  fetched: boolean;
}
interface WriteHandle {
  type: 'write';
  folder: 'inbound';
  name: string;
  upload: InboundUpload;
  /** A write was refused (logged once per upload: a client may retry many). */
  refusedWrite: boolean;
  /** Why the upload can no longer succeed (too large); CLOSE answers FAILURE with it. */
  failed: string | null;
  openedAt: Date;
}
type Handle = DirHandle | ReadHandle | WriteHandle;

class SftpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
const denied = (what = 'permission denied') => new SftpError(STATUS_CODE.PERMISSION_DENIED, what);
const noSuchFile = (path: string) => new SftpError(STATUS_CODE.NO_SUCH_FILE, `no such file: ${path}`);
const failure = (what: string) => new SftpError(STATUS_CODE.FAILURE, what);

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An `ls -l` line, as OpenSSH's sftp-server writes it. */
export function longName(name: string, attrs: Attributes, owner: string, now = new Date()): string {
  const mode = attrs.mode;
  const type = (mode & S_IFDIR) === S_IFDIR ? 'd' : '-';
  const bits = [0o400, 0o200, 0o100, 0o040, 0o020, 0o010, 0o004, 0o002, 0o001]
    .map((bit, i) => (mode & bit ? 'rwx'[i % 3] : '-'))
    .join('');
  const when = new Date(attrs.mtime * 1000);
  const recent = Math.abs(now.getTime() - when.getTime()) < 182 * 24 * 3600 * 1000;
  const pad2 = (n: number) => String(n).padStart(2, '0');
  const date = `${MONTHS[when.getUTCMonth()]} ${String(when.getUTCDate()).padStart(2, ' ')} ${
    recent ? `${pad2(when.getUTCHours())}:${pad2(when.getUTCMinutes())}` : ` ${when.getUTCFullYear()}`
  }`;
  const user = owner.slice(0, 8).padEnd(8, ' ');
  return `${type}${bits}    1 ${user} ${user} ${String(attrs.size).padStart(8, ' ')} ${date} ${name}`;
}

/**
 * One partner's SFTP session over its virtual tree: `/` holds `inbound` and `outbound`, both
 * backed by `partner_file`. Uploads go to `inbound` (stored a chunk at a time as their writes
 * arrive, up to `maxFileBytes`: ReceiveUpload) and become messages when their handle closes (or when a `.tmp`/`.part`/`.filepart` upload is renamed
 * to a final name); `outbound` is read and removed by the partner. Every path is resolved by
 * `resolveVirtualPath`; the partner id comes from authentication, never from the client.
 */
export class SftpSession {
  private readonly logger = new Logger('Sftp');
  private readonly handles = new Map<number, Handle>();
  private nextHandle = 1;
  private readonly started = new Date();

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly ctx: SftpSessionContext,
  ) {
    // any: each handler names the argument types ssh2 passes for its event.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const on = (event: string, work: (reqid: number, ...args: any[]) => Promise<void> | void) =>
      sftp.on(event, (reqid: number, ...args: unknown[]) => this.run(event, reqid, () => work(reqid, ...args)));
    on('REALPATH', (reqid, path: string) => this.realpath(reqid, path));
    on('STAT', (reqid, path: string) => this.stat(reqid, path));
    on('LSTAT', (reqid, path: string) => this.stat(reqid, path));
    on('FSTAT', (reqid, handle: Buffer) => this.fstat(reqid, handle));
    on('OPENDIR', (reqid, path: string) => this.opendir(reqid, path));
    on('READDIR', (reqid, handle: Buffer) => this.readdir(reqid, handle));
    on('OPEN', (reqid, path: string, flags: number) => this.open(reqid, path, flags));
    on('READ', (reqid, handle: Buffer, offset: number, length: number) => this.read(reqid, handle, offset, length));
    on('WRITE', (reqid, handle: Buffer, offset: number, data: Buffer) => this.write(reqid, handle, offset, data));
    on('CLOSE', (reqid, handle: Buffer) => this.close(reqid, handle));
    on('REMOVE', (reqid, path: string) => this.remove(reqid, path));
    on('RENAME', (reqid, from: string, to: string) => this.rename(reqid, from, to));
    on('SETSTAT', (reqid, path: string) => this.setstat(reqid, path));
    on('FSETSTAT', (reqid, handle: Buffer) => {
      this.handle(handle);
      sftp.status(reqid, STATUS_CODE.OK);
    });
    on('MKDIR', () => {
      throw denied('folders cannot be created: use /inbound and /outbound');
    });
    on('RMDIR', () => {
      throw denied('folders cannot be removed');
    });
    // Without this OpenSSH's sftp waits forever after `bye` (see ../shared/STACK.md).
    sftp.on('end', () => sftp.end());
    sftp.on('close', () => this.dispose());
    sftp.on('error', (error: Error) =>
      this.logger.debug({ msg: 'sftp channel error', partnerId: ctx.partnerId, error: error.message }),
    );
  }

  /** Runs one request; any SftpError (or unexpected error) becomes the request's status. */
  private run(event: string, reqid: number, work: () => Promise<void> | void): void {
    const reply = (error: unknown) => {
      if (error instanceof SftpError) {
        return this.safeStatus(reqid, error.code, error.message);
      }
      this.logger.error({
        msg: 'sftp request failed',
        event,
        partnerId: this.ctx.partnerId,
        error: (error as Error)?.message,
      });
      this.safeStatus(reqid, STATUS_CODE.FAILURE, 'internal error; try again');
    };
    try {
      const result = work();
      if (result && typeof result.then === 'function') {
        result.catch(reply);
      }
    } catch (error) {
      reply(error);
    }
  }

  private safeStatus(reqid: number, code: number, message?: string): void {
    try {
      this.sftp.status(reqid, code, message);
    } catch {
      // The channel is gone; nothing to answer.
    }
  }

  private realpath(reqid: number, path: string): void {
    const target = resolveVirtualPath(path);
    if (target.kind === 'denied') {
      throw denied(target.reason);
    }
    const attrs = target.kind === 'file' ? undefined : this.dirAttrs(target.kind === 'root' ? 0o555 : 0o755);
    this.sftp.name(reqid, [
      {
        filename: target.path,
        longname: attrs ? longName(target.path, attrs, this.ctx.username) : target.path,
        attrs: attrs as Attributes,
      },
    ]);
  }

  private async stat(reqid: number, path: string): Promise<void> {
    this.sftp.attrs(reqid, await this.attrsOf(resolveVirtualPath(path)));
  }

  private fstat(reqid: number, raw: Buffer): void {
    const handle = this.handle(raw);
    if (handle.type === 'dir') {
      return this.sftp.attrs(reqid, this.dirAttrs(handle.path === '/' ? 0o555 : 0o755));
    }
    const size = handle.type === 'write' ? handle.upload.size : handle.info.size;
    const mtime = handle.type === 'write' ? handle.openedAt : handle.info.createdAt;
    this.sftp.attrs(reqid, this.fileAttrs(size, mtime));
  }

  private async opendir(reqid: number, path: string): Promise<void> {
    await this.ensureAllowed();
    const target = resolveVirtualPath(path);
    if (target.kind === 'denied') {
      throw denied(target.reason);
    }
    if (target.kind === 'file') {
      if (await this.ctx.files.stat(this.ctx.partnerId, target.folder, target.name)) {
        throw failure(`not a directory: ${target.path}`);
      }
      throw noSuchFile(target.path);
    }
    const folder = target.kind === 'root' ? null : target.folder;
    this.sftp.handle(
      reqid,
      this.open_({ type: 'dir', path: target.path, folder, after: undefined, done: false, reading: Promise.resolve() }),
    );
  }

  /** The next page of a listing, read when asked: a folder may hold any number of files. */
  private readdir(reqid: number, raw: Buffer): Promise<void> {
    const handle = this.handle(raw);
    if (handle.type !== 'dir') {
      throw failure('not a directory handle');
    }
    const answer = handle.reading.then(() => this.nextEntries(handle));
    handle.reading = answer.then(
      () => undefined,
      () => undefined,
    );
    return answer.then((entries) => {
      if (entries.length === 0) {
        throw new SftpError(STATUS_CODE.EOF, 'end of directory');
      }
      this.sftp.name(reqid, entries);
    });
  }

  private async nextEntries(handle: DirHandle): Promise<FileEntry[]> {
    if (handle.done) {
      return [];
    }
    if (handle.folder === null) {
      handle.done = true;
      const attrs = this.dirAttrs(0o755);
      return ['inbound', 'outbound'].map((name) => ({
        filename: name,
        longname: longName(name, attrs, this.ctx.username),
        attrs,
      }));
    }
    await this.ensureAllowed();
    const files = await this.ctx.files.list(this.ctx.partnerId, handle.folder, {
      after: handle.after,
      limit: READDIR_BATCH,
    });
    handle.after = files.at(-1)?.name;
    handle.done = files.length < READDIR_BATCH;
    return files.map((file) => {
      const attrs = this.fileAttrs(file.size, file.createdAt);
      return { filename: file.name, longname: longName(file.name, attrs, this.ctx.username), attrs };
    });
  }

  /** A revoked account or a disabled partner ends open connections at their next file operation. */
  private async ensureAllowed(): Promise<void> {
    if (await this.ctx.stillAllowed()) {
      return;
    }
    this.logger.warn({
      msg: 'sftp session ended: account revoked or partner disabled',
      partnerId: this.ctx.partnerId,
      username: this.ctx.username,
    });
    // After the refusal is sent; the connection, not just this channel: a new channel would be a new session.
    setImmediate(() => this.ctx.disconnect());
    throw denied('this SFTP account was revoked or its partner disabled since login; nothing more is accepted');
  }

  private async open(reqid: number, path: string, flags: number): Promise<void> {
    await this.ensureAllowed();
    const target = resolveVirtualPath(path);
    if (target.kind === 'denied') {
      throw denied(target.reason);
    }
    if (target.kind !== 'file') {
      throw failure(`is a directory: ${target.path}`);
    }
    const writing = (flags & (OPEN_MODE.WRITE | OPEN_MODE.APPEND | OPEN_MODE.CREAT | OPEN_MODE.TRUNC)) !== 0;
    const { partnerId } = this.ctx;

    if (!writing) {
      const info = await this.ctx.files.stat(partnerId, target.folder, target.name);
      if (!info) {
        throw noSuchFile(target.path);
      }
      this.sftp.handle(
        reqid,
        this.open_({ type: 'read', folder: target.folder, name: target.name, info, fetched: false }),
      );
      return;
    }

    if (target.folder !== 'inbound') {
      throw denied('outbound/ is read-only: upload to /inbound');
    }
    const existing = await this.ctx.files.stat(partnerId, 'inbound', target.name);
    if (existing && flags & OPEN_MODE.EXCL) {
      throw failure(`file exists: ${target.path}`);
    }
    // Resuming or appending: only to an upload that has not become a message yet.
    const resuming = existing && !(flags & OPEN_MODE.TRUNC) ? existing : null;
    if (resuming?.messageId) {
      throw denied(`${target.path} was already received (message ${resuming.messageId}); upload under a new name`);
    }
    if (resuming && resuming.size > this.ctx.maxFileBytes) {
      throw this.tooLarge(target.name, resuming.size);
    }
    let upload: InboundUpload;
    try {
      upload = resuming
        ? await this.ctx.ingest.resume(resuming, this.ctx.maxFileBytes)
        : this.ctx.ingest.start(partnerId, target.name, this.ctx.maxFileBytes);
    } catch (error) {
      if (error instanceof UploadsBusy) {
        throw failure(error.message);
      }
      throw error;
    }
    this.sftp.handle(
      reqid,
      this.open_({
        type: 'write',
        folder: 'inbound',
        name: target.name,
        upload,
        refusedWrite: false,
        failed: null,
        openedAt: new Date(),
      }),
    );
  }

  private async read(reqid: number, raw: Buffer, offset: number, length: number): Promise<void> {
    const handle = this.handle(raw);
    const wanted = Math.min(length, MAX_READ_CHUNK);
    let data: Buffer;
    if (handle.type === 'read') {
      data = await this.ctx.files.readRange(this.ctx.partnerId, handle.info.id, offset, wanted);
      if (!handle.fetched) {
        // "Did the carrier fetch its 997?": its first read answers it (a failure to record it is logged, not the partner's).
        handle.fetched = true;
        await this.ctx.files
          .markFetched(this.ctx.partnerId, handle.info.id)
          .catch((error: Error) =>
            this.logger.warn({ msg: 'sftp fetch not recorded', partnerId: this.ctx.partnerId, error: error.message }),
          );
      }
    } else if (handle.type === 'write') {
      data = await handle.upload.readWritten(offset, wanted);
    } else {
      throw failure('not a file handle');
    }
    if (data.length === 0) {
      throw new SftpError(STATUS_CODE.EOF, 'end of file');
    }
    this.sftp.data(reqid, data);
  }

  private async write(reqid: number, raw: Buffer, offset: number, data: Buffer): Promise<void> {
    const handle = this.handle(raw);
    if (handle.type !== 'write') {
      throw denied('this file was not opened for writing');
    }
    if (handle.failed) {
      throw failure(handle.failed);
    }
    try {
      await handle.upload.write(offset, data);
    } catch (error) {
      if (error instanceof WriteRefused) {
        throw this.writeRefused(handle, error);
      }
      if (!(error instanceof UploadTooLarge)) {
        throw error;
      }
      handle.failed = this.tooLarge(handle.name, error.atLeastBytes).message;
      void handle.upload.discard().catch(() => undefined);
      throw failure(handle.failed);
    }
    this.sftp.status(reqid, STATUS_CODE.OK);
  }

  private writeRefused(handle: WriteHandle, error: WriteRefused): SftpError {
    if (!handle.refusedWrite) {
      handle.refusedWrite = true;
      this.logger.warn({
        msg: 'sftp write refused',
        partnerId: this.ctx.partnerId,
        fileName: handle.name,
        reason: error.message,
      });
    }
    return failure(error.message);
  }

  /** An upload over `maxFileBytes`: refused, and logged so operators can tell the partner why (nothing reaches the audit store). */
  private tooLarge(fileName: string, atLeast: number): SftpError {
    const { partnerId, maxFileBytes } = this.ctx;
    this.logger.warn({
      msg: 'sftp upload refused: larger than sftp.maxFileBytes; not recorded',
      partnerId,
      fileName,
      atLeastBytes: atLeast,
      maxFileBytes,
    });
    return failure(`file exceeds the maximum size of ${maxFileBytes} bytes; nothing was recorded`);
  }

  /** An upload its content rules out: the partner is told why, operators see it in the log (nothing reaches the audit store). */
  private refused(fileName: string, error: UploadRefused | WriteRefused): SftpError {
    this.logger.warn({ msg: 'sftp upload refused', partnerId: this.ctx.partnerId, fileName, reason: error.message });
    const reason = error instanceof WriteRefused ? `${error.message}; nothing was recorded` : error.message;
    return failure(`/inbound/${fileName}: ${reason}`);
  }

  private async close(reqid: number, raw: Buffer): Promise<void> {
    const id = this.handleId(raw);
    const handle = this.handle(raw);
    this.handles.delete(id);
    if (handle.type !== 'write') {
      return this.sftp.status(reqid, STATUS_CODE.OK);
    }
    const path = `/inbound/${handle.name}`;
    const drop = () => void handle.upload.discard().catch(() => undefined);
    if (handle.failed) {
      drop();
      throw failure(handle.failed);
    }
    if (handle.upload.size === 0) {
      drop();
      throw failure(`${path} is empty: an empty file is not accepted and was not recorded`);
    }
    await this.ensureAllowed().catch((error: unknown) => {
      drop();
      throw error;
    });
    try {
      await this.ctx.track(this.ctx.ingest.receive(handle.upload, isTemporaryUploadName(handle.name)));
    } catch (error) {
      if (error instanceof UploadRefused || error instanceof WriteRefused) {
        throw this.refused(handle.name, error);
      }
      this.logger.error({
        msg: 'sftp upload not recorded',
        partnerId: this.ctx.partnerId,
        fileName: handle.name,
        size: handle.upload.size,
        error: (error as Error).message,
      });
      throw failure(`${path} could not be recorded; nothing was received, upload it again`);
    }
    this.sftp.status(reqid, STATUS_CODE.OK);
  }

  private async remove(reqid: number, path: string): Promise<void> {
    const target = resolveVirtualPath(path);
    if (target.kind === 'denied') {
      throw denied(target.reason);
    }
    if (target.kind !== 'file') {
      throw denied('folders cannot be removed');
    }
    await this.ensureAllowed();
    const { partnerId } = this.ctx;
    const file = await this.ctx.files.stat(partnerId, target.folder, target.name);
    if (!file) {
      throw noSuchFile(target.path);
    }
    if (target.folder === 'inbound' && file.messageId) {
      throw denied(
        `${target.path} was received as message ${file.messageId} and stays; only unfinished uploads can be removed`,
      );
    }
    if (!(await this.ctx.files.remove(partnerId, target.folder, target.name))) {
      throw noSuchFile(target.path);
    }
    this.sftp.status(reqid, STATUS_CODE.OK);
  }

  private async rename(reqid: number, fromPath: string, toPath: string): Promise<void> {
    const from = resolveVirtualPath(fromPath);
    const to = resolveVirtualPath(toPath);
    if (from.kind === 'denied') {
      throw denied(from.reason);
    }
    if (to.kind === 'denied') {
      throw denied(to.reason);
    }
    if (from.kind !== 'file' || to.kind !== 'file') {
      throw denied('folders cannot be renamed');
    }
    if (from.folder !== to.folder) {
      throw denied('files can be renamed within their folder only');
    }
    await this.ensureAllowed();
    const { partnerId } = this.ctx;
    let renamed: PartnerFileInfo;
    try {
      renamed = await this.ctx.files.rename(partnerId, from.folder, from.name, to.name);
    } catch (error) {
      if (error instanceof PartnerFileNotFoundError) {
        throw noSuchFile(from.path);
      }
      if (error instanceof PartnerFileExistsError) {
        throw failure(`file exists: ${to.path}`);
      }
      throw error;
    }
    // A finished temporary upload (x.tmp -> x.edi) is complete now: record it before answering.
    if (from.folder === 'inbound' && !renamed.messageId && !isTemporaryUploadName(to.name)) {
      try {
        await this.ctx.track(this.ctx.ingest.complete(renamed));
      } catch (error) {
        await this.ctx.files.rename(partnerId, from.folder, to.name, from.name).catch(() => undefined);
        if (error instanceof UploadRefused) {
          throw this.refused(to.name, error);
        }
        this.logger.error({
          msg: 'sftp upload not recorded at rename',
          partnerId,
          fileName: to.name,
          error: (error as Error).message,
        });
        throw failure(`${to.path} could not be recorded; nothing was received, try again`);
      }
    }
    this.sftp.status(reqid, STATUS_CODE.OK);
  }

  private async setstat(reqid: number, path: string): Promise<void> {
    await this.attrsOf(resolveVirtualPath(path)); // refuses what does not exist or is not the partner's
    this.sftp.status(reqid, STATUS_CODE.OK);
  }

  private async attrsOf(target: VirtualPath): Promise<Attributes> {
    switch (target.kind) {
      case 'denied':
        throw denied(target.reason);
      case 'root':
        return this.dirAttrs(0o555);
      case 'folder':
        return this.dirAttrs(0o755);
      case 'file': {
        const file = await this.ctx.files.stat(this.ctx.partnerId, target.folder, target.name);
        if (!file) {
          throw noSuchFile(target.path);
        }
        return this.fileAttrs(file.size, file.createdAt);
      }
    }
  }

  private dirAttrs(permissions: number): Attributes {
    const t = seconds(this.started);
    return { mode: S_IFDIR | permissions, uid: 0, gid: 0, size: 0, atime: t, mtime: t };
  }

  private fileAttrs(size: number, mtime: Date): Attributes {
    const t = seconds(mtime);
    return { mode: S_IFREG | 0o644, uid: 0, gid: 0, size, atime: t, mtime: t };
  }

  private open_(handle: Handle): Buffer {
    if (this.handles.size >= MAX_OPEN_HANDLES) {
      throw failure(`too many open files (at most ${MAX_OPEN_HANDLES})`);
    }
    const id = this.nextHandle++;
    this.handles.set(id, handle);
    const raw = Buffer.alloc(4);
    raw.writeUInt32BE(id >>> 0, 0);
    return raw;
  }

  private handleId(raw: Buffer): number {
    return Buffer.isBuffer(raw) && raw.length === 4 ? raw.readUInt32BE(0) : -1;
  }

  private handle(raw: Buffer): Handle {
    const handle = this.handles.get(this.handleId(raw));
    if (!handle) {
      throw failure('invalid handle');
    }
    return handle;
  }

  /** The channel closed: uploads whose handle was never closed were incomplete and are dropped. */
  private dispose(): void {
    for (const handle of this.handles.values()) {
      if (handle.type !== 'write') {
        continue;
      }
      if (handle.upload.size > 0) {
        this.logger.warn({
          msg: 'sftp upload abandoned before close; not recorded',
          partnerId: this.ctx.partnerId,
          fileName: handle.name,
          size: handle.upload.size,
        });
      }
      void handle.upload.discard().catch(() => undefined);
    }
    this.handles.clear();
  }
}
