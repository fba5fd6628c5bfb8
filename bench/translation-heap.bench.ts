/**
 * The heap a streamed X12 translation holds, in one process: a generated 856 file (asn-file.ts, as
 * bench:large uploads) read in 256 KiB slices through translateEdiEvents as the worker reads it, its
 * 997 handed out in parts and dropped (the worker stores them). Prints, per file, the heap held when
 * the interchange ends (after a full GC, over the heap before it began: what grows with the sets),
 * the peak heap over the start (sampled every 50 ms, garbage included) and the RSS at the end.
 *
 *   npm run build && node --expose-gc dist/bench/translation-heap.bench.js   # SIZE_MIB=100, ITEMS=4,40
 */
import 'reflect-metadata';
import { createReadStream, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY_DIRECTORY, translateEdiEvents } from '@dockbridge/mapping';
import { writeAsnFile } from './asn-file';

const MiB = 1024 * 1024;
const SIZE_MIB = Number(process.env.SIZE_MIB ?? 100);
const ITEMS = (process.env.ITEMS ?? '4,40').split(',').map(Number);

const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
};
const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

async function measure(path: string) {
  const before = heap();
  let sets = 0;
  let acknowledgment = 0;
  let held = NaN;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - before)), 50);
  for await (const event of translateEdiEvents({
    raw: createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 }) as AsyncIterable<string>,
    settings: { organisationId: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01', coreName: 'ACME', locationCodes: ['DC01'] },
    senderIds: ['KETTLE'],
    directory: { ...EMPTY_DIRECTORY, byScac: () => ({ id: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e11' }) },
    nextControlNumber: async () => 1,
    now: new Date(),
    acknowledgmentParts: {
      write: async (text) => void (acknowledgment += text.length),
      discard: async () => undefined,
    },
  })) {
    if (event.type === 'set') {
      sets++;
    } else if (event.type === 'interchange') {
      held = heap() - before;
      acknowledgment += event.acknowledgment?.content.length ?? 0;
    }
  }
  clearInterval(sampler);
  return {
    sets,
    acknowledgmentMiB: mib(acknowledgment),
    heldAtEndMiB: mib(held),
    peakHeapMiB: mib(peak),
    rssMiB: Math.round(process.memoryUsage().rss / MiB),
  };
}

async function main() {
  if (!gc) {
    throw new Error('run with node --expose-gc');
  }
  const dir = join(tmpdir(), 'dockbridge-translation-heap');
  mkdirSync(dir, { recursive: true });
  for (const items of ITEMS) {
    const path = join(dir, `asn-${SIZE_MIB}mib-${items}.x12`);
    if (!existsSync(path)) {
      await writeAsnFile(path, SIZE_MIB, items);
    }
    console.log(JSON.stringify({ sizeMiB: SIZE_MIB, items, ...(await measure(path)) }));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
