/**
 * JSON.parse of a large text that gives the event loop a turn every few milliseconds: JSON.parse of
 * a 14.4 MiB message (25,000 documents) holds a process for ~100 ms, every other request with it.
 * A large array or object is cut at its members' boundaries (strings skipped with indexOf): runs of
 * small members are parsed together, a large member (a message's `operations`) is cut in turn.
 * Every piece goes through JSON.parse (or `options.parse`), and the commas, colons and brackets
 * between pieces are checked here, so any text JSON.parse refuses is refused and any it takes gives
 * the same value.
 */
export interface JsonInTurnsOptions {
  /** Parses one piece (a run of members, a large member's key): JSON.parse unless told (the gateway's guards against prototype poisoning). */
  parse?: (text: string) => unknown;
  /** Called with each key of an object that was cut (one not parsed whole): may refuse it by throwing. */
  key?: (key: string, value: unknown) => void;
  /** Waits for the next turn of the event loop. */
  turn?: () => Promise<void>;
  /** Values up to this long, and runs of members, are parsed whole (JSON_CUT_CHARS). */
  cutChars?: number;
}

/** Texts up to this long are parsed at once (~2 ms). */
export const JSON_CUT_CHARS = 256 * 1024;
/** Large containers within large containers cut, at most: deeper ones are parsed whole, so nesting costs neither stack nor more than this many scans. */
const MAX_CUT_DEPTH = 8;
/** Work between two turns. */
const TURN_MS = 8;
/** Characters scanned between two looks at the clock. */
const SCAN_STEP = 64 * 1024;

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

/** As JSON.parse makes a property: an own one, even named __proto__; a repeated key keeps its place and takes the last value. */
function define(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Cuts a large container into runs of small members and large members, as it goes. */
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
    // Members not parsed yet: text[runFrom, runTo), parsed together as one array or object.
    let runFrom = -1;
    let runTo = -1;
    const flush = async () => {
      if (runFrom === -1) {
        return;
      }
      await this.pace();
      const run = this.piece(runFrom, runTo, isArray ? '[' : '{', isArray ? ']' : '}');
      runFrom = -1;
      if (isArray) {
        for (const item of run as unknown[]) {
          items.push(item);
        }
      } else {
        for (const [key, value] of Object.entries(run as Record<string, unknown>)) {
          this.checkKey?.(key, value);
          define(object, key, value);
        }
      }
    };
    let at = skipBlanks(text, from + 1);
    if (text.charCodeAt(at) === close) {
      return { value: isArray ? items : object, end: at + 1 };
    }
    for (;;) {
      const memberFrom = at;
      let valueFrom = at;
      let keyTo = at;
      if (!isArray) {
        if (text.charCodeAt(at) !== QUOTE) {
          throw this.error('a key that is not a string', at);
        }
        keyTo = this.stringEnd(at);
        const colon = skipBlanks(text, keyTo);
        if (text.charCodeAt(colon) !== COLON) {
          throw this.error("no ':' after a key", colon);
        }
        valueFrom = skipBlanks(text, colon + 1);
      }
      const c = text.charCodeAt(valueFrom);
      const isContainer = c === OPEN_ARRAY || c === OPEN_OBJECT;
      // An array that is a value of the top-level object (a message's `operations`) is where a large
      // text's bulk is: cut as it is read, without a scan for its end first.
      const eager = c === OPEN_ARRAY && !isArray && depth === 1;
      let end = eager
        ? valueFrom
        : isContainer
          ? await this.containerEnd(valueFrom)
          : c === QUOTE
            ? this.stringEnd(valueFrom)
            : this.primitiveEnd(valueFrom);
      if (end === valueFrom && !eager) {
        // Between two runs, an empty member would vanish: `[1,,2]` is not [1, 2].
        throw this.error('a value missing', valueFrom);
      }
      if (eager || (isContainer && end - valueFrom > this.cutChars && depth < MAX_CUT_DEPTH)) {
        await flush();
        const cut = await this.container(valueFrom, depth + 1);
        const value = cut.value;
        end = cut.end;
        if (isArray) {
          items.push(value);
        } else {
          const key = this.piece(memberFrom, keyTo) as string;
          this.checkKey?.(key, value);
          define(object, key, value);
        }
      } else {
        if (runFrom !== -1 && end - runFrom > this.cutChars) {
          await flush();
        }
        if (runFrom === -1) {
          runFrom = memberFrom;
        }
        runTo = end;
      }
      at = skipBlanks(text, end);
      const next = text.charCodeAt(at);
      if (next === close) {
        await flush();
        return { value: isArray ? items : object, end: at + 1 };
      }
      if (next !== COMMA) {
        throw this.error(`no ',' or '${String.fromCharCode(close)}' after a member`, at);
      }
      at = skipBlanks(text, at + 1);
    }
  }

  /** Where a number, true, false or null at `from` ends: at what may follow a value (JSON.parse checks it). */
  private primitiveEnd(from: number): number {
    const text = this.text;
    let i = from;
    for (
      let c = text.charCodeAt(i);
      i < text.length && !isBlank(c) && c !== COMMA && c !== CLOSE_ARRAY && c !== CLOSE_OBJECT;
    ) {
      c = text.charCodeAt(++i);
    }
    return i;
  }

  /**
   * Just after the bracket that closes the array or object opened at `from` (JSON.parse checks the
   * inside): a regular expression finds each quote or bracket, strings are skipped with indexOf, and
   * a long scan gives turns.
   */
  private async containerEnd(from: number): Promise<number> {
    const text = this.text;
    const structural = /["[\]{}]/g;
    structural.lastIndex = from;
    let depth = 0;
    for (let look = from + SCAN_STEP; structural.test(text);) {
      const i = structural.lastIndex - 1;
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        structural.lastIndex = this.stringEnd(i);
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        depth++;
      } else if (--depth === 0) {
        return i + 1;
      }
      if (i >= look) {
        look = i + SCAN_STEP;
        await this.pace();
      }
    }
    throw this.error('an array or object that does not end', from);
  }

  /** Just after the closing quote of the string whose opening quote is at `from`. */
  private stringEnd(from: number): number {
    const end = quoteEnd(this.text, from);
    if (end === -1) {
      throw this.error('a string that does not end', from);
    }
    return end;
  }

  /**
   * `text[from, to)` parsed, between `open` and `close` when given (a run of members); a SyntaxError
   * says where the piece starts in the whole text (its own position counts from there).
   */
  private piece(from: number, to: number, open = '', close = ''): unknown {
    try {
      return this.parse(open + this.text.slice(from, to) + close);
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new SyntaxError(`${error.message} (in the piece of JSON at position ${from})`);
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

/**
 * What a JSON body a partner sends may hold besides its bytes: its values are what memory and time
 * grow with (a 10 MiB body of `{},` is 3.5 million objects, ~20x its text in a worker's heap, where
 * a message is translated whole at ~110 bytes a value), its nesting what recursion grows with (a
 * document's text is checked and stored by walking it), and the width of one object what the DTO
 * check's key handling grows with (quadratic in class-transformer).
 */
export const JSON_BODY_LIMITS = { maxValues: 1_500_000, maxDepth: 64, maxObjectMembers: 1_000 };

/** How a JSON text goes past JSON_BODY_LIMITS: named; `tooLarge` when by its count of values (413 rather than 400). */
export interface JsonShapeProblem {
  reason: string;
  tooLarge: boolean;
}

/**
 * How many values `text` (JSON, or what will be refused as not JSON) holds, and the first way it goes
 * past `limits` (null: none). One scan of its brackets, commas and strings (skipped with indexOf),
 * with a turn of the event loop every few milliseconds of it; what is not valid JSON is left to the
 * parser to refuse. A worker admits a message by its values as well as its bytes (`jsonValues`).
 */
export async function inspectJson(
  text: string,
  limits = JSON_BODY_LIMITS,
  turn: () => Promise<void> = nextTurn,
): Promise<{ values: number; problem: JsonShapeProblem | null }> {
  const tooMany = {
    reason: `the JSON body holds more than ${limits.maxValues} values: send them in several messages`,
    tooLarge: true,
  };
  const structural = /["[\]{},]/g;
  // Per open container: its commas so far, whether it is an object, where it opened.
  const members: number[] = [];
  const objects: boolean[] = [];
  const opened: number[] = [];
  let values = 1;
  const found = (problem: JsonShapeProblem | null) => ({ values, problem });
  let since = performance.now();
  for (let look = SCAN_STEP; structural.test(text);) {
    const i = structural.lastIndex - 1;
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = quoteEnd(text, i);
      if (end === -1) {
        return found(null);
      }
      structural.lastIndex = end;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (members.length >= limits.maxDepth) {
        return found({
          reason: `the JSON body nests deeper than ${limits.maxDepth} levels (at position ${i})`,
          tooLarge: false,
        });
      }
      members.push(0);
      objects.push(c === OPEN_OBJECT);
      opened.push(i);
    } else if (c === COMMA) {
      const depth = members.length - 1;
      if (depth >= 0 && ++members[depth] >= limits.maxObjectMembers && objects[depth]) {
        return found({
          reason: `an object in the JSON body has more than ${limits.maxObjectMembers} members (at position ${i})`,
          tooLarge: false,
        });
      }
      if (++values > limits.maxValues) {
        return found(tooMany);
      }
    } else if (members.length > 0) {
      // A closing bracket: a container that held anything holds one more member than its commas.
      const depth = members.length;
      const commas = members.pop()!;
      const from = opened.pop()!;
      objects.pop();
      if (commas > 0 || !isOpenBracket(text.charCodeAt(lastNonBlank(text, i - 1)))) {
        values++;
      }
      if (depth > MAX_CUT_DEPTH && i - from > JSON_CUT_CHARS) {
        // parseJsonInTurns parses it in one piece, holding the event loop for as long.
        return found({
          reason: `an array or object of over ${JSON_CUT_CHARS} characters is nested deeper than ${MAX_CUT_DEPTH} levels (at position ${from}): put large lists nearer the top`,
          tooLarge: false,
        });
      }
    }
    if (i >= look) {
      look = i + SCAN_STEP;
      if (performance.now() - since >= TURN_MS) {
        await turn();
        since = performance.now();
      }
    }
  }
  return found(values > limits.maxValues ? tooMany : null);
}

const isOpenBracket = (c: number) => c === OPEN_ARRAY || c === OPEN_OBJECT;

function lastNonBlank(text: string, from: number): number {
  while (from > 0 && isBlank(text.charCodeAt(from))) {
    from--;
  }
  return from;
}

/** Just after the closing quote of the string opened at `from`; -1 when it does not end. */
function quoteEnd(text: string, from: number): number {
  for (let quote = text.indexOf('"', from + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) {
      backslashes++;
    }
    if (backslashes % 2 === 0) {
      return quote + 1;
    }
  }
  return -1;
}
