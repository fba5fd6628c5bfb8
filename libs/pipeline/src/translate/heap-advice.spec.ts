import { getHeapStatistics } from 'node:v8';
import { heapLimitGiven, workerHeapAdvice } from './heap-advice';

const MiB = 1024 * 1024;
const defaults = { textBytesAtOnce: 16 * MiB, largeFilesAtOnce: 1, bodyLimitBytes: 10 * MiB };

describe('workerHeapAdvice', () => {
  it('is silent for the deployed limit and defaults', () => {
    // --max-old-space-size=192 gives V8 a heap limit of 192 MiB and its young generation.
    expect(workerHeapAdvice(defaults, 240 * MiB, true)).toBeNull();
    expect(workerHeapAdvice({ ...defaults, textBytesAtOnce: 256 * MiB }, 1536 * MiB, true)).toBeNull(); // a large limit, given
  });

  it('says when the worker runs without a limit, as V8 sizes it by default', () => {
    expect(workerHeapAdvice(defaults, getHeapStatistics().heap_size_limit, false)).toMatch(
      /^the worker runs without a heap limit \(V8's default, \d+ MiB\).*--max-old-space-size=192/,
    );
  });

  it('names what outgrows the limit: a body limit larger than the budget is translated alone', () => {
    expect(workerHeapAdvice({ ...defaults, bodyLimitBytes: 64 * MiB }, 240 * MiB, true)).toBe(
      "the worker's heap limit (240 MiB) is below the ~400 MiB it may hold: 64 MiB of JSON held parsed at once (translated, delivered) " +
        '(worker.textBytesAtOnce, gateway.bodyLimitBytes) and 1 large file(s) (worker.largeFilesAtOnce); ' +
        'raise --max-old-space-size or lower those (docs/operations.md)',
    );
    expect(workerHeapAdvice({ ...defaults, largeFilesAtOnce: 8 }, 192 * MiB, true)).toMatch(/~272 MiB.*8 large file/);
    expect(workerHeapAdvice({ ...defaults, textBytesAtOnce: 32 * MiB }, 192 * MiB, true)).toMatch(
      /~240 MiB it may hold: 32 MiB of JSON/,
    );
  });

  it("tells a limit given on the command line or in NODE_OPTIONS from V8's default", () => {
    expect(heapLimitGiven(['--max-old-space-size=192'])).toBe(true);
    expect(heapLimitGiven([], '--enable-source-maps --max_old_space_size=512')).toBe(true);
    expect(heapLimitGiven(['--max-heap-size=300'])).toBe(true);
    expect(heapLimitGiven(['--max-semi-space-size=32', '--expose-gc'], '--enable-source-maps')).toBe(false);
    expect(heapLimitGiven([])).toBe(false);
  });
});
