import { TranslateMessage } from './translate-message';

/** executeMany's fan-out alone: `execute` (the database work) is replaced per test. */
function translator(execute: (id: string) => Promise<unknown>): TranslateMessage {
  const none = null as never;
  const translate = new TranslateMessage(
    none,
    none,
    none,
    none,
    none,
    none,
    null,
    { batchThreshold: 100, batchSize: 1000 },
    none,
  );
  jest.spyOn(translate, 'execute').mockImplementation(execute as TranslateMessage['execute']);
  return translate;
}

describe('TranslateMessage.executeMany', () => {
  it('translates every message of a job, a few at a time', async () => {
    let running = 0;
    let most = 0;
    const done: string[] = [];
    const translate = translator(async (id) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      done.push(id);
      return 'queued';
    });
    const ids = Array.from({ length: 10 }, (_, i) => `m${i}`);
    expect(await translate.executeMany(ids)).toEqual({ failed: [], error: undefined });
    expect(done.sort()).toEqual([...ids].sort());
    expect(most).toBe(4);
  });

  it('keeps going past a failed message and returns the failed ones, in job order, with the first error', async () => {
    const translate = translator(async (id) => {
      if (id === 'b' || id === 'd') {
        throw new Error(`database away for ${id}`);
      }
      return 'queued';
    });
    const result = await translate.executeMany(['a', 'b', 'c', 'd', 'e']);
    expect(result.failed).toEqual(['b', 'd']);
    expect((result.error as Error).message).toBe('database away for b');
    expect(translate.execute).toHaveBeenCalledTimes(5);
  });
});
