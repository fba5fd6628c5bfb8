import { utils } from 'ssh2';
import { hashSftpPassword, verifySftpPassword } from './sftp-password';
import { generateEd25519KeyPair, parsePublicKeyLine, samePublicKey, verifyPublicKeySignature } from './ssh-public-key';

describe('SFTP password hashes', () => {
  it('stores scrypt$N$r$p$salt$hash with a random salt and verifies only the right password', async () => {
    const a = await hashSftpPassword('correct horse battery staple');
    const b = await hashSftpPassword('correct horse battery staple');
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toBe(b);
    expect(await verifySftpPassword('correct horse battery staple', a)).toBe(true);
    expect(await verifySftpPassword('correct horse battery stapl', a)).toBe(false);
    expect(await verifySftpPassword('', a)).toBe(false);
  });

  it('refuses malformed hashes and absurd cost parameters without throwing', async () => {
    const hash = await hashSftpPassword('x'.repeat(12));
    expect(await verifySftpPassword('x'.repeat(12), hash.replace('$16384$', '$1073741824$'))).toBe(false);
    expect(await verifySftpPassword('x'.repeat(12), 'plain')).toBe(false);
    expect(await verifySftpPassword('x'.repeat(12), hash.replace(/\$[^$]+$/, '$AAAA'))).toBe(false);
  });
});

describe('SFTP public keys', () => {
  const keys = generateEd25519KeyPair('partner laptop');

  it('parses an OpenSSH public key line and fingerprints it like ssh-keygen', () => {
    const parsed = parsePublicKeyLine(`  ${keys.public}\n`);
    if (parsed instanceof Error) {
      throw parsed;
    }
    expect(parsed.type).toBe('ssh-ed25519');
    expect(parsed.line).toBe(keys.public);
    expect(parsed.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('refuses private keys, garbage and several lines', () => {
    expect(parsePublicKeyLine(keys.private)).toBeInstanceOf(Error);
    expect(parsePublicKeyLine('ssh-ed25519 AAAA')).toBeInstanceOf(Error);
    expect(parsePublicKeyLine(`${keys.public}\n${keys.public}`)).toBeInstanceOf(Error);
    expect(parsePublicKeyLine('')).toBeInstanceOf(Error);
  });

  it('matches the blob a client offers and verifies its signature', () => {
    const priv = utils.parseKey(keys.private);
    if (priv instanceof Error) {
      throw priv;
    }
    const key = Array.isArray(priv) ? priv[0] : priv;
    const blob = key.getPublicSSH();
    expect(samePublicKey(keys.public, blob)).toBe(true);
    const other = generateEd25519KeyPair();
    expect(samePublicKey(other.public, blob)).toBe(false);
    const data = Buffer.from('session data');
    const signature = key.sign(data);
    expect(verifyPublicKeySignature(keys.public, data, signature)).toBe(true);
    expect(verifyPublicKeySignature(keys.public, Buffer.from('other data'), signature)).toBe(false);
    expect(verifyPublicKeySignature(other.public, data, signature)).toBe(false);
  });
});

describe('generateEd25519KeyPair', () => {
  it('makes only key pairs ssh2 can read back (its own generator gets ~1 in 256 wrong)', () => {
    for (let i = 0; i < 600; i++) {
      const pair = generateEd25519KeyPair();
      expect(utils.parseKey(pair.private)).not.toBeInstanceOf(Error);
      expect(utils.parseKey(pair.public)).not.toBeInstanceOf(Error);
    }
  });
});
