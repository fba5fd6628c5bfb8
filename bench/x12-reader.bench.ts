/**
 * X12 benchmark: dockbridge's streaming reader (+ envelope validation and syntax notes) followed by
 * the mapping (`mapTransaction` of @dockbridge/mapping: one AdvanceShipNotice document per 856)
 * against node-x12 `parse()` on the same generated 856 files (50 and 100 MiB), in one run; the file
 * twice as big also shows that the reader's memory does not grow with the input. Each measurement
 * runs in a fresh child process, so peak RSS (getrusage maxRSS) belongs to one reader. The rounds
 * interleave (reader 50, node-x12 50, reader 100, node-x12 100; cold, then warm: each child first
 * reads a small file untimed, as a long-running worker has) so a change in the machine's load hits
 * both sides alike; medians of RUNS rounds.
 *
 *   npm run build && node dist/bench/x12-reader.bench.js
 *   (RUNS=3 SIZE_MIB=50 BIG_MIB=100 NODE_X12_MIB=100 to change: node-x12 runs on each file up to
 *   NODE_X12_MIB (50 runs it on the 50 MiB file only, 0 skips it); WARMUP_MIB=10 (0: cold only);
 *   READER_ONLY=1 also times the reader without the mapping)
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata'; // @dockbridge/mapping carries the canonical DTOs (class-validator decorators)
import { mapTransaction, type EdiMappingSettings } from '@dockbridge/mapping';
import { readX12 } from '@dockbridge/x12';
import { median } from './bench-documents';

const MiB = 1024 * 1024;
const RUNS = Number(process.env.RUNS ?? 3);
const SIZE_MIB = Number(process.env.SIZE_MIB ?? 50);
const BIG_MIB = Number(process.env.BIG_MIB ?? 100);
/**
 * node-x12 runs on the files up to this size (both by default). It needs ~60x the file in RAM
 * (STACK.md): 100 MiB -> ~6 GB. Capped at 100; 0 skips it.
 */
const NODE_X12_MIB = Math.min(Number(process.env.NODE_X12_MIB ?? BIG_MIB), 100);
/**
 * Each child also runs warm: after reading a file this big untimed, as a long-running worker has
 * (node-x12 likewise). 0: cold runs only.
 */
const WARMUP_MIB = Number(process.env.WARMUP_MIB ?? 10);
/** Mapping settings of the receiving partner: the ASNs ship to DC01, which is the location. */
const SETTINGS: EdiMappingSettings = {
  organisationId: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
  coreName: 'ACME',
  locationCodes: ['DC01'],
};
/** Sets per functional group in the generated file. */
const SETS_PER_GROUP = 1000;

interface Result {
  seconds: number;
  mib: number;
  sets: number;
  segments: number;
  problems: number;
  /** CPU seconds of the child (user + system, all its threads: GC helpers included). */
  cpuSeconds: number;
  /** Reader + mapping child: documents the mapping produced (one per ASN), their loads, sets it rejected. */
  documents?: number;
  loads?: number;
  rejected?: number;
  maxRssMiB: number;
}

/** One ASN: shipment, 4 orders, 3 packs each, 2 items per pack (HL S/O/P/I with parent pointers). */
function asn(n: number): string {
  const control = String(n).padStart(9, '0');
  const segs: string[] = [
    `ST*856*${control}`,
    `BSN*00*SH${control}*20260106*1015*0001`,
    'HL*1**S',
    'TD1*CTN*24****G*480*LB',
    `TD5*O*2*FFRT`,
    `REF*BM*BOL${control}`,
    `REF*CN*PRO${control}`,
    'DTM*011*20260106',
    'DTM*017*20260108',
    'N1*SF*KETTLE SUPPLY*92*SUP-KETTLE',
    'N3*1 FACTORY LANE',
    'N4*SPRINGFIELD*IL*62701*US',
    'N1*ST*ACME DC 01*92*DC01',
  ];
  let hl = 1;
  for (let o = 0; o < 4; o++) {
    const order = ++hl;
    segs.push(`HL*${order}*1*O`, `PRF*PO${control}${o}***20260101`, `REF*IA*VENDOR${o}`);
    for (let p = 0; p < 3; p++) {
      const pack = ++hl;
      segs.push(`HL*${pack}*${order}*P`, `MAN*GM*00012345${control}${o}${p}`);
      for (let i = 0; i < 2; i++) {
        ++hl;
        segs.push(
          `HL*${hl}*${pack}*I`,
          `LIN*${i + 1}*SK*KET-${o}${p}${i}*UP*0123456789${p}${i}`,
          `SN1**${6 * (i + 1)}*EA`,
          `PID*F****STEEL KETTLE MODEL ${i}`,
        );
      }
    }
  }
  segs.push(`CTT*${hl}`);
  segs.push(`SE*${segs.length + 1}*${control}`);
  return segs.join('~\n') + '~\n';
}

/** Writes an 856 interchange of at least `mib` MiB (streamed out: the generator holds one group at a time). */
async function generate(mib: number): Promise<string> {
  const file = join(tmpdir(), `dockbridge-x12-bench-856-${mib}mib.edi`);
  if (existsSync(file) && statSync(file).size >= mib * MiB) {
    return file;
  }
  const out = createWriteStream(file);
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await write(
    'ISA*00*          *00*          *ZZ*KETTLESUPPLY   *ZZ*DOCKBRIDGE     *260106*1015*U*00401*000000001*0*P*>~\n',
  );
  let bytes = 0;
  let n = 0;
  let groups = 0;
  while (bytes < mib * MiB) {
    groups++;
    let group = `GS*SH*KETTLESUPPLY*DOCKBRIDGE*20260106*1015*${groups}*X*004010~\n`;
    let sets = 0;
    while (sets < SETS_PER_GROUP && bytes + group.length < mib * MiB + 4096) {
      group += asn(++n);
      sets++;
    }
    group += `GE*${sets}*${groups}~\n`;
    bytes += group.length;
    await write(group);
  }
  await write(`IEA*${groups}*000000001~\n`);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return file;
}

interface Counts {
  sets: number;
  segments: number;
  problems: number;
  documents: number;
  loads: number;
  rejected: number;
}

/** One reader over one file: the work being measured. */
async function read(kind: string, file: string): Promise<Counts> {
  const counts: Counts = { sets: 0, segments: 0, problems: 0, documents: 0, loads: 0, rejected: 0 };
  if (kind === 'reader' || kind === 'reader-only') {
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
async function child(kind: string, file: string, warmupFile?: string): Promise<void> {
  if (warmupFile) {
    await read(kind, warmupFile);
  }
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const { documents, loads, rejected, ...counts } = await read(kind, file);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  const result: Result = {
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    mib: statSync(file).size / MiB,
    ...counts,
    ...(kind === 'reader' && { documents, loads, rejected }),
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(JSON.stringify(result));
}

type Kind = 'reader' | 'reader-only' | 'node-x12';

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
  `${label.padEnd(34)} ${r.mib.toFixed(1).padStart(6)} MiB  ${r.sets.toString().padStart(6)} sets  ${r.segments.toString().padStart(9)} segs  ` +
  `${r.seconds.toFixed(2).padStart(7)} s  ${(r.mib / r.seconds).toFixed(1).padStart(7)} MiB/s  cpu ${r.cpuSeconds.toFixed(2).padStart(6)} s  RSS ${r.maxRssMiB.toFixed(0).padStart(5)} MiB` +
  (r.documents !== undefined ? `  ${r.documents} documents, ${r.loads} loads, ${r.rejected} rejected` : '');

async function main(): Promise<void> {
  console.log(
    `x12 bench: ${new Date().toISOString()}, node ${process.version}, ${cpus().length} x ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, medians of ${RUNS}`,
  );
  const file = await generate(SIZE_MIB);
  const big = await generate(BIG_MIB);
  const warmup = WARMUP_MIB > 0 ? await generate(WARMUP_MIB) : undefined;
  // node-x12 on the same files as the reader (each <= NODE_X12_MIB): it slows down more than
  // linearly with size, so both ratios are shown.
  const nodeOn = (size: number) => NODE_X12_MIB > 0 && size <= NODE_X12_MIB;
  const modes: ('cold' | 'warm')[] = warmup ? ['cold', 'warm'] : ['cold'];
  type Series = 'reader' | 'reader-only' | 'node-x12' | 'big' | 'node-x12-big';
  const series = (): Record<Series, Result[]> => ({
    reader: [],
    'reader-only': [],
    'node-x12': [],
    big: [],
    'node-x12-big': [],
  });
  const runs = { cold: series(), warm: series() };
  const loads: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    console.log(
      `round ${r + 1} (load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    );
    for (const mode of modes) {
      const warm = mode === 'warm' ? warmup : undefined;
      loads.push(loadavg()[0]);
      runs[mode].reader.push(runChild('reader', file, warm));
      if (process.env.READER_ONLY) {
        runs[mode]['reader-only'].push(runChild('reader-only', file, warm));
      }
      if (nodeOn(SIZE_MIB)) {
        runs[mode]['node-x12'].push(runChild('node-x12', file, warm));
      }
      runs[mode].big.push(runChild('reader', big, warm));
      if (nodeOn(BIG_MIB) && big !== file) {
        runs[mode]['node-x12-big'].push(runChild('node-x12', big, warm));
      }
      loads.push(loadavg()[0]);
    }
  }
  console.log(
    `load average (1 min) during the rounds: ${Math.min(...loads).toFixed(1)} - ${Math.max(...loads).toFixed(1)}`,
  );
  const compare = (label: string, readerRuns: Result[], nodeRuns: Result[]) => {
    const ours = summarise(readerRuns);
    console.log(line(`${label} reader + mapping ${ours.mib.toFixed(0)} MiB`, ours));
    if (ours.problems) {
      console.log(`!! the reader reported ${ours.problems} problems on a generated file`);
    }
    if (ours.documents !== ours.sets || ours.rejected) {
      console.log(`!! the mapping made ${ours.documents} documents of ${ours.sets} sets (${ours.rejected} rejected)`);
    }
    if (nodeRuns.length === 0) {
      return;
    }
    const nodeX12 = summarise(nodeRuns);
    console.log(line(`${label} node-x12 parse() ${nodeX12.mib.toFixed(0)} MiB`, nodeX12));
    if (nodeX12.sets !== ours.sets || nodeX12.segments !== ours.segments) {
      console.log(
        `!! counts differ: reader ${ours.sets} sets / ${ours.segments} segments, node-x12 ${nodeX12.sets} / ${nodeX12.segments}`,
      );
    }
    const throughput = ours.mib / ours.seconds / (nodeX12.mib / nodeX12.seconds);
    const perRound = readerRuns.map((r, i) => (r.mib / r.seconds / (nodeRuns[i].mib / nodeRuns[i].seconds)).toFixed(1));
    const at = `${label}, ${nodeX12.mib.toFixed(0)} MiB:`;
    console.log(
      `${at} throughput ratio reader + mapping / node-x12 ${throughput.toFixed(1)}x (rounds: ${perRound.join(', ')}; target >= 25x)`,
    );
    console.log(
      `${at} CPU-time ratio ${(nodeX12.cpuSeconds / nodeX12.mib / (ours.cpuSeconds / ours.mib)).toFixed(1)}x, peak RSS ratio ${(nodeX12.maxRssMiB / ours.maxRssMiB).toFixed(1)}x`,
    );
  };
  for (const mode of modes) {
    const label = mode === 'warm' ? `warm (after ${WARMUP_MIB} MiB)` : 'cold';
    compare(label, runs[mode].reader, runs[mode]['node-x12']);
    if (runs[mode]['reader-only'].length) {
      console.log(line(`${label} reader alone ${SIZE_MIB} MiB`, summarise(runs[mode]['reader-only'])));
    }
    compare(label, runs[mode].big, runs[mode]['node-x12-big']);
  }
  const rss = (rs: Result[]) => summarise(rs).maxRssMiB.toFixed(0);
  console.log(
    `reader + mapping RSS (cold) ${SIZE_MIB} -> ${BIG_MIB} MiB: ${rss(runs.cold.reader)} -> ${rss(runs.cold.big)} MiB (target <= 150 MiB)`,
  );
}

if (process.argv[2] === '--child') {
  child(process.argv[3], process.argv[4], process.argv[5]).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
