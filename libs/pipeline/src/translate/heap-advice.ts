const MiB = 1024 * 1024;
/** What a worker holds besides what it translates (code, queues, delivery pages and bodies). */
const WORKER_BASE_BYTES = 64 * MiB;
/** A JSON message translated holds about this many times its text (bench/README.md: 99 MB live for 14.7 MiB). */
const JSON_HEAP_FACTOR = 5;
/** A stored X12 file over 16 MiB translated holds about this much (a slice, two batches, a 997 part). */
const LARGE_FILE_HEAP_BYTES = 16 * MiB;

/** Whether node was given a heap limit (on its command line or in NODE_OPTIONS), not V8's default. */
export function heapLimitGiven(execArgv: readonly string[], nodeOptions = ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => /^--max[-_](old[-_]space|heap)[-_]size\b/.test(arg));
}

/**
 * What a worker should say at start about its heap limit (`v8.getHeapStatistics().heap_size_limit`,
 * `limitGiven`: heapLimitGiven) given what it admits at once (the PayloadBudget of translation and delivery, largeFilesAtOnce), or null when the
 * limit suits it. A payload larger than `textBytesAtOnce` (up to the gateway's body limit) is
 * translated alone, so the larger of the two counts.
 */
export function workerHeapAdvice(
  settings: { textBytesAtOnce: number; largeFilesAtOnce: number; bodyLimitBytes: number },
  heapLimitBytes: number,
  limitGiven: boolean,
): string | null {
  const mib = (bytes: number) => Math.round(bytes / MiB);
  if (!limitGiven) {
    return `the worker runs without a heap limit (V8's default, ${mib(heapLimitBytes)} MiB): its memory grows to several times what it holds before V8 collects; run it with --max-old-space-size=192 as deployed (docs/operations.md)`;
  }
  const needed =
    WORKER_BASE_BYTES +
    JSON_HEAP_FACTOR * Math.max(settings.textBytesAtOnce, settings.bodyLimitBytes) +
    LARGE_FILE_HEAP_BYTES * settings.largeFilesAtOnce;
  if (heapLimitBytes >= needed) {
    return null;
  }
  return (
    `the worker's heap limit (${mib(heapLimitBytes)} MiB) is below the ~${mib(needed)} MiB it may hold: ` +
    `${mib(Math.max(settings.textBytesAtOnce, settings.bodyLimitBytes))} MiB of JSON held parsed at once (translated, delivered) ` +
    `(worker.textBytesAtOnce, gateway.bodyLimitBytes) and ${settings.largeFilesAtOnce} large file(s) ` +
    `(worker.largeFilesAtOnce); raise --max-old-space-size or lower those (docs/operations.md)`
  );
}
