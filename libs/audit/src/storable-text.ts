import { webcrypto } from 'node:crypto';
/*
 * Text Postgres can hold, in one place: text and jsonb refuse NUL (U+0000), and a jsonb parameter
 * cannot carry a lone UTF-16 surrogate (JSON text can: `"\ud800"`). Field-by-field checks that name
 * the offending field for a sender are `unstorableText` of @dockbridge/platform.
 */

// eslint-disable-next-line no-control-regex -- NUL is what Postgres text refuses
export const NUL_CHARACTERS = /\u0000/g;

/** NUL and lone surrogates become U+FFFD, as invalid UTF-8 does when bytes are decoded. The exact bytes, where they matter, are kept elsewhere (partner files). */
export const storableText = (text: string): string =>
  wellFormed(text.includes('\u0000') ? text.replace(NUL_CHARACTERS, '\uFFFD') : text);

// Node 20 has String.prototype.toWellFormed; the ES2023 lib typings do not.
const wellFormed = (text: string): string => (text as string & { toWellFormed(): string }).toWellFormed();

/** Refuses a payload with NUL before anything is written: changing it would store something the partner did not send. */
export function assertStorablePayload(payload: string): void {
  if (payload.includes('\u0000')) {
    throw new RangeError('The payload contains a NUL character, which the audit store cannot hold as text');
  }
}

/**
 * The SHA-256 a message row records for this payload (of its storable text, as `record` computes
 * it), worked out in the thread pool: hashing a 14.4 MiB payload on the event loop held it ~45 ms.
 */
export async function payloadSha256(payload: string): Promise<string> {
  const digest = await webcrypto.subtle.digest('SHA-256', Buffer.from(storableText(payload), 'utf8'));
  return Buffer.from(digest).toString('hex');
}
