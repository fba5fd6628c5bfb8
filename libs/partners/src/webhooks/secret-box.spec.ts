import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  it('seals so that the stored text gives nothing away, and opens what it sealed', () => {
    const box = SecretBox.withKey(randomBytes(32));
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^enc:v1:/);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(box.seal(secret)).not.toBe(sealed); // a fresh IV each time
    expect(box.open(sealed)).toBe(secret);
  });

  it('reads a value stored before encryption as it is', () => {
    expect(SecretBox.withKey(randomBytes(32)).open('tms-shared-secret')).toBe('tms-shared-secret');
  });

  it('refuses to open with another key, or a tampered value, naming neither key nor value', () => {
    const sealed = SecretBox.withKey(randomBytes(32)).seal(secret);
    const other = SecretBox.withKey(randomBytes(32));
    expect(() => other.open(sealed)).toThrow(/cannot be decrypted with this secrets key/);
    try {
      other.open(sealed);
    } catch (error) {
      expect((error as Error).message).not.toContain(secret);
    }
    const box = SecretBox.withKey(randomBytes(32));
    const raw = Buffer.from(box.seal(secret).slice('enc:v1:'.length), 'base64');
    raw[raw.length - 1] ^= 1; // one bit of the ciphertext
    const tampered = `enc:v1:${raw.toString('base64')}`;
    expect(() => box.open(tampered)).toThrow(/cannot be decrypted/);
  });

  it('takes a 32-byte key, from configuration or from a key file it creates once (0600)', () => {
    expect(() => SecretBox.withKey(randomBytes(16))).toThrow(/must be 32 bytes/);
    const key = randomBytes(32).toString('base64');
    expect(
      SecretBox.load({ key, keyPath: '/nonexistent/never-read', generateKey: false }).open(
        SecretBox.withKey(Buffer.from(key, 'base64')).seal('x'),
      ),
    ).toBe('x');

    const dir = mkdtempSync(join(tmpdir(), 'dockbridge-secrets-'));
    try {
      const keyPath = join(dir, 'nested', 'secrets.key');
      expect(() => SecretBox.load({ keyPath, generateKey: false })).toThrow(/does not exist/);
      const sealed = SecretBox.load({ keyPath, generateKey: true }).seal(secret);
      expect(statSync(keyPath).mode & 0o777).toBe(0o600);
      expect(Buffer.from(readFileSync(keyPath, 'utf8'), 'base64')).toHaveLength(32);
      // A restart reads the same key.
      expect(SecretBox.load({ keyPath, generateKey: true }).open(sealed)).toBe(secret);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
