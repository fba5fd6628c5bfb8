import { getHeapStatistics } from 'node:v8';
import { workerHeapAdvice } from './heap-advice';

const MiB = 1024 * 1024;
const defaults = { textBytesAtOnce: 16 * MiB, largeFilesAtOnce: 1, bodyLimitBytes: 10 * MiB };

describe('workerHeapAdvice', () => {
  it('is silent for the deployed limit and defaults', () => {
    // --max-old-space-size=192 gives V8 a heap limit of 192 MiB and its young generation.
    expect(workerHeapAdvice(defaults, 192 * MiB)).toBeNull();
    expect(workerHeapAdvice(defaults, 240 * MiB)).toBeNull();
  });

  it('says when the worker runs without a limit, as V8 sizes it by default', () => {
    expect(workerHeapAdvice(defaults, getHeapStatistics().heap_size_limit)).toMatch(
      /^the worker runs without a heap limit \(V8's default, \d+ MiB\).*--max-old-space-size=192/,
    );
  });

  it('names what outgrows the limit: a body limit larger than the budget is translated alone', () => {
    expect(workerHeapAdvice({ ...defaults, bodyLimitBytes: 64 * MiB }, 240 * MiB)).toBe(
      "the worker's heap limit (240 MiB) is below the ~400 MiB it may hold: 64 MiB of JSON translated at once " +
        '(worker.textBytesAtOnce, gateway.bodyLimitBytes) and 1 large file(s) (worker.largeFilesAtOnce); ' +
        'raise --max-old-space-size or lower those (docs/operations.md)',
    );
    expect(workerHeapAdvice({ ...defaults, largeFilesAtOnce: 8 }, 192 * MiB)).toMatch(/~272 MiB.*8 large file/);
    expect(workerHeapAdvice({ ...defaults, textBytesAtOnce: 32 * MiB }, 192 * MiB)).toMatch(/~240 MiB it may hold: 32 MiB of JSON/);
  });
});
