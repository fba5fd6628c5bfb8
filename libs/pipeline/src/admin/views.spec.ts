import {
  EMPTY_DIRECTORY,
  translateEdi,
  translateEdiEvents,
  type EdiEvent,
  type EdiTranslationInput,
  type SetOutcome,
} from '@dockbridge/mapping';
import { ediPreviewLine, EdiPreviewBuilder } from './views';

const LOCATION = '11111111-1111-4111-8111-111111111111';

const po = (control: string, number: string, purpose = '00') => [
  `ST*850*${control}`,
  `BEG*${purpose}*SA*${number}**20261120`,
  'TD5*B*2*FFRT*M',
  'N1*ST*Main DC*92*DC01',
  'N1*SF*Kettle Foods*92*SUP-KETTLE',
  'PO1*1*12*CA*9.50**SK*SKU-100',
  `SE*7*${control}`,
];

const interchange = (sender: string, control: number, sets: string[][], iea = control) =>
  [
    `ISA*00*          *00*          *ZZ*${sender.padEnd(15)}*ZZ*ACMEDC         *261120*0830*U*00401*${String(control).padStart(9, '0')}*0*T*>`,
    `GS*PO*${sender}*ACMEDC*20261120*0830*${control}*X*004010`,
    ...sets.flat(),
    `GE*${sets.length}*${control}`,
    `IEA*1*${String(iea).padStart(9, '0')}`,
  ].join('~\n');

// Accepted sets, an interchange refused at its IEA (after its sets were mapped), one from an
// unknown sender (refused at its ISA), and one with a set the mapping rejects (BEG01 99).
const FILE = [
  interchange('KETTLE', 1, [po('0001', 'PO-1'), po('0002', 'PO-2'), po('0003', 'PO-3')]),
  interchange('KETTLE', 2, [po('0001', 'PO-4'), po('0002', 'PO-5')], 9),
  interchange('STRANGER', 3, [po('0001', 'PO-6'), po('0002', 'PO-7')]),
  interchange('KETTLE', 4, [po('0001', 'PO-8', '99'), po('0002', 'PO-9')]),
].join('~\n');

const input = (): EdiTranslationInput => {
  let control = 0;
  return {
    raw: `${FILE}~\n`,
    settings: { organisationId: LOCATION, coreName: 'ACME', locationCodes: ['DC01'] },
    senderIds: ['KETTLE'],
    directory: EMPTY_DIRECTORY,
    nextControlNumber: async () => ++control,
    now: new Date('2026-11-20T08:30:00Z'),
  };
};

const events = async (): Promise<EdiEvent[]> => {
  const all: EdiEvent[] = [];
  for await (const event of translateEdiEvents(input())) {
    all.push(event);
  }
  return all;
};

const shown = ({ operation, ...set }: SetOutcome) => ({ ...set, ...(operation && { operation }) });

describe('EdiPreviewBuilder', () => {
  it('counts the file whole and keeps one page, as the whole translation would show it, on every page', async () => {
    const whole = await translateEdi(input());
    const rejected = whole.sets.filter((set) => set.rejected).length;
    expect(whole.sets).toHaveLength(9);
    expect(rejected).toBe(5); // PO-4 and PO-5 (refused at IEA), PO-6 and PO-7 (sender), PO-8 (BEG01)
    const all = await events();
    for (let after = 0; after <= 10; after++) {
      for (let limit = 1; limit <= 10; limit++) {
        const preview = new EdiPreviewBuilder({ after, limit });
        all.forEach((event) => preview.add(event));
        const view = preview.result();
        const page = whole.sets.slice(after, after + limit);
        expect({ after, limit, view }).toEqual({
          after,
          limit,
          view: {
            summary: {
              interchanges: 4,
              sets: 9,
              accepted: 4,
              rejected,
              documents: whole.operations.length,
            },
            interchanges: whole.interchanges,
            transactionSets: page.map(shown),
            nextSetsAfter: after + page.length < 9 ? after + page.length : null,
            documents: page.flatMap((set) => (set.operation ? [set.operation] : [])),
            acknowledgments: whole.acknowledgments,
            problems: [],
          },
        });
      }
    }
  });

  it('lists the first 100 interchanges with their acknowledgments, and counts them all', async () => {
    const many = Array.from({ length: 150 }, (_, i) => interchange('KETTLE', i + 1, [po('0001', `PO-${i}`)])).join(
      '~\n',
    );
    const preview = new EdiPreviewBuilder({ after: 0, limit: 10 });
    for await (const event of translateEdiEvents({ ...input(), raw: `${many}~\n` })) {
      preview.add(event);
    }
    const view = preview.result();
    expect(view.summary).toEqual({ interchanges: 150, sets: 150, accepted: 150, rejected: 0, documents: 150 });
    expect(view.interchanges.map((i) => i.control)).toEqual(
      Array.from({ length: 100 }, (_, i) => String(i + 1).padStart(9, '0')),
    );
    expect(view.acknowledgments.map((a) => a.acknowledges)).toEqual(view.interchanges.map((i) => i.control));
  });

  it('shows a payload refused whole (too many interchanges) as the translation answers it: nothing goes out', async () => {
    let read: EdiEvent[] = [];
    for await (const event of translateEdiEvents({ ...input(), maxInterchanges: 1 })) {
      read = [...read, event];
    }
    const preview = new EdiPreviewBuilder({ after: 0, limit: 10 });
    read.forEach((event) => preview.add(event));
    const view = preview.result();
    expect(view.summary).toEqual({ interchanges: 1, sets: 3, accepted: 0, rejected: 3, documents: 0 });
    expect(view.documents).toEqual([]);
    expect(view.acknowledgments).toEqual([]);
    expect(view.problems).toEqual([expect.stringMatching(/^the payload holds more than 1 interchanges/)]);
    expect(ediPreviewLine(read.at(-1)!)).toEqual(expect.objectContaining({ type: 'problem', refusesPayload: true }));
  });

  it('writes each event as a line, an interchange refused at its end saying so after its sets', async () => {
    const lines = (await events()).map(ediPreviewLine);
    expect(lines.map((line) => (line.type === 'set' ? `set ${line.documentId}` : `${line.type}`))).toEqual([
      'set PO-1',
      'set PO-2',
      'set PO-3',
      'interchange',
      'set PO-4',
      'set PO-5',
      'interchange',
      'set PO-6',
      'set PO-7',
      'interchange',
      'set PO-8',
      'set PO-9',
      'interchange',
    ]);
    const interchanges = lines.filter((line) => line.type === 'interchange');
    expect(interchanges.map((i) => [i.control, i.refused, i.refusedAtEnd, i.acknowledgment?.kind])).toEqual([
      ['000000001', false, false, '997'],
      ['000000002', true, true, 'TA1'],
      ['000000003', true, false, 'TA1'],
      ['000000004', false, false, '997'],
    ]);
    const po4 = lines.find((line) => line.type === 'set' && line.documentId === 'PO-4');
    expect(po4).toMatchObject({ rejected: false, operation: { kind: 'document.upsert' } });
  });
});
