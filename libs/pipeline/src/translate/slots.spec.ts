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
