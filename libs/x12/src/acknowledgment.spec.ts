import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { acknowledgeGroup, build997, buildTA1, ta1NoteCode } from './acknowledgment';
import { parseX12 } from './reader';
import type { Segment } from './x12.types';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const options = { senderId: 'DOCKBRIDGE', controlNumber: 42, date: new Date('2026-01-02T03:04:00Z') };
const rows = (segments: Segment[]) => segments.map((s) => [s.tag, ...s.elements].join('*'));

/** Reads an acknowledgment back with our reader: it must be a clean interchange. */
function readBack(text: string) {
  const doc = parseX12(text);
  expect(doc.problems).toEqual([]);
  return doc.interchanges[0];
}

describe('997 functional acknowledgment', () => {
  it('accepts a clean group: AK1, AK2/AK5 A per set, AK9 A with counts', () => {
    const received = parseX12(fixture('pipe-single-line-4-sets.x12')).interchanges[0];
    const ack = readBack(build997(received, options));
    expect(ack.fields).toMatchObject({
      senderId: 'DOCKBRIDGE     ',
      receiverId: 'KETTLESUPPLY   ',
      controlNumber: '000000042',
      usage: 'T',
      version: '00401',
    });
    expect(ack.groups[0]).toMatchObject({
      functionalId: 'FA',
      senderCode: 'DOCKBRIDGE',
      receiverCode: 'KETTLESUPPLY',
      control: '42',
    });
    const set = ack.groups[0].transactionSets[0];
    expect(set.id).toBe('997');
    expect(rows(set.segments.slice(1, -1))).toEqual([
      'AK1*PO*2',
      'AK2*850*0001',
      'AK5*A',
      'AK2*850*0002',
      'AK5*A',
      'AK2*850*0003',
      'AK5*A',
      'AK2*850*0004',
      'AK5*A',
      'AK9*A*4*4*4',
    ]);
  });

  it('writes one 997 per functional group; rejects a duplicate ST02 (AK5 R 23, AK9 P)', () => {
    const received = parseX12(fixture('plus-component-duplicate-st02.x12')).interchanges[0];
    const ack = readBack(build997(received, options));
    const [first, second] = ack.groups[0].transactionSets;
    expect(ack.groups[0].transactionSets).toHaveLength(2);
    expect(rows(first.segments.slice(1, -1))).toEqual([
      'AK1*PO*3',
      'AK2*850*0001',
      'AK5*A',
      'AK2*850*0001',
      'AK5*R*23',
      'AK9*P*2*2*1',
    ]);
    expect(rows(second.segments.slice(1, -1))).toEqual(['AK1*PO*4', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
  });

  it('names segment and element errors with AK3/AK4 (set accepted with errors)', () => {
    const received = parseX12(fixture('broken-syntax-notes.edi')).interchanges[0];
    const set = readBack(build997(received, options)).groups[0].transactionSets[0];
    expect(rows(set.segments.slice(1, -1))).toEqual([
      'AK1*PO*17',
      'AK2*850*0001',
      'AK3*PO1*10**8',
      'AK4*7**2',
      'AK3*PO4*12**8',
      'AK4*6**2',
      'AK5*E*5',
      'AK9*E*1*1*1',
    ]);
    const strict = acknowledgeGroup(received.groups[0], { rejectSetsWithSegmentErrors: true });
    expect([strict.status, strict.sets[0].status]).toEqual(['R', 'R']);
  });

  it('rejects a set whose SE01 is wrong (AK5 R 4)', () => {
    const received = parseX12(fixture('broken-se01-mismatch.edi')).interchanges[0];
    const set = readBack(build997(received, options)).groups[0].transactionSets[0];
    expect(rows(set.segments.slice(1, -1))).toEqual(['AK1*PO*14', 'AK2*850*000000010', 'AK5*R*4', 'AK9*R*1*1*0']);
  });

  it('rejects a group without GE (AK9 R 3)', () => {
    const received = parseX12(fixture('broken-missing-ge-iea.edi')).interchanges[0];
    const set = readBack(build997(received, options)).groups[0].transactionSets[0];
    expect(rows(set.segments).at(-2)).toBe('AK9*R*1*1*0*3');
  });

  it('answers a 5010 interchange in 5010 (AK103 version, ISA11 ^)', () => {
    const received = parseX12(fixture('caret-repetition-crlf-856.edi')).interchanges[0];
    const ack = readBack(build997(received, options));
    expect(ack.fields.version).toBe('00501');
    expect(ack.delimiters.repetition).toBe('^');
    expect(rows(ack.groups[0].transactionSets[0].segments)[1]).toBe('AK1*SH*6*005010');
  });

  it('refuses control numbers out of range', () => {
    const received = parseX12(fixture('star-tilde-lf-850.edi')).interchanges[0];
    expect(() => build997(received, { ...options, controlNumber: 0 })).toThrow(RangeError);
  });
});

describe('TA1 interchange acknowledgment', () => {
  it('rejects an interchange whose IEA02 differs from ISA13 with note 001', () => {
    const received = parseX12(fixture('broken-isa13-iea02-mismatch.edi')).interchanges[0];
    expect(ta1NoteCode(received)).toBe('001');
    const ack = readBack(buildTA1(received, undefined, options));
    expect(ack.groups).toEqual([]);
    expect(ack.trailer?.elements).toEqual(['0', '000000042']);
  });

  it('carries ISA13, date and time of the received interchange', () => {
    const received = parseX12(fixture('broken-missing-ge-iea.edi')).interchanges[0];
    expect(ta1NoteCode(received)).toBe('023');
    const text = buildTA1(received, undefined, options);
    expect(text.split('\n')[1]).toBe('TA1*000000114*260105*0930*R*023~');
  });

  it('maps ISA field and count problems to their note codes', () => {
    const text = fixture('star-tilde-lf-850.edi');
    expect(ta1NoteCode(parseX12(text).interchanges[0])).toBeUndefined();
    expect(ta1NoteCode(parseX12(text.replace('IEA*1*', 'IEA*2*')).interchanges[0])).toBe('021');
    expect(ta1NoteCode(parseX12(text.replace('*260105*0930*', '*2601X5*0930*')).interchanges[0])).toBe('014');
    expect(ta1NoteCode(parseX12(text.replace(/GS\*.*\n/, '')).interchanges[0])).toBe('024');
    expect(buildTA1(parseX12(text).interchanges[0], undefined, options).split('\n')[1]).toBe(
      'TA1*000000101*260105*0930*A*000~',
    );
  });
});
