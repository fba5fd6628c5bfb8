import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readX12 } from './reader';

// Apart from reader.spec.ts because it reads 3 MiB: mutation testing leaves it out (instrumented,
// it takes seconds for every mutant of the tokenizer).
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

describe('readX12 (streaming) of a large input', () => {
  it('gives the event loop a turn every MiB of an input already in memory (a whole payload never waits on its own)', async () => {
    const file = fixture('star-tilde-lf-850.edi');
    const set = file.slice(file.indexOf('\nST*') + 1, file.indexOf('\nGE*') + 1);
    const copies = Math.ceil((3 * 1024 * 1024) / set.length);
    const text = file.replace(set, set.repeat(copies)).replace('\nGE*1*', `\nGE*${copies}*`);
    let turns = 0;
    let reading = true;
    const tick = () => {
      if (!reading) {
        return;
      }
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    let sets = 0;
    for await (const e of readX12([text])) {
      if (e.type === 'transactionSet') {
        sets++;
      }
    }
    reading = false;
    expect(sets).toBeGreaterThan(100);
    expect(turns).toBeGreaterThanOrEqual(2); // 3 MiB: a turn after each MiB read
  });
});
