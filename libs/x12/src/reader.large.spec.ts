import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readX12 } from './reader';

// Apart from reader.spec.ts because it reads 3 MiB: mutation testing leaves it out (instrumented,
// it takes seconds for every mutant of the tokenizer).
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const MiB = 1024 * 1024;

/**
 * Sets read and turns the event loop took (setImmediate ticks) while readX12 read `text`, held in
 * memory; `mapMs`: the time each set takes its consumer (translation maps it).
 */
async function readCountingTurns(text: string, mapMs = 0): Promise<{ sets: number; turns: number }> {
  let turns = 0;
  let reading = true;
  const tick = () => {
    if (reading) {
      turns++;
      setImmediate(tick);
    }
  };
  setImmediate(tick);
  let sets = 0;
  for await (const e of readX12([text])) {
    if (e.type === 'transactionSet') {
      sets++;
      for (const until = performance.now() + mapMs; performance.now() < until;) {
        // busy, as mapping is
      }
    }
  }
  reading = false;
  return { sets, turns };
}

describe('readX12 (streaming) of a large input', () => {
  const file = fixture('star-tilde-lf-850.edi');
  const set = file.slice(file.indexOf('\nST*') + 1, file.indexOf('\nGE*') + 1);

  it('gives the event loop a turn every 100 sets of an input already in memory (a whole payload never waits on its own)', async () => {
    const copies = Math.ceil((3 * MiB) / set.length);
    const text = file.replace(set, set.repeat(copies)).replace('\nGE*1*', `\nGE*${copies}*`);
    const { sets, turns } = await readCountingTurns(text);
    expect(sets).toBe(copies);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(sets / 100) - 1); // 6,800 small sets: ~68 turns (a MiB apart: 3)
  });

  it('and every 20 ms, however few sets that is (a loaded machine maps them slowly)', async () => {
    const text = file.replace(set, set.repeat(30)).replace('\nGE*1*', '\nGE*30*');
    // 30 sets of 5 ms: 150 ms, of which no 100 sets or 256 KiB would give the loop a turn.
    const { sets, turns } = await readCountingTurns(text, 5);
    expect(sets).toBe(30);
    expect(turns).toBeGreaterThanOrEqual(5);
  });

  it('and every 256 KiB within sets, however few', async () => {
    const item = set.slice(set.indexOf('PO1*'), set.indexOf('CTT*'));
    const big = set.replace(item, item.repeat(Math.ceil((3 * MiB) / item.length)));
    const { sets, turns } = await readCountingTurns(file.replace(set, big));
    expect(sets).toBe(1);
    expect(turns).toBeGreaterThanOrEqual(11); // 3 MiB in one set: 12 turns (a MiB apart: 3)
  });
});
