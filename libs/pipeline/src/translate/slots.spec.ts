import { Slots } from './slots';

describe('Slots', () => {
  it('lets `size` holders in at once and the rest in turn, each release letting one more in', async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const hold = async (name: string, ms: number) => {
      const release = await slots.take();
      order.push(`in ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`out ${name}`);
      release();
      release(); // twice is once
    };
    await Promise.all([hold('a', 20), hold('b', 5), hold('c', 5), hold('d', 5)]);
    expect(order).toEqual(['in a', 'in b', 'out b', 'in c', 'out c', 'in d', 'out d', 'out a']);
    const again = await Promise.all([slots.take(), slots.take()]); // both slots free again
    expect(again).toHaveLength(2);
  });
});
