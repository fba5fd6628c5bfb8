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
