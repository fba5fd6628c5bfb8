import { EXCERPT_MAX_CHARS } from './audit.types';
import { NUL_CHARACTERS } from './storable-text';

/**
 * Text fit for an audit column: at most `max` characters (the last one an ellipsis when cut),
 * without NUL characters, which Postgres text cannot hold. null and undefined give null.
 */
export function excerpt(text: string | null | undefined, max = EXCERPT_MAX_CHARS): string | null {
  if (text == null) {
    return null;
  }
  const clean = text.replace(NUL_CHARACTERS, '');
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}
