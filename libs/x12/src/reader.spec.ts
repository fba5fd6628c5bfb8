import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseX12, readX12 } from './reader';
import type { X12Event } from './x12.types';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

async function collect(
  source: AsyncIterable<Buffer | string> | Iterable<Buffer | string> | Readable,
): Promise<X12Event[]> {
  const events: X12Event[] = [];
  for await (const e of readX12(source)) {
    events.push(e);
  }
  return events;
}

describe('readX12 (streaming)', () => {
  it('yields envelope events and one transaction set at a time, in order', async () => {
    const events = await collect(Readable.from([Buffer.from(fixture('two-interchanges.edi'))]));
    expect(events.map((e) => e.type)).toEqual([
      'interchange',
      'group',
      'transactionSet',
      'groupEnd',
      'interchangeEnd',
      'interchange',
      'group',
      'transactionSet',
      'groupEnd',
      'interchangeEnd',
    ]);
    const sets = events.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet] : []));
    expect(sets.map((s) => [s.id, s.control, s.segments.length, s.groupControl])).toEqual([
      ['850', '0001', 15, '10'],
      ['856', '0001', 35, '11'],
    ]);
  });

  it('does not keep sets in their group when streaming (summaries only)', async () => {
    const events = await collect([fixture('pipe-single-line-4-sets.x12')]);
    const end = events.find((e) => e.type === 'groupEnd');
    expect(end?.type === 'groupEnd' && end.group.transactionSets).toEqual([]);
    expect(end?.type === 'groupEnd' && end.group.summaries.map((s) => s.control)).toEqual([
      '0001',
      '0002',
      '0003',
      '0004',
    ]);
  });

  it('emits each problem once, as it is found, before the structure it spoils is handed out', async () => {
    const events = await collect([fixture('broken-se01-mismatch.edi')]);
    const types = events.map((e) => (e.type === 'problem' ? `problem:${e.problem.code}` : e.type));
    expect(types).toEqual([
      'interchange',
      'group',
      'problem:SE01_SEGMENT_COUNT',
      'transactionSet',
      'groupEnd',
      'interchangeEnd',
    ]);
  });

  it('reads byte by byte, splitting the ISA, CRLF pairs and multi-byte characters', async () => {
    const text = fixture('caret-repetition-crlf-856.edi').replace('KETTLE SUPPLY', 'KETTLE SÜPPLY €');
    const bytes = Buffer.from(text);
    const oneByOne = (async function* () {
      for (let i = 0; i < bytes.length; i++) {
        yield bytes.subarray(i, i + 1);
      }
    })();
    const events = await collect(oneByOne);
    const whole = parseX12(text);
    const sets = events.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet] : []));
    // Compared as plain data: segments point into different texts (one per chunk vs the whole).
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(plain(sets)).toEqual(plain(whole.interchanges[0].groups[0].transactionSets));
    expect(JSON.stringify(sets)).toContain('KETTLE SÜPPLY €');
  });

  it('reads a file stream as latin1 when asked (bytes that are not UTF-8)', async () => {
    const bytes = Buffer.from(fixture('star-tilde-lf-850.edi').replace('ACME DC 01', 'ACME DC \xe9'), 'latin1');
    const events: X12Event[] = [];
    for await (const e of readX12([bytes], { encoding: 'latin1' })) {
      events.push(e);
    }
    const set = events.find((e) => e.type === 'transactionSet');
    expect(JSON.stringify(set)).toContain('ACME DC é');
  });

  it('closes what is open when the stream ends early', async () => {
    const events = await collect([fixture('broken-missing-ge-iea.edi')]);
    expect(events.filter((e) => e.type === 'problem').map((e) => e.type === 'problem' && e.problem.code)).toEqual([
      'MISSING_GE',
      'MISSING_IEA',
    ]);
    expect(events.at(-1)?.type).toBe('interchangeEnd');
  });
});
