/**
 * The X12 layouts bench:x12 reads: generated files of common 856 and 850 shapes, written into
 * os.tmpdir() (kept between runs, one file per layout and size).
 */
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MiB = 1024 * 1024;
/** Sets per functional group in a generated file. */
const SETS_PER_GROUP = 1000;

export interface Layout {
  /** Short name, in file names and the report. */
  id: string;
  title: string;
  /** GS01 of its groups. */
  functionalId: string;
  /** The segments of set `n`, ST..SE, terminated by `~\n`. */
  set(n: number): string;
}

const seal = (segs: string[]) => {
  segs.push(`SE*${segs.length + 1}*${segs[0].split('*')[2]}`);
  return segs.join('~\n') + '~\n';
};

/** The ASN header every 856 layout shares: BSN, shipment level, carrier, references, dates, parties. */
function asnHead(control: string, extra: string[] = []): string[] {
  return [
    `ST*856*${control}`,
    `BSN*00*SH${control}*20260106*1015*0001`,
    'HL*1**S',
    'TD1*CTN*24****G*480*LB',
    'TD5*O*2*FFRT',
    `REF*BM*BOL${control}`,
    `REF*CN*PRO${control}`,
    'DTM*011*20260106',
    'DTM*017*20260108',
    'N1*SF*KETTLE SUPPLY*92*SUP-KETTLE',
    'N3*1 FACTORY LANE',
    'N4*SPRINGFIELD*IL*62701*US',
    'N1*ST*ACME DC 01*92*DC01',
    ...extra,
  ];
}

/** Shipment, 4 orders, 3 packs each, 2 items per pack (HL S/O/P/I); LIN, SN1, PID per item. 147 segments. */
const standardPack: Layout = {
  id: 'sopi',
  title: 'S/O/P/I',
  functionalId: 'SH',
  set(n) {
    const control = String(n).padStart(9, '0');
    const segs = asnHead(control);
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
    return seal(segs);
  },
};

/**
 * Pallets: shipment, 2 orders, 4 tares each with its SSCC (MAN*GM) and pallet type (PO4), 6 items
 * per tare with short segments (LIN with one id, SN1, no PID). HL S/O/T/I, 109 segments.
 */
const tarePallets: Layout = {
  id: 'soti',
  title: 'S/O/T/I + MAN',
  functionalId: 'SH',
  set(n) {
    const control = String(n).padStart(9, '0');
    const segs = asnHead(control);
    let hl = 1;
    for (let o = 0; o < 2; o++) {
      const order = ++hl;
      segs.push(`HL*${order}*1*O`, `PRF*PO${control}${o}`);
      for (let t = 0; t < 4; t++) {
        const tare = ++hl;
        segs.push(`HL*${tare}*${order}*T`, 'PO4*1*24*EA*PLT94', `MAN*GM*0012345${control}${o}${t}`);
        for (let i = 0; i < 6; i++) {
          ++hl;
          segs.push(`HL*${hl}*${tare}*I`, `LIN**SK*K${o}${t}${i}`, `SN1**${i + 1}*CA`);
        }
      }
    }
    segs.push(`CTT*${hl}`);
    return seal(segs);
  },
};

/** Pick and pack without packs: shipment, 3 orders, 8 items each (HL S/O/I); LIN with two ids, SN1, PID. 114 segments. */
const pickAndPack: Layout = {
  id: 'soi',
  title: 'S/O/I pick and pack',
  functionalId: 'SH',
  set(n) {
    const control = String(n).padStart(9, '0');
    const segs = asnHead(control);
    let hl = 1;
    for (let o = 0; o < 3; o++) {
      const order = ++hl;
      segs.push(`HL*${order}*1*O`, `PRF*PO${control}${o}***20260101`);
      for (let i = 0; i < 8; i++) {
        ++hl;
        segs.push(
          `HL*${hl}*${order}*I`,
          `LIN*${i + 1}*SK*SKU-${o}${i}*VP*VEND-${o}${i}`,
          `SN1**${i + 2}*EA`,
          `PID*F****ITEM ${o}-${i}`,
        );
      }
    }
    segs.push(`CTT*${hl}`);
    return seal(segs);
  },
};

/**
 * A retailer's 850: header noise (CUR, REF, PER, FOB, SAC, ITD, N9/MSG), 60 PO1 lines each with
 * PID, PO4, SAC and N9/MSG noise the mapping skips. 323 segments.
 */
const purchaseOrder: Layout = {
  id: '850',
  title: '850 PO1 + SAC/N9',
  functionalId: 'PO',
  set(n) {
    const control = String(n).padStart(9, '0');
    const segs = [
      `ST*850*${control}`,
      `BEG*00*SA*PO${control}**20260106`,
      'CUR*BY*USD',
      'REF*DP*042',
      'REF*IA*VENDOR7',
      'PER*BD*JANE BUYER*TE*5551234567',
      'FOB*PP',
      'SAC*C*D240***1500',
      'ITD*01*3*2**30**60',
      'DTM*037*20261201',
      'DTM*038*20261203',
      'TD5*B*2*FFRT*M',
      'N9*L1*SPECIAL INSTRUCTIONS',
      'MSG*DELIVER TO DOCK 4 BETWEEN 6 AND 10',
      'N1*ST*ACME DC 01*92*DC01',
      'N3*1 DOCK ROAD',
      'N4*SPRINGFIELD*IL*62701*US',
      'N1*VN*KETTLE SUPPLY*92*SUP-KETTLE',
    ];
    for (let l = 1; l <= 60; l++) {
      segs.push(
        `PO1*${l}*${(l % 9) + 1}*CA*12.5*PE*UP*0123456${String(l).padStart(5, '0')}*VN*V${l}*SK*SKU-${l}`,
        `PID*F****KETTLE CHIPS ${l}`,
        'PO4*12*1*EA',
        `SAC*A*C310***${l * 10}`,
        `N9*ZZ*LINE${l}`,
      );
    }
    segs.push('CTT*60');
    return seal(segs);
  },
};

export const LAYOUTS: readonly Layout[] = [standardPack, tarePallets, pickAndPack, purchaseOrder];

/** Writes one interchange of `layout` of at least `mib` MiB (streamed out: one group at a time). */
export async function generate(layout: Layout, mib: number): Promise<string> {
  const file = join(tmpdir(), `dockbridge-x12-bench-${layout.id}-${mib}mib.edi`);
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
    let group = `GS*${layout.functionalId}*KETTLESUPPLY*DOCKBRIDGE*20260106*1015*${groups}*X*004010~\n`;
    let sets = 0;
    while (sets < SETS_PER_GROUP && bytes + group.length < mib * MiB + 4096) {
      group += layout.set(++n);
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
