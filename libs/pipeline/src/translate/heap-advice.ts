const MiB = 1024 * 1024;
/** What a worker holds besides what it translates (code, queues, delivery pages and bodies). */
const WORKER_BASE_BYTES = 64 * MiB;
/** A JSON message translated holds about this many times its text (bench/README.md: 99 MB live for 14.7 MiB). */
const JSON_HEAP_FACTOR = 5;
/** A stored X12 file over 16 MiB translated holds about this much (a slice, two batches, a 997 part). */
const LARGE_FILE_HEAP_BYTES = 16 * MiB;
/** Above this, no limit was given: V8's own default (2–4 GiB), not a deployment's choice. */
const UNLIMITED_BYTES = 1024 * MiB;

/**
 * What a worker should say at start about its heap limit (`v8.getHeapStatistics().heap_size_limit`)
 * given what it admits into translation at once (TranslateMessage's admission), or null when the
 * limit suits it. A payload larger than `textBytesAtOnce` (up to the gateway's body limit) is
 * translated alone, so the larger of the two counts.
 */
export function workerHeapAdvice(
  settings: { textBytesAtOnce: number; largeFilesAtOnce: number; bodyLimitBytes: number },
  heapLimitBytes: number,
): string | null {
  const mib = (bytes: number) => Math.round(bytes / MiB);
  if (heapLimitBytes > UNLIMITED_BYTES) {
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
    `${mib(Math.max(settings.textBytesAtOnce, settings.bodyLimitBytes))} MiB of JSON translated at once ` +
    `(worker.textBytesAtOnce, gateway.bodyLimitBytes) and ${settings.largeFilesAtOnce} large file(s) ` +
    `(worker.largeFilesAtOnce); raise --max-old-space-size or lower those (docs/operations.md)`
  );
}
