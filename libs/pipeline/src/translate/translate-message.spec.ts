import { PayloadBudget, TEXT_BYTES_AT_ONCE } from '../payload-budget';
import { TranslateMessage, type TranslateOptions } from './translate-message';

/** A TranslateMessage over fakes of its message and partner repositories only: what these tests reach. */
function translateOver(
  options: Partial<TranslateOptions> = {},
  messages: object | null = null,
  partners: object | null = null,
) {
  const none = null as never;
  const settings = { batchThreshold: 100, batchSize: 1000, ...options };
  const budget = new PayloadBudget(TEXT_BYTES_AT_ONCE);
  return new TranslateMessage(
    messages as never,
    none,
    none,
    partners as never,
    none,
    none,
    null,
    settings,
    none,
    budget,
  );
}

/** executeMany's fan-out alone: `execute` (the database work) is replaced per test. */
function translator(execute: (id: string) => Promise<unknown>): TranslateMessage {
  const translate = translateOver();
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

describe('TranslateMessage: large stored files', () => {
  it.each([
    [1, undefined, 2], // the default
    [2, 2, 3],
    [3, 3, 4],
  ])(
    'translates at most %i file(s) over 16 MiB at once in a process (largeFilesAtOnce %p), whatever the jobs; small ones are not held',
    async (_, largeFilesAtOnce, expected) => {
      const MiB = 1024 * 1024;
      const sizes: Record<string, number> = {
        big1: 100 * MiB,
        big2: 100 * MiB,
        big3: 100 * MiB,
        big4: 100 * MiB,
        small: MiB,
      };
      const messages = {
        payloadSize: async (id: string) => ({
          status: 'translating',
          contentType: 'application/edi-x12',
          textBytes: 0,
          fileBytes: sizes[id],
        }),
        findById: async (id: string) => ({
          id,
          status: 'translating',
          partnerId: 'p',
          contentType: 'application/edi-x12',
          metadata: { payloadFile: `file-${id}`, size: sizes[id] },
        }),
      };
      const partners = { findById: async () => null };
      const translate = translateOver({ largeFilesAtOnce }, messages, partners);
      let running = 0;
      let most = 0;
      const started: string[] = [];
      jest
        .spyOn(translate as unknown as { translateX12: () => Promise<string> }, 'translateX12')
        .mockImplementation(async (...args: unknown[]) => {
          started.push((args[0] as { id: string }).id);
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 20));
          running--;
          return 'queued';
        });
      // Two jobs at once, as two of the worker's translate lanes would run them.
      await Promise.all([translate.executeMany(['big1', 'big2', 'big3']), translate.executeMany(['big4', 'small'])]);
      expect(started).toHaveLength(5);
      expect(started.indexOf('small')).toBeLessThan(started.indexOf('big4')); // not held behind the big ones
      expect(most).toBe(expected); // the large files let in at once and the small one
    },
  );
});

describe('TranslateMessage: payloads read whole', () => {
  const MiB = 1024 * 1024;
  const sizes: Record<string, number> = {
    a: 6 * MiB,
    b: 6 * MiB,
    c: 6 * MiB,
    huge: 40 * MiB,
    tiny: 1024,
    dense1: 3 * MiB,
    dense2: 3 * MiB,
    done: 40 * MiB,
    queuing: 40 * MiB,
  };
  const statusOf: Record<string, string> = { done: 'delivered', queuing: 'delivering' };

  /** JSON values of the messages whose body counted them: a million `{}` in 3 MiB. */
  const values: Record<string, number> = { dense1: 1_000_000, dense2: 1_000_000, a: 300_000 };

  /** A translator whose translateOne only records what runs at once (10 ms each). */
  function translator() {
    const messages = {
      payloadSize: async (id: string) => ({
        status: statusOf[id] ?? 'translating',
        contentType: 'application/json',
        textBytes: sizes[id],
        fileBytes: null,
        jsonValues: values[id] ?? null,
      }),
    };
    const translate = translateOver({}, messages);
    const seen = {
      held: 0,
      most: 0,
      alone: [] as string[],
      heldAtStart: {} as Record<string, number>,
      running: new Set<string>(),
      together: [] as string[][],
    };
    const spy = jest.spyOn(translate as never, 'translateOne') as unknown as jest.SpyInstance;
    spy.mockImplementation(async (...args: unknown[]) => {
      const id = args[0] as string;
      const holds = statusOf[id] ? 0 : sizes[id];
      seen.heldAtStart[id] = seen.held;
      seen.running.add(id);
      seen.together.push([...seen.running].sort());
      seen.held += holds;
      seen.most = Math.max(seen.most, seen.held);
      if (seen.held === sizes.huge) {
        seen.alone.push(id);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
      seen.held -= holds;
      seen.running.delete(id);
      return 'queued';
    });
    return { translate, spy, seen };
  }

  it('holds at most the payload budget (16 MiB) of them at once, and one larger than that alone', async () => {
    const { translate, spy, seen } = translator();
    // Two jobs at once, as two of the worker's translate lanes would run them.
    await Promise.all([translate.executeMany(['a', 'b', 'huge']), translate.executeMany(['c', 'tiny'])]);

    expect(spy).toHaveBeenCalledTimes(5);
    expect(seen.most).toBe(sizes.huge); // 12 MiB + 1 KiB at most otherwise, never 18 MiB
    expect(seen.alone).toEqual(['huge']);
  });

  // Five 3 MB bodies of a million `{}` each were 15 MB together, within the 16 MiB, and ~300 MB of
  // heap: a 128 MiB worker died of them. Their values weigh 22 MB each: each is translated alone.
  it('weighs a body by its JSON values when they weigh more than its bytes', async () => {
    const { translate, seen } = translator();
    await Promise.all([translate.executeMany(['dense1', 'tiny']), translate.executeMany(['dense2', 'a', 'b'])]);

    expect(seen.together.filter((ids) => ids.includes('dense1') || ids.includes('dense2'))).toEqual([
      ['dense1'],
      ['dense2'],
    ]);
    // Bodies whose bytes weigh more (6 MiB of 300,000 values) share the budget as before.
    expect(seen.together).toContainEqual(['a', 'b']);
  });

  it('does not hold a message with nothing left to translate behind the budget', async () => {
    const { translate, seen } = translator();
    const first = translate.executeMany(['huge']);
    await new Promise((resolve) => setImmediate(resolve));
    // Settled, or delivering (a retry that only queues what is stored): neither waits for huge.
    await Promise.all([first, translate.executeMany(['done', 'queuing'])]);

    expect(seen.heldAtStart).toEqual({ huge: 0, done: sizes.huge, queuing: sizes.huge }); // huge still running
  });
});
