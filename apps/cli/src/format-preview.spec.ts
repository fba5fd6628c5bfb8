import { type EdiPreview, formatPreview } from './format';

type PreviewSet = EdiPreview['transactionSets'][number];
const set = (over: Partial<PreviewSet>): PreviewSet => ({
  transactionControl: '0001',
  setId: '850',
  interchangeKey: 'ZZ/STRANGER/000000301',
  documentId: 'PO-7001',
  rejected: false,
  envelopeRejected: false,
  diagnostics: [],
  notes: [],
  ...over,
});

describe('formatPreview: what each set comes to', () => {
  it('says a set of a refused interchange is refused with it, not accepted', () => {
    const lines = formatPreview({
      summary: { interchanges: 1, sets: 1, accepted: 0, rejected: 1, documents: 0 },
      nextSetsAfter: null,
      interchanges: [{ key: 'ZZ/STRANGER/000000301', senderId: 'STRANGER', control: '000000301', refused: true }],
      transactionSets: [
        set({
          rejected: true,
          interchangeRefused: true,
          diagnostics: [
            { level: 'error', transactionControl: '0001', message: 'interchange 000000301 was refused: sender' },
          ],
        }),
      ],
      documents: [],
      acknowledgments: [{ kind: 'TA1', acknowledges: '000000301', content: 'ISA…' }],
      problems: [],
    });
    expect(lines).toContain('  850 control 0001 document PO-7001: refused with its interchange');
    expect(lines).toContain('Acknowledgments: TA1 for 000000301');
  });

  it('says a set accepted with element errors is accepted with errors', () => {
    const lines = formatPreview({
      summary: { interchanges: 1, sets: 1, accepted: 1, rejected: 0, documents: 0 },
      nextSetsAfter: null,
      interchanges: [{ key: 'k', senderId: 'KETTLE', control: '000000101', refused: false }],
      transactionSets: [set({ notes: ['850 0001: PO107: syntax note P0607 violated'] })],
      documents: [],
      acknowledgments: [{ kind: '999', acknowledges: '000000101', content: 'ISA…' }],
      problems: [],
    });
    expect(lines).toContain('  850 control 0001 document PO-7001: accepted with errors');
    expect(lines).toContain('Acknowledgments: 999 for 000000101');
  });

  it('counts a file of many sets whole and says where the next page of sets starts', () => {
    const lines = formatPreview({
      summary: { interchanges: 1, sets: 4111, accepted: 4100, rejected: 11, documents: 4100 },
      nextSetsAfter: 2,
      interchanges: [{ key: 'k', senderId: 'KETTLE', control: '000000101', refused: false }],
      transactionSets: [set({}), set({ transactionControl: '0002', documentId: 'PO-7002' })],
      documents: [],
      acknowledgments: [],
      problems: [],
    });
    expect(lines).toContain('Transaction sets (1–2 of 4111: 4100 accepted, 11 rejected)');
    expect(lines).toContain('  more with --after 2');
  });
});
