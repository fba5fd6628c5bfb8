import { existsSync, readFileSync } from 'node:fs';
import { utils } from 'ssh2';
import { createPrivateFileOnce, generateEd25519KeyPair, sshFingerprint } from '@dockbridge/partners';

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
 * ed25519 key there (createPrivateFileOnce: mode 0600, replicas starting together share one key).
 */
export function loadOrCreateHostKey(path: string, generate: boolean): HostKey {
  if (!existsSync(path) && !generate) {
    throw new Error(
      `SFTP host key ${path} does not exist (set sftp.hostKeyPath, or sftp.generateHostKey to create one)`,
    );
  }
  const generated = createPrivateFileOnce(path, () => generateEd25519KeyPair().private);
  const privateKey = readFileSync(path);
  const parsed = utils.parseKey(privateKey);
  const key = parsed instanceof Error ? null : Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || !key.isPrivateKey()) {
    throw new Error(
      `SFTP host key ${path} is not a private key ssh2 can read${parsed instanceof Error ? `: ${parsed.message}` : ''}`,
    );
  }
  return { privateKey, type: key.type, fingerprint: sshFingerprint(key.getPublicSSH()), generated };
}
