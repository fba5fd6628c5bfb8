import { ELEMENT_ERROR, SEGMENT_ERROR } from './acknowledgment-codes';
import { acknowledgeSet, build997, build999 } from './acknowledgment';
import { parseX12 } from './reader';
import { Segment } from './segment';
import { ak4CodeForNote, checkSyntaxNotes, SYNTAX_NOTES } from './syntax-notes';
import type { Problem, TransactionSetSummary } from './x12.types';

/**
 * Acknowledgment codes as X12 defines them: table 723 (AK403/IK403, data element syntax errors),
 * table 720 (AK304/IK304, segment syntax errors), table 717/718 (AK5/IK5). Each finding carries its
 * own code; the acknowledgment writes it as given.
 */

const summary = (problems: Problem[]): TransactionSetSummary => ({
  id: '850',
  control: '0001',
  segmentCount: 9,
  problems,
});
const applicationError = (p: Partial<Problem>): Problem => ({
  code: 'APPLICATION_ERROR',
  severity: 'error',
  message: 'refused',
  ...p,
});

describe('table 723: the AK4 code is the one the finding names', () => {
  it.each([
    ['mandatory data element missing', ELEMENT_ERROR.mandatoryMissing, '1'],
    ['conditional required data element missing', ELEMENT_ERROR.conditionalRequiredMissing, '2'],
    ['too many data elements', ELEMENT_ERROR.tooManyElements, '3'],
    ['data element too short', ELEMENT_ERROR.tooShort, '4'],
    ['data element too long', ELEMENT_ERROR.tooLong, '5'],
    ['invalid character in data element', ELEMENT_ERROR.invalidCharacter, '6'],
    ['invalid code value', ELEMENT_ERROR.invalidCodeValue, '7'],
    ['invalid date', ELEMENT_ERROR.invalidDate, '8'],
    ['invalid time', ELEMENT_ERROR.invalidTime, '9'],
    ['exclusion condition violated', ELEMENT_ERROR.exclusionViolated, '10'],
    ['too many repetitions', ELEMENT_ERROR.tooManyRepetitions, '12'],
    ['too many components', ELEMENT_ERROR.tooManyComponents, '13'],
  ])('%s is %s', (_name, constant, code) => {
    expect(constant).toBe(code);
    const ack = acknowledgeSet(
      summary([applicationError({ setPosition: 4, tag: 'DTM', element: 2, elementCode: constant })]),
    );
    expect(ack.segmentErrors).toEqual([{ tag: 'DTM', position: 4, code: '8', elements: [{ element: 2, code }] }]);
    expect([ack.status, ack.codes]).toEqual(['R', ['5']]);
  });

  it('gives a syntax note its table 723 code: 2 for P, R, C and L notes, 10 for an exclusion', () => {
    const note = (n: string, element: number): Problem => ({
      code: 'SYNTAX_NOTE',
      severity: 'error',
      message: n,
      setPosition: 6,
      tag: 'PO4',
      element,
      note: n,
    });
    const ack = acknowledgeSet(summary([note('P0607', 7), note('C0506', 6), note('E0102', 2), note('R0203', 2)]));
    expect(ack.segmentErrors[0].elements.map((e) => [e.element, e.code])).toEqual([
      [7, '2'],
      [6, '2'],
      [2, '10'],
      [2, '2'],
    ]);
    // A set with syntax errors only is accepted with errors (AK5 E 5) unless asked to reject it.
    expect([ack.status, ack.codes]).toEqual(['E', ['5']]);
  });

  it('says an element once when two findings fault it the same way', () => {
    const ack = acknowledgeSet(
      summary([
        {
          code: 'SYNTAX_NOTE',
          severity: 'error',
          message: 'R0203',
          setPosition: 5,
          tag: 'N1',
          element: 2,
          note: 'R0203',
        },
        applicationError({ setPosition: 5, tag: 'N1', element: 2, elementCode: '2' }),
      ]),
    );
    expect(ack.segmentErrors).toEqual([
      { tag: 'N1', position: 5, code: '8', elements: [{ element: 2, code: '2', note: 'R0203' }] },
    ]);
  });
});

describe('table 720: the AK3 code', () => {
  it('is 8 (data element errors) for an element problem, 1 for an unrecognized segment id', () => {
    const ack = acknowledgeSet(
      summary([
        applicationError({ setPosition: 3, tag: 'BEG', element: 1, elementCode: '7' }),
        { code: 'INVALID_SEGMENT_TAG', severity: 'error', message: 'bad tag', setPosition: 7, tag: 'p01' },
      ]),
    );
    expect(ack.segmentErrors.map((s) => [s.tag, s.position, s.code])).toEqual([
      ['BEG', 3, '8'],
      ['p01', 7, '1'],
    ]);
  });

  it('is the finding’s own code for a missing segment (3), with no AK4', () => {
    const ack = acknowledgeSet(
      summary([applicationError({ setPosition: 2, tag: 'BSN', segmentCode: SEGMENT_ERROR.mandatorySegmentMissing })]),
    );
    expect(ack.segmentErrors).toEqual([{ tag: 'BSN', position: 2, code: '3', elements: [] }]);
  });
});

const RECEIVED = [
  'ISA*00*          *00*          *01*925133417      *12*5551234567     *260105*0930*^*00501*000000116*0*T*>~',
  'GS*PO*925133417*5551234567*20260105*0930*17*X*005010~',
  'ST*850*0001~',
  'BEG*00*SA*PO-1601**20260105~',
  'PO1*1*12*EA*9.5*PE*SK~',
  'SE*4*0001~',
  'GE*1*17~',
  'IEA*1*000000116~',
].join('\n');
const DATE = new Date('2026-01-06T07:08:00Z');

/** The received interchange with the mapper's findings added to its set, as translation does. */
function receivedWith(...problems: Problem[]) {
  const interchange = parseX12(RECEIVED).interchanges[0];
  interchange.groups[0].summaries[0].problems.push(...problems);
  return interchange;
}
const lines = (text: string) => text.split('\n').map((l) => l.replace(/~$/, ''));

describe('AK4 copy of bad data (AK404)', () => {
  it('copies a wrong value, never a missing one', () => {
    const received = receivedWith(
      applicationError({ setPosition: 3, tag: 'PO1', element: 2, elementCode: '6', value: 'three' }),
      applicationError({ setPosition: 2, tag: 'BEG', element: 3, elementCode: '1' }),
    );
    const text = lines(build997(received, { controlNumber: 7, date: DATE }));
    expect(text).toEqual(expect.arrayContaining(['AK3*PO1*3**8', 'AK4*2**6*three', 'AK3*BEG*2**8', 'AK4*3**1']));
  });

  it('leaves out a copy that would break the acknowledgment (a separator of ours) and cuts it at 99', () => {
    const received = receivedWith(
      applicationError({ setPosition: 3, tag: 'PO1', element: 2, elementCode: '6', value: '3*4' }),
      applicationError({ setPosition: 2, tag: 'BEG', element: 3, elementCode: '5', value: 'X'.repeat(120) }),
    );
    const text = lines(build997(received, { controlNumber: 7, date: DATE }));
    expect(text).toContain('AK4*2**6');
    expect(text).toContain(`AK4*3**5*${'X'.repeat(99)}`);
  });
});

describe('AK404 in a 4010 acknowledgment', () => {
  it('copies a value holding a "U" (ISA11 of 4010 is no separator)', () => {
    const received = parseX12(RECEIVED.replace('*^*00501*', '*U*00401*').replace('*X*005010~', '*X*004010~'))
      .interchanges[0];
    received.groups[0].summaries[0].problems.push(
      applicationError({ setPosition: 3, tag: 'PO1', element: 2, elementCode: '6', value: 'FOUR' }),
    );
    const text = lines(build997(received, { controlNumber: 7, date: DATE }));
    expect(text[0]).toContain('*U*00401*');
    expect(text).toContain('AK4*2**6*FOUR');
  });
});

describe('our interchange id in the acknowledgment', () => {
  it('answers from the id and qualifier the partner addressed (ISA07/ISA08), GS02/GS03 swapped', () => {
    const text = lines(build997(receivedWith(), { controlNumber: 7, date: DATE }));
    expect(text[0]).toContain('*12*5551234567     *01*925133417      *');
    expect(text[1]).toMatch(/^GS\*FA\*5551234567\*925133417\*/);
  });

  it('answers from the id given instead, when there is one', () => {
    const text = lines(
      build997(receivedWith(), { senderQualifier: 'ZZ', senderId: 'ACMEDC', controlNumber: 7, date: DATE }),
    );
    expect(text[0]).toContain('*ZZ*ACMEDC         *01*925133417      *');
  });
});

describe('999 implementation acknowledgment', () => {
  it('writes IK3/IK4/IK5 with the same codes, a CTX for the element that triggered a syntax note, in 5010', () => {
    const received = receivedWith(
      {
        code: 'SYNTAX_NOTE',
        severity: 'error',
        message: 'PO107: syntax note P0607 violated',
        setPosition: 3,
        tag: 'PO1',
        element: 7,
        note: 'P0607',
        trigger: 6,
      },
      applicationError({ setPosition: 3, tag: 'PO1', element: 2, elementCode: '6', value: 'three' }),
    );
    const text = lines(build999(received, { controlNumber: 7, date: DATE }));
    expect(text[1]).toMatch(/^GS\*FA\*5551234567\*925133417\*20260106\*0708\*7\*X\*005010X231A1$/);
    expect(text.slice(2, -2)).toEqual([
      'ST*999*0001*005010X231A1',
      'AK1*PO*17*005010',
      'AK2*850*0001',
      'IK3*PO1*3**8',
      'IK4*7**2',
      'CTX*SITUATIONAL TRIGGER*PO1*3**6',
      'IK4*2**6*three',
      'IK5*R*5',
      'AK9*R*1*1*0',
      'SE*10*0001',
    ]);
    // Read back by our own reader: a clean 5010 interchange.
    const back = parseX12(text.join('~\n') + '~');
    expect(back.problems).toEqual([]);
    expect(back.interchanges[0].fields.version).toBe('00501');
  });
});

describe('syntax notes as the reader finds them: the element at fault and the one that made it required', () => {
  const TABLE = { ZZ1: ['P0102', 'C030405', 'L060708', 'E0910', 'R1112'] };
  const check = (elements: string[]) =>
    checkSyntaxNotes(Segment.of('ZZ1', elements), 4, TABLE).map((p) => ({
      note: p.note,
      element: p.element,
      trigger: p.trigger,
      code: acknowledgeSet(summary([p])).segmentErrors[0].elements[0].code,
    }));
  const filled = ['', '', '', '', '', '', '', '', '', '', 'X', ''];

  it('P (paired): the first missing element, triggered by the first present one; code 2', () => {
    const e = [...filled];
    e[1] = 'B';
    expect(check(e)).toEqual([{ note: 'P0102', element: 1, trigger: 2, code: '2' }]);
  });

  it('C (conditional): the first missing of the others, triggered by the first; code 2', () => {
    const e = [...filled];
    e[2] = 'C';
    e[3] = 'D';
    expect(check(e)).toEqual([{ note: 'C030405', element: 5, trigger: 3, code: '2' }]);
  });

  it('L (list conditional): the second element, triggered by the first; code 2', () => {
    const e = [...filled];
    e[5] = 'F';
    expect(check(e)).toEqual([{ note: 'L060708', element: 7, trigger: 6, code: '2' }]);
  });

  it('E (exclusion): the second present element, triggered by the first; code 10', () => {
    const e = [...filled];
    e[8] = 'I';
    e[9] = 'J';
    expect(check(e)).toEqual([{ note: 'E0910', element: 10, trigger: 9, code: '10' }]);
  });

  it('R (required): the first element of the note, no trigger; code 2', () => {
    const e = [...filled];
    e[10] = '';
    expect(check(e)).toEqual([{ note: 'R1112', element: 11, trigger: undefined, code: '2' }]);
  });
});

describe('the syntax notes of the segments dockbridge maps', () => {
  const pairs = (first: number, last: number) =>
    Array.from({ length: (last - first + 1) / 2 }, (_, i) => {
      const n = first + 2 * i;
      return `P${String(n).padStart(2, '0')}${String(n + 1).padStart(2, '0')}`;
    });

  it('are those of X12 for N1, REF, PO1, LIN, SLN, PO4 and SN1', () => {
    expect(SYNTAX_NOTES).toEqual({
      N1: ['R0203', 'P0304'],
      REF: ['R0203'],
      PO1: pairs(6, 25),
      LIN: pairs(4, 31),
      SLN: pairs(9, 28),
      PO4: ['C0506', 'P0607'],
      SN1: ['P0506'],
    });
    expect(SYNTAX_NOTES.PO1.at(-1)).toBe('P2425');
    expect(SYNTAX_NOTES.LIN.at(-1)).toBe('P3031');
  });

  it.each([
    ['N1', ['ST'], 'R0203', 2],
    ['REF', ['DP'], 'R0203', 2],
    ['N1', ['ST', 'X', '92'], 'P0304', 4],
    ['SN1', ['', '12', 'EA', '', '3'], 'P0506', 6],
    ['PO4', ['1', '', '', '', '2'], 'C0506', 6],
    ['LIN', ['1', 'UP', '0123', 'VP'], 'P0405', 5],
  ])('%s*%s breaks %s at element %s', (tag, elements, note, element) => {
    expect(checkSyntaxNotes(Segment.of(tag, elements), 3).map((p) => [p.note, p.element])).toEqual([[note, element]]);
  });

  it('finds nothing wrong with segments that keep them', () => {
    for (const [tag, elements] of [
      ['N1', ['ST', 'ACME']],
      ['N1', ['ST', '', '92', 'DC01']],
      ['REF', ['DP', '', 'text']],
      ['LIN', ['1', 'UP', '0123', 'VP', 'K-1']],
      ['PO1', ['1', '12', 'EA', '9.5', 'PE', 'SK', 'KET-100']],
    ] as const) {
      expect(checkSyntaxNotes(Segment.of(tag, [...elements]), 3)).toEqual([]);
    }
  });

  it('gives an exclusion 10 and any other note 2 (table 723)', () => {
    expect(['P0102', 'R0102', 'C0102', 'L010203', 'E0102', undefined, 'X0102'].map(ak4CodeForNote)).toEqual([
      '2',
      '2',
      '2',
      '2',
      '10',
      '2',
      '2',
    ]);
  });

  it('checks notes of a key that is no tag slot', () => {
    const table = { n1x: ['R0102'] };
    expect(checkSyntaxNotes(Segment.of('n1x', ['', '']), 2, table).map((p) => p.note)).toEqual(['R0102']);
    expect(checkSyntaxNotes(Segment.of('n1x', ['A', '']), 2, table)).toEqual([]);
  });
});
