import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `path` (mode 0600, parent folder 0700) with `content()` unless it exists; true when this
 * call created it. The content is written to a private temporary file first and hard-linked into
 * place, so processes starting together on one volume end with the same file, and nobody ever
 * reads a half-written one. For keys generated on first start (SFTP host key, secrets key).
 */
export function createPrivateFileOnce(path: string, content: () => string | Buffer): boolean {
  if (existsSync(path)) {
    return false;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, content(), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
    return false;
  } finally {
    unlinkSync(temporary);
  }
}
