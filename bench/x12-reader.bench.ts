/**
 * X12 benchmark, on four layouts (bench/x12-layouts.ts: 856 S/O/P/I; 856 S/O/T/I with MAN; 856
 * S/O/I pick and pack; an 850 of many PO1 lines with SAC/N9 noise), each in one run against:
 * - a bare loop that only cuts the same bytes into segments and each element into a string
 *   (decoding and the stream included): the practical limit of a JS reader (the same loop written
 *   with String.split is shown for reference: its arrays make it ~2x slower);
 * - node-x12 `parse()` on the same file.
 * dockbridge's streaming reader (+ envelope validation and syntax notes) is followed by the mapping
 * (`mapTransaction`: one document per set), as translation runs them. Each measurement runs in a
 * fresh child process, so peak RSS (maxRSS) belongs to one reader; the 100 MiB file shows whether
 * the reader's memory grows with the input. Rounds interleave (bare, reader, node-x12 on 50 MiB,
 * reader on 100 MiB; cold, then warm: each child first reads a small file of the layout untimed,
 * as a long-running worker has) so a change in the machine's load hits all sides alike; medians
 * of RUNS rounds. Targets per layout: reader + mapping <= 1.5x the bare loop, >= 12x node-x12, RSS
 * <= 150 MiB flat from 50 to 100 MiB.
 *
 *   npm run build && node dist/bench/x12-reader.bench.js
 *   (RUNS=3 SIZE_MIB=50 BIG_MIB=100 NODE_X12_MIB=50 WARMUP_MIB=10 LAYOUTS=sopi,soti,soi,850:
 *   node-x12 runs on each file up to NODE_X12_MIB (0 skips it; it needs ~60x the file in RAM);
 *   WARMUP_MIB=0 runs cold only; READER_ONLY=1 also times the reader without the mapping)
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { cpus, loadavg, totalmem } from 'node:os';
import 'reflect-metadata'; // @dockbridge/mapping carries the canonical DTOs (class-validator decorators)
import { mapTransaction, type EdiMappingSettings } from '@dockbridge/mapping';
import { readX12 } from '@dockbridge/x12';
import { median } from './bench-documents';
import { generate, type Layout, LAYOUTS } from './x12-layouts';

const MiB = 1024 * 1024;
const RUNS = Number(process.env.RUNS ?? 3);
const SIZE_MIB = Number(process.env.SIZE_MIB ?? 50);
const BIG_MIB = Number(process.env.BIG_MIB ?? 100);
/** node-x12 runs on the files up to this size: ~60x the file in RAM (STACK.md), 50 MiB -> ~3 GB. Capped at 100. */
const NODE_X12_MIB = Math.min(Number(process.env.NODE_X12_MIB ?? SIZE_MIB), 100);
/** Each child also runs warm, after reading a file of its layout this big untimed. 0: cold only. */
const WARMUP_MIB = Number(process.env.WARMUP_MIB ?? 10);
const CHOSEN = (process.env.LAYOUTS ?? LAYOUTS.map((l) => l.id).join(',')).split(',');
/** Mapping settings of the receiving partner: everything ships to DC01, which is the location. */
const SETTINGS: EdiMappingSettings = {
  organisationId: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
  coreName: 'ACME',
  locationCodes: ['DC01'],
};
const TARGET_BARE = 1.5;
const TARGET_NODE_X12 = 12;
const TARGET_RSS_MIB = 150;

type Kind = 'reader' | 'reader-only' | 'bare' | 'bare-split' | 'node-x12';

interface Result {
  seconds: number;
  mib: number;
  sets: number;
  segments: number;
  /** Bare loop: elements it split. */
  elements?: number;
  problems: number;
  /** CPU seconds of the child (user + system, all its threads: GC helpers included). */
  cpuSeconds: number;
  /** Reader + mapping child: documents the mapping produced (one per set), their loads, sets it rejected. */
  documents?: number;
  loads?: number;
  rejected?: number;
  maxRssMiB: number;
}

interface Counts {
  sets: number;
  segments: number;
  elements: number;
  problems: number;
  documents: number;
  loads: number;
  rejected: number;
}

/**
 * The bare loop: the same stream and decoding as the reader, then each segment found at its
 * terminator and each of its elements cut out as a string at the separator (the generated files'
 * `~` and `*`, not read from the ISA), line breaks between segments skipped. Nothing is checked,
 * grouped or mapped: what any JS reader must at least do to hand out elements.
 */
async function bare(file: string, counts: Counts): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let characters = 0;
  const splitAll = (text: string, final: boolean): string => {
    const n = text.length;
    let pos = 0;
    for (;;) {
      let end = text.indexOf('~', pos);
      if (end === -1) {
        if (!final) {
          break;
        }
        end = n;
      }
      while (pos < end && (text.charCodeAt(pos) === 10 || text.charCodeAt(pos) === 13)) {
        pos++;
      }
      if (pos < end) {
        counts.segments++;
        let from = pos;
        for (;;) {
          let separator = text.indexOf('*', from);
          if (separator === -1 || separator > end) {
            separator = end;
          }
          const element = text.slice(from, separator);
          characters += element.length;
          if (from === pos && element === 'ST') {
            counts.sets++;
          }
          if (separator === end) {
            break;
          }
          counts.elements++;
          from = separator + 1;
        }
      }
      pos = end + 1;
      if (pos >= n) {
        break;
      }
    }
    return pos >= n ? '' : text.slice(pos);
  };
  for await (const chunk of createReadStream(file)) {
    rest = splitAll(rest + decoder.write(chunk as Buffer), false);
  }
  splitAll(rest + decoder.end(), true);
  counts.problems = characters < 0 ? 1 : 0; // keeps the slices from being optimised away
}

/**
 * For reference only: the same loop written with String.split (an array per segment): what a
 * naive reader pays; the targets are against `bare`.
 */
async function bareSplit(file: string, counts: Counts): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const splitAll = (text: string, final: boolean): string => {
    const segments = text.split('~');
    const last = final ? segments.length : segments.length - 1;
    for (let i = 0; i < last; i++) {
      const c = segments[i].charCodeAt(0);
      const segment = c === 10 || c === 13 ? segments[i].trimStart() : segments[i];
      if (segment.length > 0) {
        const elements = segment.split('*');
        counts.segments++;
        counts.elements += elements.length - 1;
        if (elements[0] === 'ST') {
          counts.sets++;
        }
      }
    }
    return final ? '' : segments[segments.length - 1];
  };
  for await (const chunk of createReadStream(file)) {
    rest = splitAll(rest + decoder.write(chunk as Buffer), false);
  }
  splitAll(rest + decoder.end(), true);
}

/** One reader over one file: the work being measured. */
async function read(kind: Kind, file: string): Promise<Counts> {
  const counts: Counts = { sets: 0, segments: 0, elements: 0, problems: 0, documents: 0, loads: 0, rejected: 0 };
  if (kind === 'bare') {
    await bare(file, counts);
  } else if (kind === 'bare-split') {
    await bareSplit(file, counts);
  } else if (kind === 'reader' || kind === 'reader-only') {
    const map = kind === 'reader';
    // fs.createReadStream's default 64 KiB chunks: bigger ones (1 MiB) only raise peak RSS (their
    // Buffers wait for a full GC) and win nothing.
    for await (const event of readX12(createReadStream(file))) {
      if (event.type === 'transactionSet') {
        const set = event.transactionSet;
        counts.sets++;
        counts.segments += set.segments.length;
        if (!map) {
          continue;
        }
        // As interchange-translation.ts adapts a set for the mapper.
        const fields = event.interchange.fields;
        const mapping = mapTransaction(
          {
            setId: set.id,
            envelope: {
              senderId: fields.senderId.trim(),
              receiverId: fields.receiverId.trim(),
              interchangeControl: fields.controlNumber.trim(),
              groupControl: event.group.control,
              transactionControl: set.control,
              componentSeparator: event.interchange.delimiters.component,
            },
            segments: set.segments,
          },
          SETTINGS,
        );
        const operation = mapping.operation;
        if (mapping.rejected || operation?.kind !== 'document.upsert') {
          counts.rejected++;
        } else {
          counts.documents++;
          counts.loads += operation.document.loads?.length ?? 0;
        }
      } else if (event.type === 'problem') {
        counts.problems++;
      }
    }
  } else {
    // node-x12's parser, as a caller would use it (@dockbridge/x12 itself loads node-x12 only to write 997s).
    const { X12FatInterchange, X12Parser } = await import('node-x12');
    const parsed = new X12Parser(false).parse(readFileSync(file, 'utf8'));
    const interchanges = parsed instanceof X12FatInterchange ? [...parsed] : [parsed];
    for (const i of interchanges) {
      for (const g of i.functionalGroups) {
        for (const t of g.transactions) {
          counts.sets++;
          counts.segments += t.segments.length + 2;
        }
      }
    }
  }
  return counts;
}

/**
 * Runs in a child: one reader over one file, prints a Result as JSON. With a warm-up file, the
 * child first reads that (untimed), as a long-running worker has read files before: the timed run
 * then measures compiled code, not the JIT's warm-up.
 */
async function child(kind: Kind, file: string, warmupFile?: string): Promise<void> {
  if (warmupFile) {
    await read(kind, warmupFile);
  }
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const { documents, loads, rejected, elements, ...counts } = await read(kind, file);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  const result: Result = {
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    mib: statSync(file).size / MiB,
    ...counts,
    ...((kind === 'bare' || kind === 'bare-split') && { elements }),
    ...(kind === 'reader' && { documents, loads, rejected }),
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(JSON.stringify(result));
}

function runChild(kind: Kind, file: string, warmupFile?: string): Result {
  const heap = kind === 'node-x12' ? ['--max-old-space-size=16384'] : [];
  const out = execFileSync(
    process.execPath,
    [...heap, __filename, '--child', kind, file, ...(warmupFile ? [warmupFile] : [])],
    { encoding: 'utf8', maxBuffer: MiB },
  );
  const result = JSON.parse(out) as Result;
  console.log(
    `  ${(warmupFile ? 'warm ' : 'cold ') + kind.padEnd(11)} ${result.mib.toFixed(0).padStart(4)} MiB: ${result.seconds.toFixed(2)} s (cpu ${result.cpuSeconds.toFixed(2)} s), RSS ${result.maxRssMiB.toFixed(0)} MiB, load ${loadavg()[0].toFixed(1)}`,
  );
  return result;
}

/** Medians of seconds, CPU seconds and peak RSS over runs of one kind. */
function summarise(runs: Result[]): Result {
  const med = (pick: (r: Result) => number) => median(runs.map(pick));
  return {
    ...runs[0],
    seconds: med((r) => r.seconds),
    cpuSeconds: med((r) => r.cpuSeconds),
    maxRssMiB: med((r) => r.maxRssMiB),
  };
}

const line = (label: string, r: Result) =>
  `  ${label.padEnd(40)} ${r.mib.toFixed(1).padStart(6)} MiB  ${r.sets.toString().padStart(7)} sets  ${r.segments.toString().padStart(9)} segs  ` +
  `${r.seconds.toFixed(2).padStart(6)} s  ${(r.mib / r.seconds).toFixed(1).padStart(6)} MiB/s  cpu ${r.cpuSeconds.toFixed(2).padStart(6)} s  RSS ${r.maxRssMiB.toFixed(0).padStart(5)} MiB` +
  (r.documents !== undefined ? `  ${r.documents} documents, ${r.loads} loads, ${r.rejected} rejected` : '');

const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');

type Series = 'bare' | 'bare-split' | 'reader' | 'reader-only' | 'node-x12' | 'big';
type Mode = 'cold' | 'warm';
interface LayoutRuns {
  layout: Layout;
  runs: Record<Mode, Record<Series, Result[]>>;
}

async function main(): Promise<void> {
  console.log(
    `x12 bench: ${new Date().toISOString()}, node ${process.version}, ${cpus().length} x ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, medians of ${RUNS}`,
  );
  const layouts = LAYOUTS.filter((l) => CHOSEN.includes(l.id));
  const files = new Map<Layout, { file: string; big: string; warmup?: string }>();
  for (const layout of layouts) {
    files.set(layout, {
      file: await generate(layout, SIZE_MIB),
      big: await generate(layout, BIG_MIB),
      warmup: WARMUP_MIB > 0 ? await generate(layout, WARMUP_MIB) : undefined,
    });
  }
  const modes: Mode[] = WARMUP_MIB > 0 ? ['cold', 'warm'] : ['cold'];
  const series = (): Record<Series, Result[]> => ({
    bare: [],
    'bare-split': [],
    reader: [],
    'reader-only': [],
    'node-x12': [],
    big: [],
  });
  const all: LayoutRuns[] = layouts.map((layout) => ({ layout, runs: { cold: series(), warm: series() } }));
  const loads: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    for (const { layout, runs } of all) {
      const { file, big, warmup } = files.get(layout)!;
      console.log(
        `round ${r + 1}, ${layout.title} (load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')})`,
      );
      for (const mode of modes) {
        const warm = mode === 'warm' ? warmup : undefined;
        loads.push(loadavg()[0]);
        runs[mode].bare.push(runChild('bare', file, warm));
        runs[mode]['bare-split'].push(runChild('bare-split', file, warm));
        runs[mode].reader.push(runChild('reader', file, warm));
        if (process.env.READER_ONLY) {
          runs[mode]['reader-only'].push(runChild('reader-only', file, warm));
        }
        if (NODE_X12_MIB > 0 && SIZE_MIB <= NODE_X12_MIB) {
          runs[mode]['node-x12'].push(runChild('node-x12', file, warm));
        }
        runs[mode].big.push(runChild('reader', big, warm));
        loads.push(loadavg()[0]);
      }
    }
  }
  console.log(
    `\nload average (1 min) during the rounds: ${Math.min(...loads).toFixed(1)} - ${Math.max(...loads).toFixed(1)}`,
  );
  const summary: string[] = [];
  for (const { layout, runs } of all) {
    console.log(`\n${layout.title}`);
    for (const mode of modes) {
      const label = mode === 'warm' ? `warm (after ${WARMUP_MIB} MiB)` : 'cold';
      const s = runs[mode];
      const ours = summarise(s.reader);
      const bareLoop = summarise(s.bare);
      const bigRun = summarise(s.big);
      console.log(line(`${label} bare loop`, bareLoop));
      console.log(line(`${label} (bare with split())`, summarise(s['bare-split'])));
      console.log(line(`${label} reader + mapping`, ours));
      if (s['reader-only'].length) {
        console.log(line(`${label} reader alone`, summarise(s['reader-only'])));
      }
      console.log(line(`${label} reader + mapping`, bigRun));
      if (ours.problems || bigRun.problems) {
        console.log(`  !! the reader reported ${ours.problems + bigRun.problems} problems on a generated file`);
      }
      if (ours.documents !== ours.sets || ours.rejected) {
        console.log(
          `  !! the mapping made ${ours.documents} documents of ${ours.sets} sets (${ours.rejected} rejected)`,
        );
      }
      if (bareLoop.sets !== ours.sets) {
        console.log(`  !! the bare loop counted ${bareLoop.sets} sets, the reader ${ours.sets}`);
      }
      const toBare = ours.seconds / bareLoop.seconds;
      const bareRounds = s.reader.map((x, i) => (x.seconds / s.bare[i].seconds).toFixed(2));
      // CPU time as well: on a loaded machine a short child's wall time says more about its neighbours.
      const cpuToBare = ours.cpuSeconds / bareLoop.cpuSeconds;
      const parts = [
        `${layout.title}, ${label}, ${SIZE_MIB} MiB: reader + mapping / bare loop ${toBare.toFixed(2)}x (rounds ${bareRounds.join(', ')}; target <= ${TARGET_BARE}x: ${verdict(toBare <= TARGET_BARE)}), CPU time ${cpuToBare.toFixed(2)}x`,
      ];
      if (s['node-x12'].length) {
        const nodeX12 = summarise(s['node-x12']);
        console.log(line(`${label} node-x12 parse()`, nodeX12));
        if (nodeX12.sets !== ours.sets || nodeX12.segments !== ours.segments) {
          console.log(
            `  !! counts differ: reader ${ours.sets} sets / ${ours.segments} segments, node-x12 ${nodeX12.sets} / ${nodeX12.segments}`,
          );
        }
        const ratio = nodeX12.seconds / ours.seconds;
        const nodeRounds = s.reader.map((x, i) => (s['node-x12'][i].seconds / x.seconds).toFixed(1));
        parts.push(
          `  vs node-x12 ${ratio.toFixed(1)}x faster (rounds ${nodeRounds.join(', ')}; target >= ${TARGET_NODE_X12}x: ${verdict(ratio >= TARGET_NODE_X12)}), peak RSS ${(nodeX12.maxRssMiB / ours.maxRssMiB).toFixed(0)}x smaller`,
        );
      }
      const flat = bigRun.maxRssMiB <= TARGET_RSS_MIB && ours.maxRssMiB <= TARGET_RSS_MIB;
      parts.push(
        `  RSS ${SIZE_MIB} -> ${BIG_MIB} MiB: ${ours.maxRssMiB.toFixed(0)} -> ${bigRun.maxRssMiB.toFixed(0)} MiB (target <= ${TARGET_RSS_MIB} MiB: ${verdict(flat)})`,
      );
      summary.push(parts.join('\n'));
    }
  }
  console.log(`\nTargets, medians of this run:\n${summary.join('\n')}`);
}

if (process.argv[2] === '--child') {
  child(process.argv[3] as Kind, process.argv[4], process.argv[5]).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
