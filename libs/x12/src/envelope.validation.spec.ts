import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { interchangeKey, parseCount, sameControl, validateIsa } from './envelope.validation';
import { parseX12, tokenizeX12 } from './reader';
import type { Problem } from './x12.types';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const codes = (problems: Problem[]) => problems.map((p) => p.code);

describe('envelope validation', () => {
  it.each([
    'star-tilde-lf-850.edi',
    'pipe-single-line-4-sets.x12',
    'tilde-element-lf-terminator.x12',
    'caret-repetition-crlf-856.edi',
    'lf-terminator-856.edi',
    'bom-leading-whitespace.edi',
    'two-interchanges.edi',
    'zero-padded-se01.x12',
    'wrapped-80-columns.x12',
  ])('%s has a valid envelope', (name) => {
    const doc = parseX12(fixture(name));
    expect(doc.problems).toEqual([]);
    for (const i of doc.interchanges) {
      expect(i.trailer?.tag).toBe('IEA');
      for (const g of i.groups) {
        expect(g.trailer?.tag).toBe('GE');
      }
    }
  });

  it('accepts a zero-padded SE01 as a number', () => {
    const doc = parseX12(fixture('zero-padded-se01.x12'));
    const set = doc.interchanges[0].groups[0].transactionSets[0];
    expect(set.trailer?.elements[0]).toBe('0000000015');
    expect(set.segments).toHaveLength(15);
    expect(parseCount('0000000026')).toBe(26);
    expect(parseCount('2 6')).toBeNaN();
  });

  it('reports ISA13 != IEA02 on the IEA', () => {
    const doc = parseX12(fixture('broken-isa13-iea02-mismatch.edi'));
    expect(codes(doc.interchanges[0].problems)).toEqual(['ISA13_IEA02_MISMATCH']);
    expect(doc.interchanges[0].problems[0]).toMatchObject({
      tag: 'IEA',
      line: 27,
      column: 1,
      segmentIndex: 26,
      element: 2,
    });
  });

  it('reports SE01 != actual count on the SE, with its set position', () => {
    const doc = parseX12(fixture('broken-se01-mismatch.edi'));
    const set = doc.interchanges[0].groups[0].summaries[0];
    expect(set.problems).toEqual([
      expect.objectContaining({ code: 'SE01_SEGMENT_COUNT', tag: 'SE', setPosition: 15, line: 17 }),
    ]);
    expect(set.problems[0].message).toContain('SE01 "33" but the set has 15 segments');
  });

  it('reports a truncated file: missing GE and IEA', () => {
    const doc = parseX12(fixture('broken-missing-ge-iea.edi'));
    const i = doc.interchanges[0];
    expect(codes(i.groups[0].problems)).toEqual(['MISSING_GE']);
    expect(codes(i.problems)).toEqual(['MISSING_IEA']);
    expect(i.groups[0].summaries[0].problems).toEqual([]); // the set itself was complete
  });

  it('reports a missing SE when the next ST or the end comes first', () => {
    const text = fixture('star-tilde-lf-850.edi');
    const noSe = text.replace(/SE\*17\*0001~\n/, '');
    const doc = parseX12(noSe);
    expect(codes(doc.problems)).toEqual(['MISSING_SE']); // the truncated set still counts for GE01
    expect(doc.problems[0]).toMatchObject({ tag: 'GE' });
  });

  it('reports duplicate ST02 within a group, not across groups', () => {
    const doc = parseX12(fixture('plus-component-duplicate-st02.x12'));
    const [g1, g2] = doc.interchanges[0].groups;
    expect(g1.summaries.map((s) => codes(s.problems))).toEqual([[], ['DUPLICATE_ST02']]);
    expect(g2.summaries.map((s) => codes(s.problems))).toEqual([[]]);
  });

  it('reports ST02/SE02, GS06/GE02 mismatches and wrong GE01/IEA01 counts', () => {
    const text = fixture('star-tilde-lf-850.edi')
      .replace('SE*17*0001', 'SE*17*0002')
      .replace('GE*1*1', 'GE*2*9')
      .replace('IEA*1*', 'IEA*3*');
    expect(codes(parseX12(text).problems)).toEqual([
      'ST02_SE02_MISMATCH',
      'GE01_SET_COUNT',
      'GS06_GE02_MISMATCH',
      'IEA01_GROUP_COUNT',
    ]);
  });

  it('reports segments outside the envelope once per run', () => {
    const text = fixture('star-tilde-lf-850.edi');
    const withJunk = text
      .replace('ST*850', 'REF*X*1~\nREF*X*2~\nST*850')
      .replace(/IEA\*1\*000000101~\n/, 'IEA*1*000000101~\nN1*ST*X~\nN1*ST*Y~\n');
    const doc = parseX12(withJunk);
    expect(codes(doc.problems)).toEqual(['SEGMENT_OUTSIDE_SET', 'NO_INTERCHANGE']);
    const noGs = text.replace(/GS\*.*\n/, '');
    expect(codes(parseX12(noGs).problems)).toEqual(['SEGMENT_OUTSIDE_GROUP', 'GE_WITHOUT_GS', 'IEA01_GROUP_COUNT']);
  });

  it('checks ISA field widths and formats', () => {
    const { segments } = tokenizeX12(fixture('star-tilde-lf-850.edi'));
    expect(validateIsa(segments[0])).toEqual([]);
    const bad = { ...segments[0], elements: [...segments[0].elements] };
    bad.elements[5] = 'SHORT';
    bad.elements[12] = '00000010A';
    bad.elements[14] = 'X';
    expect(validateIsa(bad).map((p) => p.element)).toEqual([6, 13, 15]);
    expect(validateIsa({ ...bad, elements: bad.elements.slice(0, 12) })[0].message).toContain('12 elements');
  });

  it('keys interchanges by sender and ISA13 for duplicate detection', () => {
    const [a, b] = parseX12(fixture('star-tilde-lf-850.edi') + fixture('star-tilde-lf-850.edi')).interchanges;
    expect(interchangeKey(a)).toBe('ZZ/KETTLESUPPLY/000000101');
    expect(interchangeKey(a)).toBe(interchangeKey(b.fields));
  });

  it('compares control numbers with padding ignored', () => {
    expect(sameControl('0001', '1')).toBe(true);
    expect(sameControl('000003438', '000000049')).toBe(false);
    expect(sameControl('', '')).toBe(false);
  });
});
