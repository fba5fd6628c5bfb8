import { createHash, randomBytes } from 'node:crypto';

/** Every operator token starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const OPERATOR_TOKEN_PREFIX = 'dbo_';
/** `dbo_` + base64url (no padding) of 32 random bytes. */
const OPERATOR_TOKEN_PATTERN = /^dbo_[A-Za-z0-9_-]{43}$/;
/** Characters after `dbo_` kept in the clear, so operators can tell tokens apart. */
const SHOWN_CHARACTERS = 6;

export const generateOperatorToken = (): string => OPERATOR_TOKEN_PREFIX + randomBytes(32).toString('base64url');

export const isOperatorTokenFormat = (value: string): boolean => OPERATOR_TOKEN_PATTERN.test(value);

/** SHA-256 hex: the token is 256 random bits, so a slow KDF would add CPU to every call and nothing else. */
export const hashOperatorToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** `dbo_abcdef…`: what lists show of a token. */
export const operatorTokenHint = (token: string): string =>
  `${token.slice(0, OPERATOR_TOKEN_PREFIX.length + SHOWN_CHARACTERS)}…`;
