import { EXCERPT_MAX_CHARS } from './audit.types';

/**
 * Text fit for an audit column: at most `max` characters (the last one an ellipsis when cut),
 * without NUL characters, which Postgres text cannot hold. null and undefined give null.
 */
export function excerpt(text: string | null | undefined, max = EXCERPT_MAX_CHARS): string | null {
  if (text == null) {
    return null;
  }
  // eslint-disable-next-line no-control-regex -- NUL is what Postgres text refuses
  const clean = text.replace(/\u0000/g, '');
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

/** Text Postgres can hold: NUL (U+0000) becomes U+FFFD. The exact bytes, where they matter, are kept elsewhere (partner files). */
export const storableText = (text: string): string =>
  // eslint-disable-next-line no-control-regex -- NUL is what Postgres text refuses
  text.includes('\u0000') ? text.replace(/\u0000/g, '\uFFFD') : text;
