import { CanonicalOperation, checkCanonicalMessage } from '@dockbridge/mapping';

/** The content type of a canonical operations message (`POST /v1/messages`). */
export const CANONICAL_CONTENT_TYPE = 'application/vnd.dockbridge.operations+json';

export type Translation = { ok: true; operations: CanonicalOperation[] } | { ok: false; reason: string };

/** Turns a stored payload into canonical operations. Pure: no I/O. */
export type Translator = (rawPayload: string) => Translation;

export const translateCanonical: Translator = (rawPayload) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawPayload);
  } catch (error) {
    return { ok: false, reason: `payload is not valid JSON: ${(error as Error).message}` };
  }
  const check = checkCanonicalMessage(parsed);
  return check.ok ? check : { ok: false, reason: check.problems.join('; ') };
};

/** Translators by content type; EDI and webhook translators register here as they land. */
export const TRANSLATORS: Readonly<Record<string, Translator>> = {
  [CANONICAL_CONTENT_TYPE]: translateCanonical,
};
