import { GroupCommit } from './group-commit';

/** A commit function that records the batches it was given and finishes when told to. */
function recorder() {
  const batches: number[][] = [];
  const pending: (() => void)[] = [];
  const commit = (items: number[]) =>
    new Promise<string[]>((resolve) => {
      batches.push(items);
      pending.push(() => resolve(items.map((i) => `done ${i}`)));
    });
  const finishAll = () => pending.splice(0).forEach((finish) => finish());
  return { batches, commit, finishAll };
}
const options = { maxBatch: 100, maxWeight: 1000, weigh: (n: number) => n, maxInFlight: 1 };
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('commits a lone item on the next turn of the event loop', async () => {
    const { batches, commit, finishAll } = recorder();
    const group = new GroupCommit(commit, options);
    const result = group.submit(7);
    await tick();
    expect(batches).toEqual([[7]]);
    finishAll();
    await expect(result).resolves.toBe('done 7');
  });

  it('puts the items submitted in one turn into one commit, and those that arrive meanwhile into the next', async () => {
    const { batches, commit, finishAll } = recorder();
    const group = new GroupCommit(commit, options);
    const first = [1, 2, 3].map((n) => group.submit(n));
    await tick();
    const second = [4, 5].map((n) => group.submit(n));
    await tick();
    expect(batches).toEqual([[1, 2, 3]]); // one commit in flight at a time
    finishAll();
    await expect(Promise.all(first)).resolves.toEqual(['done 1', 'done 2', 'done 3']);
    await tick();
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    finishAll();
    await expect(Promise.all(second)).resolves.toEqual(['done 4', 'done 5']);
  });

  it('splits by count and by weight; an item heavier than the limit goes alone', async () => {
    const { batches, commit, finishAll } = recorder();
    const group = new GroupCommit(commit, { ...options, maxBatch: 2, maxWeight: 10, maxInFlight: 10 });
    const all = [1, 1, 1, 6, 6, 50, 2].map((n) => group.submit(n));
    await tick();
    expect(batches).toEqual([[1, 1], [1, 6], [6], [50], [2]]);
    finishAll();
    await Promise.all(all);
  });

  it('fails every caller of a commit whose outcome is unknown, and goes on with the next batch', async () => {
    let calls = 0;
    const group = new GroupCommit<number, number>(async (items) => {
      if (++calls === 1) {
        throw new Error('connection lost');
      }
      return items;
    }, options);
    const failed = [1, 2].map((n) => group.submit(n));
    await expect(Promise.all(failed.map((p) => p.catch((e: Error) => e.message)))).resolves.toEqual([
      'connection lost',
      'connection lost',
    ]);
    await expect(group.submit(3)).resolves.toBe(3);
  });

  it('fails only the callers whose items the commit answered with an Error', async () => {
    const group = new GroupCommit<number, number>(
      async (items) => items.map((n) => (n < 0 ? new Error(`bad ${n}`) : n)),
      options,
    );
    const results = await Promise.allSettled([1, -2, 3].map((n) => group.submit(n)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      1,
      'bad -2',
      3,
    ]);
  });

  it('commits the items one by one when a failed commit certainly wrote nothing, so one bad item fails alone', async () => {
    const batches: number[][] = [];
    const refused = Object.assign(new Error('value too long'), { refused: true });
    const group = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        if (items.includes(-1)) {
          throw refused;
        }
        return items;
      },
      { ...options, wroteNothing: (error) => (error as { refused?: boolean }).refused === true },
    );
    const results = await Promise.allSettled([1, -1, 2].map((n) => group.submit(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([[1, -1, 2], [1], [-1], [2]]);
  });

  it('drain waits until every submitted item is settled', async () => {
    const { commit, finishAll } = recorder();
    const group = new GroupCommit(commit, options);
    let drained = false;
    void group.submit(1);
    const draining = group.drain().then(() => (drained = true));
    await tick();
    await tick();
    expect(drained).toBe(false);
    finishAll();
    await draining;
    expect(drained).toBe(true);
    await expect(group.drain()).resolves.toBeUndefined();
  });
});
