import { readX12 } from './reader';
import type { Interchange } from './x12.types';

/** An interchange of `groups` groups of one 856 each, read in chunks of `chunk` characters. */
async function readInChunks(groups: number, chunk: number): Promise<Interchange> {
  const isa =
    'ISA*00*          *00*          *ZZ*KETTLE         *ZZ*ACMEDC         *261120*0830*U*00401*000000001*0*T*>~';
  const parts = [isa];
  for (let g = 1; g <= groups; g++) {
    parts.push(
      `GS*SH*KETTLE-SUPPLY-CO*ACME-DISTRIBUTION*20261120*0830*${g}*X*004010~`,
      'ST*856*0001~',
      `BSN*00*ASN-${g}*20261201*1200~`,
      'SE*3*0001~',
      `GE*1*${g}~`,
    );
  }
  parts.push('IEA*' + groups + '*000000001~');
  const text = parts.join('\n');
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += chunk) {
    chunks.push(text.slice(at, at + chunk));
  }
  let done: Interchange | undefined;
  for await (const event of readX12(chunks)) {
    if (event.type === 'interchangeEnd') {
      done = event.interchange;
    }
  }
  return done!;
}

describe('segments an interchange keeps until its end', () => {
  // A large file has one group per 1,000 sets: a kept GS or GE lying in its chunk of the file would hold
  // that chunk (256 KiB when the worker reads a stored upload) in memory until the interchange ends.
  it('hold their own text, not the chunk of the file they were read from', async () => {
    const interchange = await readInChunks(40, 300);
    const kept = [
      interchange.header,
      interchange.trailer!,
      ...interchange.groups.flatMap((g) => [g.header, g.trailer!]),
    ];
    expect(kept).toHaveLength(2 + 2 * 40);
    for (const segment of kept) {
      expect(segment.start).toBe(0);
      expect(segment.text).toHaveLength(segment.end);
      expect(segment.text).not.toContain('~');
    }
  });

  it('still read as the segments they copy', async () => {
    const interchange = await readInChunks(3, 64);
    const [group] = interchange.groups;
    expect(group.header.tag).toBe('GS');
    expect(group.header.element(2)).toBe('KETTLE-SUPPLY-CO');
    expect(group.senderCode).toBe('KETTLE-SUPPLY-CO');
    expect(group.trailer!.elements).toEqual(['1', '1']);
    expect(interchange.header.element(6)).toBe('KETTLE         ');
    expect(interchange.trailer!.element(1)).toBe('3');
    expect(interchange.groups[2].header.line).toBe(12);
    expect(interchange.problems).toEqual([]);
  });
});
