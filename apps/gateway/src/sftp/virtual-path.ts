import { posix } from 'node:path';
import { isPartnerFileName, isPartnerFolder, PartnerFolder } from '@dockbridge/partners';

/**
 * Where a client path lands in a partner's virtual tree:
 * `/` (root), `/inbound` or `/outbound` (folder), `/inbound/<name>` (file), or nowhere (denied).
 */
export type VirtualPath =
  | { kind: 'root'; path: '/' }
  | { kind: 'folder'; path: string; folder: PartnerFolder }
  | { kind: 'file'; path: string; folder: PartnerFolder; name: string }
  | { kind: 'denied'; path: string };

const MAX_PATH_LENGTH = 4096;

/**
 * Resolves a client path against the root (the session's only working directory): `.`, `..`,
 * repeated and trailing slashes and relative paths are normalised (`..` above the root stays at the
 * root, as on any SFTP server). Anything that does not end inside `/inbound` or `/outbound` is
 * `denied`: other top-level names, deeper paths, invalid names. Nothing here touches a disk.
 */
export function resolveVirtualPath(input: string): VirtualPath {
  // eslint-disable-next-line no-control-regex
  if (typeof input !== 'string' || input.length > MAX_PATH_LENGTH || /[\u0000]/.test(input)) return { kind: 'denied', path: String(input).slice(0, 200) };
  const raw = input === '' ? '.' : input;
  const path = posix.normalize(posix.join('/', raw)).replace(/\/+$/, '') || '/';
  if (path === '/') return { kind: 'root', path: '/' };
  const parts = path.slice(1).split('/');
  const [folder, name, ...rest] = parts;
  if (!isPartnerFolder(folder) || rest.length > 0) return { kind: 'denied', path };
  if (name === undefined) return { kind: 'folder', path, folder };
  if (!isPartnerFileName(name)) return { kind: 'denied', path };
  return { kind: 'file', path, folder, name };
}

/** Upload names that are still being written: complete only once renamed to a final name. */
export const TEMPORARY_UPLOAD_SUFFIXES = ['.tmp', '.part', '.filepart'] as const;

export function isTemporaryUploadName(name: string): boolean {
  const lower = name.toLowerCase();
  return TEMPORARY_UPLOAD_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}
