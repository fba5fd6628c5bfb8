import { Slots } from './slots';

describe('Slots', () => {
  it('lets `size` holders in at once and the rest in turn, each release letting the next one in', async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const releases = new Map<string, () => void>();
    const take = (name: string) =>
      slots.take().then((release) => {
        order.push(name);
        releases.set(name, release);
      });
    const taken = ['a', 'b', 'c', 'd'].map(take);
    await Promise.all(taken.slice(0, 2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a', 'b']); // c and d wait

    releases.get('b')!();
    releases.get('b')!(); // twice is once: still one more in, not two
    await taken[2];
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a', 'b', 'c']);

    releases.get('a')!();
    await taken[3];
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    releases.get('c')!();
    releases.get('d')!();
    const again = await Promise.all([slots.take(), slots.take()]); // both slots free again
    expect(again).toHaveLength(2);
  });
});

describe('Slots as a budget of bytes', () => {
  it('lets holders in while their amounts fit, in turn, and a holder larger than the budget alone', async () => {
    const budget = new Slots(10);
    const order: string[] = [];
    const releases = new Map<string, () => void>();
    const take = (name: string, amount: number) =>
      budget.take(amount).then((release) => {
        order.push(name);
        releases.set(name, release);
      });
    const settle = () => new Promise((resolve) => setImmediate(resolve));

    const taken = [take('a', 6), take('b', 4), take('big', 25), take('c', 1)];
    await settle();
    expect(order).toEqual(['a', 'b']); // 10 of 10; c fits nowhere either: it waits behind big

    releases.get('a')!();
    await settle();
    expect(order).toEqual(['a', 'b']); // big waits until it is alone, and c waits behind it
    releases.get('b')!();
    await taken[2];
    await settle();
    expect(order).toEqual(['a', 'b', 'big']);

    releases.get('big')!();
    await taken[3];
    expect(order).toEqual(['a', 'b', 'big', 'c']);
    const again = await Promise.all([budget.take(5), budget.take(4)]); // 1 + 5 + 4 fit
    expect(again).toHaveLength(2);
  });
});

describe('Slots.takeWithin', () => {
  it('gives up after its wait, and those waiting behind it get in as they fit', async () => {
    const budget = new Slots(10);
    const first = (await budget.takeWithin(8, 1_000))!; // free: in at once
    const big = budget.takeWithin(5, 20);
    let small: (() => void) | null | undefined;
    const smallTaken = budget.takeWithin(2, 5_000).then((release) => (small = release));
    await new Promise((resolve) => setImmediate(resolve));
    expect(small).toBeUndefined(); // 2 would fit, but it waits its turn behind big

    expect(await big).toBeNull(); // big gave up after 20 ms...
    await smallTaken;
    expect(small).toEqual(expect.any(Function)); // ...and the small one behind it got in
    first();
    small!();
  });

  it('answers with the release once let in within its wait', async () => {
    const budget = new Slots(1);
    const first = (await budget.takeWithin(1, 0))!;
    const second = budget.takeWithin(1, 5_000);
    first();
    const release = await second;
    expect(release).toEqual(expect.any(Function));
    release!();
    expect(await budget.takeWithin(1, 0)).toEqual(expect.any(Function)); // given back: free again
  });
});
