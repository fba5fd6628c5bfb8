/** The 856 files the large-file benches upload: ASNs, 1,000 per functional group. */
import { createWriteStream } from 'node:fs';

const MiB = 1024 * 1024;

/** One ASN of `items` items (S/O/I): about 200 + 70 x items bytes. */
function asn(tag: string, n: number, st: string, items: number, purpose: string): string {
  const segments = [
    `ST*856*${st}`,
    `BSN*${purpose}*ASN-${tag}-${n}*20261201*1200`,
    'HL*1**S',
    'TD5*O*2*BLUE',
    `REF*BM*BOL-${n}`,
    'DTM*011*20261201*0800',
    'DTM*017*20261202',
    'N1*SF*Kettle Foods*92*SUP-KETTLE',
    'N1*ST*Main DC*92*DC01',
    'HL*2*1*O',
    `PRF*PO-${n}`,
  ];
  for (let i = 1; i <= items; i++) {
    segments.push(`HL*${i + 2}*2*I`, `LIN**SK*SKU-${(n * 7 + i) % 5000}`, `SN1**${i}*CA`, `PID*F****Item ${i}`);
  }
  segments.push(`CTT*${items}`);
  segments.push(`SE*${segments.length + 1}*${st}`);
  return segments.map((s) => `${s}~\n`).join('');
}

/** How the ASNs are enveloped, and what they say. */
export interface AsnFileShape {
  /** ASNs per interchange (default: all in one). */
  setsPerInterchange?: number;
  /** ASNs per functional group (default 1,000). */
  setsPerGroup?: number;
  /** BSN01 (default 00, original); one the mapping refuses makes every set refused. */
  purpose?: string;
}

/**
 * Writes ASNs of `items` items, at least `mib` MiB, enveloped as `shape` says; answers the file's
 * size and the ASNs in it.
 */
export async function writeAsnFile(
  path: string,
  mib: number,
  items: number,
  { setsPerInterchange = Infinity, setsPerGroup = 1000, purpose = '00' }: AsnFileShape = {},
): Promise<{ bytes: number; asns: number }> {
  const base = Math.floor(Math.random() * 1e8);
  const out = createWriteStream(path);
  let bytes = 0;
  const put = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) {
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  };
  let asns = 0;
  for (let interchange = 0; bytes < mib * MiB; interchange++) {
    const control = String(base + interchange).padStart(9, '0');
    await put(
      `ISA*00*          *00*          *ZZ*KETTLE         *ZZ*ACMEDC         *261120*0830*U*00401*${control}*0*T*>~\n`,
    );
    let group = 0;
    for (let inInterchange = 0; bytes < mib * MiB && inInterchange < setsPerInterchange;) {
      group++;
      await put(`GS*SH*KETTLE*ACMEDC*20261120*0830*${group}*X*004010~\n`);
      let sets = 0;
      for (; sets < setsPerGroup && bytes < mib * MiB && inInterchange < setsPerInterchange; sets++, inInterchange++) {
        await put(asn(control, ++asns, String(sets + 1).padStart(4, '0'), items, purpose));
      }
      await put(`GE*${sets}*${group}~\n`);
    }
    await put(`IEA*${group}*${control}~\n`);
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return { bytes, asns };
}
