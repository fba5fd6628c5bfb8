import { createHash, timingSafeEqual } from 'node:crypto';
import { utils } from 'ssh2';

/** Key types accepted for partner accounts (no DSA). */
export const SFTP_KEY_TYPES = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
] as const;

export interface ParsedPublicKeyLine {
  type: string;
  /** The public key in SSH wire format (what a client sends at login). */
  blob: Buffer;
  /** `type base64 [comment]`, normalised. */
  line: string;
  /** `SHA256:<base64, no padding>`, as `ssh-keygen -l` prints it. */
  fingerprint: string;
}

/** `SHA256:...` fingerprint of a public key blob, as OpenSSH prints it. */
export function sshFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** Parses one OpenSSH public key line; an Error says why it is not acceptable. */
export function parsePublicKeyLine(line: string): ParsedPublicKeyLine | Error {
  if (typeof line !== 'string' || !line.trim()) {
    return new Error('empty public key');
  }
  const text = line.trim();
  if (/PRIVATE KEY/.test(text)) {
    return new Error('this is a private key; give the public key (the .pub file)');
  }
  if (/[\r\n]/.test(text)) {
    return new Error('one public key line expected');
  }
  const parsed = utils.parseKey(text);
  if (parsed instanceof Error) {
    return new Error(`not an OpenSSH public key: ${parsed.message}`);
  }
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key.isPrivateKey()) {
    return new Error('not an OpenSSH public key');
  }
  if (!(SFTP_KEY_TYPES as readonly string[]).includes(key.type)) {
    return new Error(`key type ${key.type} is not accepted (${SFTP_KEY_TYPES.join(', ')})`);
  }
  const blob = key.getPublicSSH();
  const comment = (key.comment ?? '').replace(/\s+/g, ' ').trim();
  return {
    type: key.type,
    blob,
    line: `${key.type} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`,
    fingerprint: sshFingerprint(blob),
  };
}

/** True when `blob` (what the client sent) is the stored key. Constant time over equal lengths. */
export function samePublicKey(storedLine: string, blob: Buffer): boolean {
  const stored = parsePublicKeyLine(storedLine);
  if (stored instanceof Error || stored.blob.length !== blob.length) {
    return false;
  }
  return timingSafeEqual(stored.blob, blob);
}

/** Verifies the client's signature over the session data with the stored key. */
export function verifyPublicKeySignature(
  storedLine: string,
  data: Buffer,
  signature: Buffer,
  hashAlgo?: string,
): boolean {
  const parsed = utils.parseKey(storedLine.trim());
  const key = parsed instanceof Error ? null : Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) {
    return false;
  }
  try {
    return key.verify(data, signature, hashAlgo) === true;
  } catch {
    return false;
  }
}

/**
 * A new ed25519 key pair in OpenSSH format that ssh2 itself can read back. ssh2 1.17's generator
 * strips leading zero bytes from the public key, so about 1 key in 256 comes out malformed
 * (mscdex/ssh2#1390, #1513): such a pair is thrown away and another made.
 */
export function generateEd25519KeyPair(comment?: string): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519', comment === undefined ? undefined : { comment });
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) {
      return pair;
    }
  }
}
