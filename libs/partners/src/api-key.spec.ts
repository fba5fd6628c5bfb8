import { createHash } from 'node:crypto';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey, isApiKeyFormat, isSha256Hex, sameHash } from './api-key';

describe('partner API keys', () => {
  it('are dbk_ + base64url of 32 random bytes', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^dbk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(4), 'base64url')).toHaveLength(32);
    expect(isApiKeyFormat(key)).toBe(true);
  });

  it('are different every time', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
  });

  it('hash to the hex SHA-256 of the whole key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('show the 8 characters after dbk_ as their prefix', () => {
    expect(apiKeyDisplayPrefix('dbk_ABCDEFGHijklmnopqrstuvwxyz0123456789_-abcde')).toBe('ABCDEFGH');
  });

  it.each([
    ['no prefix', 'ABCDEFGHijklmnopqrstuvwxyz0123456789_-abcde'],
    ['other prefix', 'sk_ABCDEFGHijklmnopqrstuvwxyz0123456789_-abcde'],
    ['prefix not at the start', 'Xdbk_ABCDEFGHijklmnopqrstuvwxyz0123456789_-abcde'],
    ['too short', 'dbk_ABCDEFGH'],
    ['too long', `dbk_${'A'.repeat(44)}`],
    ['standard base64 characters', `dbk_${'A'.repeat(42)}+`],
    ['padding', `dbk_${'A'.repeat(42)}=`],
  ])('refuse a malformed key (%s)', (_case, value) => {
    expect(isApiKeyFormat(value)).toBe(false);
  });

  it('compare hashes in constant time, false for malformed ones', () => {
    const a = hashApiKey(generateApiKey());
    const b = hashApiKey(generateApiKey());
    expect(sameHash(a, a)).toBe(true);
    expect(sameHash(a, b)).toBe(false);
    expect(sameHash(a, a.slice(0, 63))).toBe(false);
    expect(sameHash(a.toUpperCase(), a)).toBe(false);
    expect(sameHash(`${a}0`, a)).toBe(false);
    expect(sameHash(a, `0${a}`)).toBe(false);
  });

  it('tell a hex SHA-256 by its whole text', () => {
    const hash = hashApiKey(generateApiKey());
    expect(isSha256Hex(hash)).toBe(true);
    for (const value of [`x${hash}`, `${hash}x`, hash.slice(1), `${hash}0`, hash.toUpperCase()]) {
      expect({ value, hex: isSha256Hex(value) }).toEqual({ value, hex: false });
    }
  });

  it('accept only strings: an array holding a key or a hash is neither (a JSON body may send one)', () => {
    const key = generateApiKey();
    expect(isApiKeyFormat([key])).toBe(false);
    expect(isSha256Hex([hashApiKey(key)])).toBe(false);
    expect(isApiKeyFormat(undefined)).toBe(false);
  });
});
