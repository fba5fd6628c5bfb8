import type { Message } from '@dockbridge/audit';
import type { PartnerEdiSettings, PartnerProfile } from '@dockbridge/partners';
import { streamX12, TranslationContext, translateX12 } from './translators';

/** translateX12 with a partner's EDI settings: what reaches the acknowledgment and the audit. */
const LOCATION = '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f';

function interchange(sender: string, control: string, body: string[], version = '00401'): string {
  return [
    `ISA*00*          *00*          *01*${sender.padEnd(15)}*01*5551234567     *260105*0930*${version === '00501' ? '^' : 'U'}*${version}*${control}*0*T*>`,
    `GS*PO*${sender}*5551234567*20260105*0930*17*X*${version}0`,
    'ST*850*0001',
    ...body,
    `SE*${body.length + 2}*0001`,
    'GE*1*17',
    `IEA*1*${control}`,
  ].join('~\n');
}
const PO = (id: string, ...lines: string[]) => [
  `BEG*00*SA*${id}`,
  'N1*ST*Main DC*92*DC01',
  'N1*SF*Kettle*92*SUP-KETTLE',
  ...lines,
];

function translate(raw: string, edi: Partial<PartnerEdiSettings> = {}) {
  const partner = {
    id: 'kettle',
    locationOrganisationId: LOCATION,
    settings: { edi: { senderIds: ['925133417'], coreName: 'ACME', locationCodes: ['DC01'], ...edi } },
  } as unknown as PartnerProfile;
  return translateX12({ id: '0190a0b0-0000-7000-8000-00000000abcd', partnerId: 'kettle', rawPayload: raw } as Message, {
    partner,
    mapping: async () => null,
    nextControlNumber: async () => 3,
    now: new Date('2026-01-06T10:15:00Z'),
  } satisfies TranslationContext);
}

describe('translateX12: the partner’s EDI settings', () => {
  it('answers from the id the partner addressed, or the profile’s interchangeId', async () => {
    const raw = interchange('925133417', '000000001', PO('PO-1', 'PO1*1*1*EA'));
    expect((await translate(raw)).acknowledgments[0].content).toContain('*01*5551234567     *01*925133417      *');
    const overridden = await translate(raw, { interchangeId: { qualifier: 'ZZ', id: 'ACMEDC' } });
    expect(overridden.acknowledgments[0].content).toContain('*ZZ*ACMEDC         *01*925133417      *');
  });

  it('writes a 999 named as one for a 5010 partner set to 999', async () => {
    const result = await translate(interchange('925133417', '000000001', PO('PO-1', 'PO1*1*1*EA'), '00501'), {
      acknowledgment: '999',
    });
    expect(result.acknowledgments).toEqual([
      expect.objectContaining({ kind: '999', name: expect.stringMatching(/^999_000000001_/) }),
    ]);
  });

  it('rejects sets with segment errors when the profile says so', async () => {
    const raw = interchange('925133417', '000000001', PO('PO-1', 'PO1*1*4*EA***SK'));
    expect((await translate(raw)).operations).toHaveLength(1);
    const strict = await translate(raw, { rejectSetsWithSegmentErrors: true });
    expect(strict.operations).toEqual([]);
    expect(strict.refused).toEqual([expect.objectContaining({ targetId: 'PO-1' })]);
  });

  it('records a set refused by the envelope check under its document id, for searches by PO number', async () => {
    const raw = interchange('925133417', '000000001', PO('PO-1', 'PO1*1*1*EA')).replace('SE*6*0001', 'SE*9*0001');
    const result = await translate(raw);
    expect(result.refused).toEqual([
      expect.objectContaining({
        targetId: 'PO-1',
        reason: expect.stringMatching(/^850 0001: SE01 "9" but the set has 6/),
      }),
    ]);
  });

  it('records a refused interchange among accepted ones as one unit, not as its sets', async () => {
    const raw = [
      interchange('925133417', '000000001', PO('PO-1', 'PO1*1*1*EA')),
      interchange('STRANGER', '000000002', PO('PO-2', 'PO1*1*1*EA')),
    ].join('~\n');
    const result = await translate(raw + '~');
    expect(result.rejection).toBeUndefined();
    expect(result.refused).toEqual([
      expect.objectContaining({
        targetId: null,
        reason: expect.stringMatching(/^interchange 000000002: interchange sender "STRANGER"/),
      }),
    ]);
  });
});

describe('streamX12: notes of many sets accepted with errors', () => {
  it('keeps the first notes of an interchange of 200,000 such sets and counts the rest', async () => {
    // One set per P0607 violation (PO106 without PO107): each accepted with a note.
    const sets = 200_000;
    const body: string[] = [];
    for (let i = 1; i <= sets; i++) {
      const st = String(i).padStart(6, '0');
      body.push(`ST*850*${st}`, `BEG*00*SA*PO-${i}`, 'N1*ST*Main DC*92*DC01', 'PO1*1*4*EA***SK', `SE*5*${st}`);
    }
    const raw = [
      `ISA*00*          *00*          *01*${'925133417'.padEnd(15)}*01*5551234567     *260105*0930*U*00401*000000001*0*T*>`,
      'GS*PO*925133417*5551234567*20260105*0930*17*X*004010',
      ...body,
      `GE*${sets}*17`,
      'IEA*1*000000001',
    ].join('~\n');
    const partner = {
      id: 'kettle',
      locationOrganisationId: LOCATION,
      settings: { edi: { senderIds: ['925133417'], coreName: 'ACME', locationCodes: ['DC01'] } },
    } as unknown as PartnerProfile;
    let operations = 0;
    const translation = await streamX12(
      { id: '0190a0b0-0000-7000-8000-00000000abcd', partnerId: 'kettle', rawPayload: raw } as Message,
      { partner, mapping: async () => null, nextControlNumber: async () => 3, now: new Date('2026-01-06T10:15:00Z') },
      {
        operation: async () => void operations++,
        refusedSet: async () => undefined,
        discardInterchange: async () => undefined,
      },
    );
    expect(operations).toBe(sets);
    expect(translation.notes).toHaveLength(51);
    expect(translation.notes!.at(-1)).toBe(`and ${sets - 50} more notes`);
  }, 60_000);
});
