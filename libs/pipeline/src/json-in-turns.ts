/**
 * JSON.parse of a large text that gives the event loop a turn every few milliseconds: JSON.parse of
 * a 14.4 MiB message (25,000 documents) holds a process for ~100 ms, every other request with it.
 * The members of the top-level array or object are cut at their boundaries (strings skipped with
 * indexOf, so the cut costs a fraction of the parse) and each is parsed by itself; a member that is
 * large itself (a message's `operations`) is cut the same way. Every piece goes through JSON.parse
 * (or `options.parse`), and the commas, colons and brackets between them are checked here, so any
 * text JSON.parse refuses is refused and any it takes gives the same value.
 */
export interface JsonInTurnsOptions {
  /** Parses one piece (a member's value, a key): JSON.parse unless told (the gateway's guards against prototype poisoning). */
  parse?: (text: string) => unknown;
  /** Called with each key of an object that was cut (one not parsed whole): may refuse it by throwing. */
  key?: (key: string, value: unknown) => void;
  /** Waits for the next turn of the event loop. */
  turn?: () => Promise<void>;
  /** Texts, and array elements, up to this long are parsed whole (JSON_CUT_CHARS). */
  cutChars?: number;
}

/** Texts up to this long are parsed at once (~2 ms). */
export const JSON_CUT_CHARS = 256 * 1024;
/** Containers within containers cut, at most (`{"operations": [...]}` is 2). */
const MAX_CUT_DEPTH = 4;
/** Work between two turns. */
const TURN_MS = 8;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function parseJsonInTurns(text: string, options: JsonInTurnsOptions = {}): Promise<unknown> {
  const parse = options.parse ?? JSON.parse;
  const cutChars = options.cutChars ?? JSON_CUT_CHARS;
  const start = skipBlanks(text, 0);
  const open = text.charCodeAt(start);
  if (text.length <= cutChars || (open !== OPEN_ARRAY && open !== OPEN_OBJECT)) {
    return parse(text);
  }
  const cutter = new JsonCutter(text, parse, options.key, options.turn ?? nextTurn, cutChars);
  const { value, end } = await cutter.container(start, 1);
  const rest = skipBlanks(text, end);
  if (rest < text.length) {
    throw cutter.error('more after the end of the value', rest);
  }
  return value;
}

const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const BACKSLASH = 0x5c;

const isBlank = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

function skipBlanks(text: string, from: number): number {
  while (from < text.length && isBlank(text.charCodeAt(from))) {
    from++;
  }
  return from;
}

/**
 * Cuts a container into members as it goes (never scanning ahead for its end): an object's values
 * that are containers are cut in turn (a message's `operations`), an array's elements are found by
 * their own syntax and parsed whole unless large.
 */
class JsonCutter {
  private since = performance.now();

  constructor(
    private readonly text: string,
    private readonly parse: (text: string) => unknown,
    private readonly checkKey: ((key: string, value: unknown) => void) | undefined,
    private readonly turn: () => Promise<void>,
    private readonly cutChars: number,
  ) {}

  /** The array or object whose opening bracket is at `from`, and where it ends (after its closing bracket). */
  async container(from: number, depth: number): Promise<{ value: unknown; end: number }> {
    const text = this.text;
    const isArray = text.charCodeAt(from) === OPEN_ARRAY;
    const close = isArray ? CLOSE_ARRAY : CLOSE_OBJECT;
    const items: unknown[] = [];
    const object: Record<string, unknown> = {};
    let at = skipBlanks(text, from + 1);
    if (text.charCodeAt(at) === close) {
      return { value: isArray ? items : object, end: at + 1 };
    }
    for (;;) {
      if (isArray) {
        const { value, end } = await this.member(at, false, depth);
        items.push(value);
        at = end;
      } else {
        if (text.charCodeAt(at) !== QUOTE) {
          throw this.error('a key that is not a string', at);
        }
        const keyEnd = this.stringEnd(at);
        const key = this.piece(at, keyEnd) as string;
        const colon = skipBlanks(text, keyEnd);
        if (text.charCodeAt(colon) !== COLON) {
          throw this.error("no ':' after a key", colon);
        }
        const { value, end } = await this.member(skipBlanks(text, colon + 1), true, depth);
        this.checkKey?.(key, value);
        // As JSON.parse makes it: an own property, even one named __proto__.
        Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
        at = end;
      }
      at = skipBlanks(text, at);
      const c = text.charCodeAt(at);
      if (c === close) {
        return { value: isArray ? items : object, end: at + 1 };
      }
      if (c !== COMMA) {
        throw this.error(`no ',' or '${String.fromCharCode(close)}' after a member`, at);
      }
      at = skipBlanks(text, at + 1);
    }
  }

  /**
   * The value at `from` and where it ends; a container that is an object's value, or large, is cut
   * (down to MAX_CUT_DEPTH: deeper ones are parsed whole, so nesting costs neither stack nor rescans).
   */
  private async member(from: number, objectValue: boolean, depth: number): Promise<{ value: unknown; end: number }> {
    const c = this.text.charCodeAt(from);
    const cuttable = (c === OPEN_ARRAY || c === OPEN_OBJECT) && depth < MAX_CUT_DEPTH;
    if (cuttable && objectValue) {
      return this.container(from, depth + 1);
    }
    const end = this.valueEnd(from);
    if (cuttable && end - from > this.cutChars) {
      return this.container(from, depth + 1);
    }
    await this.pace();
    return { value: this.piece(from, end), end };
  }

  /** Where the value at `from` ends, by its own syntax (JSON.parse checks the inside). */
  private valueEnd(from: number): number {
    const text = this.text;
    const first = text.charCodeAt(from);
    if (first === QUOTE) {
      return this.stringEnd(from);
    }
    if (first !== OPEN_ARRAY && first !== OPEN_OBJECT) {
      // A number, true, false or null: up to what may follow a value.
      let i = from;
      for (
        let c = text.charCodeAt(i);
        i < text.length && !isBlank(c) && c !== COMMA && c !== CLOSE_ARRAY && c !== CLOSE_OBJECT;
      ) {
        c = text.charCodeAt(++i);
      }
      return i;
    }
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = this.stringEnd(i) - 1;
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        depth++;
      } else if ((c === CLOSE_ARRAY || c === CLOSE_OBJECT) && --depth === 0) {
        return i + 1;
      }
    }
    throw this.error('an array or object that does not end', from);
  }

  /** Just after the closing quote of the string whose opening quote is at `from`. */
  private stringEnd(from: number): number {
    const text = this.text;
    for (let quote = text.indexOf('"', from + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
      let backslashes = 0;
      while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) {
        backslashes++;
      }
      if (backslashes % 2 === 0) {
        return quote + 1;
      }
    }
    throw this.error('a string that does not end', from);
  }

  /** `text[from, to)` parsed; a SyntaxError says where the piece is in the whole text. */
  private piece(from: number, to: number): unknown {
    try {
      return this.parse(this.text.slice(from, to));
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new SyntaxError(`${error.message} (in the value at position ${from})`);
      }
      throw error;
    }
  }

  /** A turn of the event loop once TURN_MS of work went by since the last. */
  private async pace(): Promise<void> {
    if (performance.now() - this.since >= TURN_MS) {
      await this.turn();
      this.since = performance.now();
    }
  }

  error(what: string, at: number): SyntaxError {
    return new SyntaxError(`Unexpected JSON at position ${at}: ${what}`);
  }
}
