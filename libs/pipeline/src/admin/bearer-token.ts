import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Checks a presented token (admin, metrics) against a configured one, in constant time (digests of equal length). */
export class BearerToken {
  private readonly expected?: Buffer;

  constructor(configured: string | undefined) {
    this.expected = configured ? digest(configured) : undefined;
  }

  get enabled(): boolean {
    return this.expected !== undefined;
  }

  matches(presented: string | undefined): boolean {
    return !!this.expected && !!presented && timingSafeEqual(digest(presented), this.expected);
  }
}

/** The token of `Authorization: Bearer <token>`, if that is the header's form. */
export const bearerOf = (authorization: string | undefined): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
