import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { utils } from 'ssh2';
import { sshFingerprint } from '@dockbridge/partners';

export interface HostKey {
  /** The private key file's content, for ssh2's `hostKeys`. Never logged. */
  privateKey: Buffer;
  type: string;
  /** `SHA256:...`, what clients show when they first connect. */
  fingerprint: string;
  /** True when this call created the key file. */
  generated: boolean;
}

/**
 * Reads the SFTP host key from `path`. When the file is missing and `generate` is on, creates an
 * ed25519 key there (mode 0600, parent folder created 0700). The new key is written to a private
 * temporary file first and then hard-linked into place, so two replicas starting together on one
 * volume end up with the same key and nobody ever reads a half-written file.
 */
export function loadOrCreateHostKey(path: string, generate: boolean): HostKey {
  let generated = false;
  if (!existsSync(path)) {
    if (!generate) throw new Error(`SFTP host key ${path} does not exist (set sftp.hostKeyPath, or sftp.generateHostKey to create one)`);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const keys = utils.generateKeyPairSync('ed25519');
    const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temporary, keys.private, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(temporary, path);
      generated = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temporary);
    }
  }
  const privateKey = readFileSync(path);
  const parsed = utils.parseKey(privateKey);
  const key = parsed instanceof Error ? null : Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || !key.isPrivateKey()) {
    throw new Error(`SFTP host key ${path} is not a private key ssh2 can read${parsed instanceof Error ? `: ${parsed.message}` : ''}`);
  }
  return { privateKey, type: key.type, fingerprint: sshFingerprint(key.getPublicSSH()), generated };
}
