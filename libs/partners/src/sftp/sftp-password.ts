import { randomBytes, scrypt, ScryptOptions, timingSafeEqual } from 'node:crypto';

/** scrypt cost parameters for new hashes (N = 2^14, r = 8, p = 1: ~16 MiB, tens of ms). */
export const SFTP_SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32, saltBytes: 16 } as const;
/** Passwords shorter than this are refused when set. */
export const SFTP_PASSWORD_MIN_LENGTH = 12;
/** Longer passwords are refused (and never hashed at login: bounded work per attempt). */
export const SFTP_PASSWORD_MAX_LENGTH = 1024;

const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

function derive(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFC'),
      salt,
      keyLength,
      { ...options, maxmem: 256 * options.N! * options.r! },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

/** `scrypt$N$r$p$<salt base64>$<hash base64>` of the password with a fresh random salt. */
export async function hashSftpPassword(password: string): Promise<string> {
  const { N, r, p, keyLength, saltBytes } = SFTP_SCRYPT;
  const salt = randomBytes(saltBytes);
  const key = await derive(password, salt, keyLength, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * True when the password matches the stored hash (compared in constant time). False for a
 * malformed hash or cost parameters outside sane bounds (never throws for bad input).
 */
export async function verifySftpPassword(password: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored);
  if (!match || typeof password !== 'string' || password.length > SFTP_PASSWORD_MAX_LENGTH) {
    return false;
  }
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = Buffer.from(match[4], 'base64');
  const expected = Buffer.from(match[5], 'base64');
  // Bounds: a tampered row must not make a login attempt allocate gigabytes.
  if (
    N < 2 ||
    N > 2 ** 20 ||
    (N & (N - 1)) !== 0 ||
    r < 1 ||
    r > 32 ||
    p < 1 ||
    p > 16 ||
    expected.length < 16 ||
    expected.length > 64
  ) {
    return false;
  }
  const actual = await derive(password, salt, expected.length, { N, r, p });
  return timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | undefined;

/** Spends the time of one verification, so an unknown user answers as slowly as a wrong password. */
export async function burnSftpPasswordCheck(password: string): Promise<void> {
  dummy ??= hashSftpPassword(randomBytes(16).toString('hex'));
  await verifySftpPassword(password, await dummy);
}
