import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X12FatInterchange, X12Parser, X12Segment } from 'node-x12';
import { parseX12 } from './reader';

/**
 * node-x12 as the reference on well-formed files: both readers must yield the same segments.
 * (node-x12 cannot read BOMs, wrapped ISAs or several interchanges with different delimiters,
 * so those fixtures are not compared; it also strips the zero padding of ISA13/IEA02, so those
 * two elements are left out of the comparison.)
 */
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

type Row = string[];
const row = (s: X12Segment): Row => [s.tag, ...s.elements.map((e) => e.value)];
const withoutControl = (r: Row): Row =>
  r[0] === 'ISA' ? r.filter((_, i) => i !== 13) : r[0] === 'IEA' ? r.slice(0, 2) : r;

function nodeX12Rows(text: string): Row[] {
  const parsed = new X12Parser(false).parse(text);
  const interchanges = parsed instanceof X12FatInterchange ? [...parsed] : [parsed];
  const rows: Row[] = [];
  for (const i of interchanges) {
    rows.push(row(i.header));
    for (const g of i.functionalGroups) {
      rows.push(row(g.header));
      for (const t of g.transactions) {
        rows.push(row(t.header), ...t.segments.map(row), row(t.trailer));
      }
      rows.push(row(g.trailer));
    }
    if (i.trailer) {
      rows.push(row(i.trailer));
    } // node-x12 drops an unterminated IEA
  }
  return rows.map(withoutControl);
}

function ourRows(text: string): Row[] {
  const rows: Row[] = [];
  for (const i of parseX12(text).interchanges) {
    rows.push([i.header.tag, ...i.header.elements]);
    for (const g of i.groups) {
      rows.push([g.header.tag, ...g.header.elements]);
      for (const t of g.transactionSets) {
        rows.push(...t.segments.map((s) => [s.tag, ...s.elements]));
      }
      if (g.trailer) {
        rows.push([g.trailer.tag, ...g.trailer.elements]);
      }
    }
    if (i.trailer) {
      rows.push([i.trailer.tag, ...i.trailer.elements]);
    }
  }
  return rows.map(withoutControl);
}

describe('reader vs node-x12 X12Parser on well-formed files', () => {
  it.each([
    'star-tilde-lf-850.edi',
    'pipe-single-line-4-sets.x12',
    'plus-component-duplicate-st02.x12',
    'tilde-element-lf-terminator.x12',
    'caret-repetition-crlf-856.edi',
    'lf-terminator-856.edi',
    'zero-padded-se01.x12',
    'broken-se01-mismatch.edi', // envelope counts wrong, syntax fine
    'broken-syntax-notes.edi',
  ])('%s: same segments', (name) => {
    const text = fixture(name);
    const ours = ourRows(text);
    expect(ours.length).toBeGreaterThan(10);
    expect(ours).toEqual(nodeX12Rows(text));
  });

  it('reads what node-x12 garbles: an 80-column wrapped file equals its unwrapped self in node-x12', () => {
    const wrapped = fixture('wrapped-80-columns.x12');
    expect(ourRows(wrapped)).toEqual(nodeX12Rows(wrapped.replace(/\n/g, '')));
  });

  it('keeps the last segment node-x12 drops when it has no terminator', () => {
    const text = fixture('no-trailing-terminator.edi');
    expect(ourRows(text).at(-1)?.[0]).toBe('IEA');
    expect(ourRows(text).slice(0, -1)).toEqual(nodeX12Rows(text));
  });
});
