import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { inspectJson, JSON_CUT_CHARS, parseJsonInTurns } from '@dockbridge/pipeline';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

type Done = (error: Error | null, value?: unknown) => void;

/**
 * The text each JSON body was decoded to, for the routes that store it as sent (decoding 14.4 MiB
 * again took ~45 ms), and its count of values (inspectJson), which a worker admits it by.
 */
const decoded = new WeakMap<FastifyRequest, { text: string; values?: number }>();

/** The JSON body of this request as text, as the parser decoded it (UTF-8); undefined when it had none. */
export const jsonTextOf = (request: FastifyRequest): string | undefined => decoded.get(request)?.text;

/** How many JSON values the body of this request holds; undefined when it had none. */
export const jsonValuesOf = (request: FastifyRequest): number | undefined => decoded.get(request)?.values;

/**
 * JSON bodies as Fastify parses them (prototype poisoning refused), first held to JSON_BODY_LIMITS
 * (values, nesting, an object's width: 413 or 400 naming which), a large one in turns of the
 * event loop: JSON.parse of a 14.4 MiB message held every other request ~100 ms (bench/README.md).
 * Each piece goes through Fastify's own parser; the keys of the objects cut are checked alike.
 */
export function jsonBodyParser(fastify: FastifyInstance) {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  const parseText = async (request: FastifyRequest, text: string, done: Done): Promise<void> => {
    const { values, problem } = await inspectJson(text);
    decoded.set(request, { text, values });
    if (problem) {
      done(Object.assign(new Error(problem.reason), { statusCode: problem.tooLarge ? 413 : 400 }));
      return;
    }
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
  return (request: FastifyRequest, body: Buffer, done: Done): void => {
    const text = body.length <= DECODE_SLICE_BYTES ? Promise.resolve(body.toString('utf8')) : decodeUtf8InTurns(body);
    text.then((decodedText) => parseText(request, decodedText, done)).catch(done);
  };
}

/** Bytes of a body decoded in one turn of the event loop. */
export const DECODE_SLICE_BYTES = 1024 * 1024;

/**
 * `body.toString('utf8')` a slice at a time with a turn of the event loop between slices (a
 * character cut by a slice is finished by the next): decoding 14.4 MiB at once held every other
 * request ~45 ms.
 */
export async function decodeUtf8InTurns(body: Buffer, slice = DECODE_SLICE_BYTES): Promise<string> {
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  for (let from = 0; from < body.length; from += slice) {
    if (from > 0) {
      await nextTurn();
    }
    parts.push(decoder.write(body.subarray(from, from + slice)));
  }
  parts.push(decoder.end());
  return parts.join('');
}

/** What Fastify's parser refuses inside a piece, for the keys of the objects cut around the pieces. */
function refusePoisonedKey(key: string, value: unknown): void {
  const prototypeOf =
    key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype');
  if (key === '__proto__' || prototypeOf) {
    throw new SyntaxError('Object contains forbidden prototype property');
  }
}
