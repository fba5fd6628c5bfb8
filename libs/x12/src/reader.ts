import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { EnvelopeReader } from './envelope.reader';
import { forgetScannedSegment } from './segment';
import { X12Tokenizer } from './tokenizer';
import type { Delimiters, Interchange, Problem, Segment, X12Document, X12Event, X12ReadOptions } from './x12.types';

export interface X12StreamOptions extends X12ReadOptions {
  /** How bytes become characters. X12 is ASCII in practice; latin1 never fails on odd bytes. Default utf8. */
  encoding?: 'utf8' | 'latin1';
}

/**
 * Reads X12 from a stream of chunks (a Node Readable, or any async iterable of Buffers/strings)
 * and yields envelope events and one transaction set at a time, in input order. Never throws
 * on bad input: problems are events. Chunks may split anything (the ISA, a multi-byte character).
 * (An array of chunks works too: handy in tests.)
 */
/**
 * Characters given to the tokenizer at a time (measured: 64 KiB is the sweet spot); events are
 * handed out after each of them, and after each transaction set.
 */
const SLICE = 64 * 1024;
/**
 * Characters read, or transaction sets handed out, between turns given back to the event loop
 * (setImmediate). A source that is already in memory (a whole payload, as translation reads it)
 * never waits for anything: without these turns, a 200 MiB file would hold the process — a worker's
 * deliveries, its queue locks — for the seconds it takes to read and map. A MiB between turns
 * (reading and mapping 40-item ASNs) held a worker 90 ms on an idle machine and 150–250 ms on a busy
 * one; 256 KiB or 100 sets, whichever comes first, is ~20 ms of either reading or mapping.
 */
const TURN_EVERY = 4 * SLICE;
const TURN_SETS = 100;
/**
 * And whatever was read, once this long went by since the last turn: on a loaded machine (four
 * 100 MiB files translated and uploaded at once) 100 sets of reading and mapping held a worker 141 ms.
 */
const TURN_MS = 20;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export type X12Chunk = Buffer | Uint8Array | string;

export async function* readX12(
  source: AsyncIterable<X12Chunk> | Iterable<X12Chunk> | Readable,
  options: X12StreamOptions = {},
): AsyncGenerator<X12Event> {
  const queue: X12Event[] = [];
  const envelope = new EnvelopeReader((event) => {
    queue.push(event);
    // Hand each set out as soon as it is complete: its segments are still in the CPU's caches
    // (and their element offsets in the scan cache) when the consumer maps it.
    // Stryker disable next-line all: equivalent, a pause only decides when the queued events are handed out, not their order
    if (event.type === 'transactionSet') {
      tokenizer.pause();
    }
  }, options);
  const tokenizer = new X12Tokenizer(envelope, options);
  // Stryker disable next-line StringLiteral: equivalent, StringDecoder's default is utf8
  const decoder = new StringDecoder(options.encoding ?? 'utf8');
  let sinceTurn = 0;
  let setsSinceTurn = 0;
  let lastTurn = performance.now();
  const turn = async () => {
    sinceTurn = setsSinceTurn = 0;
    await nextTurn();
    lastTurn = performance.now();
  };
  for await (const chunk of source as AsyncIterable<X12Chunk>) {
    // Stryker disable next-line StringLiteral: equivalent, a string given to the decoder comes back as it is
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    // Feed big chunks in slices and hand out their events in between: the segments of a slice
    // die young (cheap for the GC) and the queue stays small whatever the source's chunk size.
    for (let from = 0; from < text.length; from += SLICE) {
      tokenizer.write(text.length <= SLICE ? text : text.slice(from, from + SLICE));
      // Stryker disable next-line ConditionalExpression: equivalent, the events are then handed out after the input, in the same order
      for (;;) {
        for (let i = 0; i < queue.length; i++) {
          yield queue[i];
        }
        queue.length = 0;
        if (!tokenizer.paused) {
          break;
        }
        // Paused: a set was handed out (and mapped, as translation reads it) since the last resume.
        if (++setsSinceTurn >= TURN_SETS || performance.now() - lastTurn >= TURN_MS) {
          await turn();
        }
        tokenizer.resume();
      }
      sinceTurn += Math.min(SLICE, text.length - from);
      if (sinceTurn >= TURN_EVERY || performance.now() - lastTurn >= TURN_MS) {
        await turn();
      }
    }
  }
  tokenizer.write(decoder.end());
  tokenizer.end();
  envelope.end();
  for (let i = 0; i < queue.length; i++) {
    yield queue[i];
  }
  forgetScannedSegment();
}

/** Reads a whole text at once, on the same tokenizer: every interchange with its sets retained. */
export function parseX12(text: string, options: X12ReadOptions = {}): X12Document {
  const interchanges: Interchange[] = [];
  const problems: Problem[] = [];
  const envelope = new EnvelopeReader(
    (event) => {
      if (event.type === 'interchange') {
        interchanges.push(event.interchange);
      } else if (event.type === 'problem') {
        problems.push(event.problem);
      }
    },
    // The whole text is held anyway: its sets are kept whole, however long.
    { retainTransactionSets: true, maxSetSegments: Infinity, maxSetChars: Infinity, ...options },
  );
  const tokenizer = new X12Tokenizer(envelope, options);
  tokenizer.write(text);
  tokenizer.end();
  envelope.end();
  forgetScannedSegment();
  return { interchanges, problems, segmentCount: tokenizer.segmentCount };
}

/** Only the segments, with the delimiters in force for each (no envelope grouping). */
export function tokenizeX12(text: string, options: X12ReadOptions = {}): { segments: Segment[]; problems: Problem[] } {
  const segments: Segment[] = [];
  const problems: Problem[] = [];
  const tokenizer = new X12Tokenizer({ segment: (s) => segments.push(s), problem: (p) => problems.push(p) }, options);
  tokenizer.write(text);
  tokenizer.end();
  forgetScannedSegment();
  return { segments, problems };
}

/** Element n (1-based, as X12 numbers them: `element(seg, 3)` is BEG03); '' when absent. */
export function element(segment: Pick<Segment, 'element'>, n: number): string {
  return segment.element(n);
}

/** Splits a composite element with the interchange's component separator (ISA16). */
export function components(value: string, delimiters: Pick<Delimiters, 'component'>): string[] {
  return value.split(delimiters.component);
}

/** Splits a repeated element with the repetition separator (5010 ISA11); one value when there is none. */
export function repetitions(value: string, delimiters: Pick<Delimiters, 'repetition'>): string[] {
  return delimiters.repetition ? value.split(delimiters.repetition) : [value];
}
