import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every partner API key starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const API_KEY_PREFIX = 'dbk_';
/** Random bytes per key: 256 bits. */
export const API_KEY_BYTES = 32;
/** Characters of the key after `dbk_` that are stored and shown, to tell keys apart. */
export const API_KEY_DISPLAY_PREFIX_LENGTH = 8;

/** `dbk_` + base64url (no padding) of 32 bytes = 43 characters. */
const API_KEY_PATTERN = /^dbk_[A-Za-z0-9_-]{43}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A new key: `dbk_<base64url of 32 random bytes>`. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(API_KEY_BYTES).toString('base64url');
}

/** True for a string shaped like a key this module issues (says nothing about whether it is valid). */
export function isApiKeyFormat(value: unknown): value is string {
  return typeof value === 'string' && API_KEY_PATTERN.test(value);
}

/**
 * Lowercase hex SHA-256 of the whole key. A fast, unsalted hash is right here: the key is 32
 * random bytes (256 bits), so guessing it from the hash is as hard as guessing the key, and a
 * slow KDF (bcrypt, scrypt) would only cost CPU on every request. Unsalted also lets the store
 * find a key by its hash through a unique index, instead of testing every key.
 */
export function hashApiKey(key: string): string {
  // Stryker disable next-line StringLiteral: equivalent, Node reads a string without an encoding as UTF-8
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The 8 characters after `dbk_`, stored so operators can tell keys apart. */
export function apiKeyDisplayPrefix(key: string): string {
  return key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + API_KEY_DISPLAY_PREFIX_LENGTH);
}

export function isSha256Hex(value: unknown): value is string {
  return typeof value === 'string' && SHA256_HEX.test(value);
}

/** Constant-time comparison of two hex SHA-256 digests (false when either is malformed). */
export function sameHash(a: string, b: string): boolean {
  if (!isSha256Hex(a) || !isSha256Hex(b)) {
    return false;
  }
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}
