import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createPrivateFileOnce } from '../private-file';

const PREFIX = 'enc:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBoxSource {
  /** The key itself, base64 of 32 bytes (e.g. from SECRETS_KEY): what every replica must share. */
  key?: string;
  /** Else the key file (base64 of 32 bytes), created on first start when `generateKey` is on. */
  keyPath: string;
  generateKey: boolean;
}

/**
 * Encrypts secrets dockbridge must keep readable (webhook signing secrets: HMAC needs them) with
 * AES-256-GCM, so a copy of the database (a dump, a backup) does not give them away. A value
 * stored before encryption (no `enc:v1:` prefix) is read as it is (the gateway seals those at start).
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static withKey(key: Buffer): SecretBox {
    if (key.length !== KEY_BYTES) {
      throw new Error(
        `the secrets key must be ${KEY_BYTES} bytes (base64 of ${KEY_BYTES} random bytes), got ${key.length}`,
      );
    }
    return new SecretBox(key);
  }

  /** The key from `key`, else from the file `keyPath`, created on first start when allowed. */
  static load(source: SecretBoxSource): SecretBox {
    if (source.key) {
      return SecretBox.withKey(Buffer.from(source.key, 'base64'));
    }
    const path = source.keyPath;
    if (!existsSync(path) && !source.generateKey) {
      throw new Error(
        `secrets key file ${path} does not exist (set SECRETS_KEY, or secrets.generateKey to create one)`,
      );
    }
    createPrivateFileOnce(path, () => randomBytes(KEY_BYTES).toString('base64'));
    return SecretBox.withKey(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64'));
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  }

  open(stored: string): string {
    if (!stored.startsWith(PREFIX)) {
      return stored;
    }
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      // Never the value, nor the key: only that this key does not open it.
      throw new Error(
        'a stored secret cannot be decrypted with this secrets key (SECRETS_KEY / secrets.keyPath differs from the one it was sealed with)',
      );
    }
  }
}
