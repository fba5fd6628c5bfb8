import { posix } from 'node:path';
import { isPartnerFileName, isPartnerFolder, PARTNER_FILE_NAME_MAX, PartnerFolder } from '@dockbridge/partners';

/**
 * Where a client path lands in a partner's virtual tree:
 * `/` (root), `/inbound` or `/outbound` (folder), `/inbound/<name>` (file), or nowhere (denied).
 */
export type VirtualPath =
  | { kind: 'root'; path: '/' }
  | { kind: 'folder'; path: string; folder: PartnerFolder }
  | { kind: 'file'; path: string; folder: PartnerFolder; name: string }
  /** `reason`: what the client is told, naming what is wrong with the path. */
  | { kind: 'denied'; path: string; reason: string };

const MAX_PATH_LENGTH = 4096;

/**
 * Resolves a client path against the root (the session's only working directory): `.`, `..`,
 * repeated and trailing slashes and relative paths are normalised (`..` above the root stays at the
 * root, as on any SFTP server). Anything that does not end inside `/inbound` or `/outbound` is
 * `denied`: other top-level names, deeper paths, invalid names. Nothing here touches a disk.
 */
export function resolveVirtualPath(input: string): VirtualPath {
  const denied = (path: string, why: string): VirtualPath => ({
    kind: 'denied',
    path,
    reason: `${why}: ${JSON.stringify(path.slice(0, 200))}`,
  });
  if (typeof input !== 'string') {
    return denied(String(input), 'not a path');
  }
  if (input.length > MAX_PATH_LENGTH) {
    return denied(input, `path longer than ${MAX_PATH_LENGTH} characters`);
  }
  if (input.includes('\u0000')) {
    return denied(input, 'path holds a NUL character');
  }
  const raw = input === '' ? '.' : input;
  const path = posix.normalize(posix.join('/', raw)).replace(/\/+$/, '') || '/';
  if (path === '/') {
    return { kind: 'root', path: '/' };
  }
  const parts = path.slice(1).split('/');
  const [folder, name, ...rest] = parts;
  if (!isPartnerFolder(folder) || rest.length > 0) {
    return denied(path, 'outside your folders (inbound/ and outbound/, no subfolders)');
  }
  if (name === undefined) {
    return { kind: 'folder', path, folder };
  }
  if (name.length > PARTNER_FILE_NAME_MAX) {
    return denied(path, `file name longer than ${PARTNER_FILE_NAME_MAX} characters`);
  }
  if (!isPartnerFileName(name)) {
    return denied(path, 'file name holds a control character, an invisible or reordering one, or a backslash');
  }
  return { kind: 'file', path, folder, name };
}

/** Upload names that are still being written: complete only once renamed to a final name. */
export const TEMPORARY_UPLOAD_SUFFIXES = ['.tmp', '.part', '.filepart'] as const;

export function isTemporaryUploadName(name: string): boolean {
  const lower = name.toLowerCase();
  return TEMPORARY_UPLOAD_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}
