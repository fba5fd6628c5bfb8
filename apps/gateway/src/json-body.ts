import { JSON_CUT_CHARS, parseJsonInTurns } from '@dockbridge/pipeline';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

type Done = (error: Error | null, value?: unknown) => void;

/** The text each JSON body was decoded to, for the routes that store it as sent (decoding 14.4 MiB again took ~45 ms). */
const decoded = new WeakMap<FastifyRequest, string>();

/** The JSON body of this request as text, as the parser decoded it (UTF-8); undefined when it had none. */
export const jsonTextOf = (request: FastifyRequest): string | undefined => decoded.get(request);

/**
 * JSON bodies as Fastify parses them (prototype poisoning refused), a large one in turns of the
 * event loop: JSON.parse of a 14.4 MiB message held every other request ~100 ms (bench/README.md).
 * Each piece goes through Fastify's own parser; the keys of the objects cut are checked alike.
 */
export function jsonBodyParser(fastify: FastifyInstance) {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, text: string, done: Done): void => {
    decoded.set(request, text);
    if (text.length <= JSON_CUT_CHARS) {
      void parseJson(request, text, done);
      return;
    }
    const parse = (piece: string): unknown => {
      let parsed: { error: Error | null; value?: unknown } = { error: null };
      void parseJson(request, piece, (error, value) => (parsed = { error, value }));
      if (parsed.error) {
        throw parsed.error;
      }
      return parsed.value;
    };
    parseJsonInTurns(text, { parse, key: refusePoisonedKey }).then(
      (value) => done(null, value),
      () => done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY()),
    );
  };
}

/** What Fastify's parser refuses inside a piece, for the keys of the objects cut around the pieces. */
function refusePoisonedKey(key: string, value: unknown): void {
  const prototypeOf =
    key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype');
  if (key === '__proto__' || prototypeOf) {
    throw new SyntaxError('Object contains forbidden prototype property');
  }
}
