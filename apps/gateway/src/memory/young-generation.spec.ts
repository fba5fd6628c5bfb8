import { YOUNG_COLLECTION_MS, YoungGenerationCollector } from './young-generation';

describe('YoungGenerationCollector', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('collects the young generation on a timer from bootstrap to shutdown', () => {
    let collections = 0;
    const collector = new YoungGenerationCollector(() => collections++);
    jest.advanceTimersByTime(5 * YOUNG_COLLECTION_MS);
    expect(collections).toBe(0);
    collector.onApplicationBootstrap();
    collector.onApplicationBootstrap(); // a second bootstrap starts no second timer
    jest.advanceTimersByTime(3 * YOUNG_COLLECTION_MS + 1);
    expect(collections).toBe(3);
    collector.onApplicationShutdown();
    jest.advanceTimersByTime(5 * YOUNG_COLLECTION_MS);
    expect(collections).toBe(3);
  });

  it("uses node's gc() for a minor collection when it is exposed", () => {
    const calls: unknown[] = [];
    const global = globalThis as { gc?: unknown };
    const exposed = global.gc;
    global.gc = (options: unknown) => calls.push(options);
    try {
      const collector = new YoungGenerationCollector();
      collector.onApplicationBootstrap();
      jest.advanceTimersByTime(2 * YOUNG_COLLECTION_MS);
      collector.onApplicationShutdown();
    } finally {
      global.gc = exposed;
    }
    expect(calls).toEqual([{ type: 'minor' }, { type: 'minor' }]);
  });

  it('does nothing when node runs without --expose-gc', () => {
    const collector = new YoungGenerationCollector(null);
    collector.onApplicationBootstrap();
    expect(jest.getTimerCount()).toBe(0);
    collector.onApplicationShutdown();
  });
});
