import type { OrgRef } from '@dockbridge/platform';
import { Segment } from '@dockbridge/x12';
import { mapTransaction } from './edi-mapping';
import { quantityValue, type TransactionMapping } from './document-builder';

/** The document of an upsert mapping. */
const documentOf = (result: TransactionMapping) =>
  (result.operation as unknown as { document: Record<string, unknown> }).document;
import type { EdiMappingSettings, EdiTransaction, PartyDirectory } from './edi-types';

const LOCATION = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const settings: EdiMappingSettings = { organisationId: LOCATION, coreName: 'ACME', locationCodes: ['DC01'] };

/** A transaction from clean `*`/`~` text (the reader has its own tests; this keeps mapping tests about mapping). */
function transaction(setId: string, body: string, control = '0001'): EdiTransaction {
  const segments = body
    .split('~')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [tag, ...elements] = s.split('*');
      return Segment.of(tag, elements);
    });
  return {
    setId,
    envelope: {
      senderId: 'KETTLE',
      receiverId: 'ACMEDC',
      interchangeControl: '000000101',
      groupControl: '101',
      transactionControl: control,
      componentSeparator: '>',
    },
    segments: [
      Segment.of('ST', [setId, control]),
      ...segments,
      Segment.of('SE', [String(segments.length + 2), control]),
    ],
  };
}

const PO = `BEG*00*SA*PO-4711*R2*20261120~REF*DP*042~DTM*037*20261201~DTM*038*20261203~DTM*002*20261202~
TD5*B*2*FFRT*M~N1*ST*Main DC*92*DC01~N1*VN*Kettle Foods*92*SUP-KETTLE~
PO1*1*12*CA*9.5**UP*012345678905*VN*K-100*SK*SKU-100~PID*F****Kettle chips 24x~
PO1*2*3*PL***UP*012345678912~CTT*2`;

describe('850 purchase order mapping', () => {
  it('maps id, parties, loads, dates and attributes', () => {
    const result = mapTransaction(transaction('850', PO), settings);
    expect(result.rejected).toBe(false);
    expect(result.diagnostics).toEqual([]);
    expect(result.operation).toEqual({
      kind: 'document.upsert',
      organisationId: LOCATION,
      document: {
        id: 'PO-4711-R2',
        direction: 'Inbound',
        occupant: { coreName: 'ACME', coreId: 'DC01' },
        offsite: { coreName: 'ACME', coreId: 'SUP-KETTLE' },
        carrier: { coreName: 'SCAC', coreId: 'FFRT' },
        loads: [
          { name: 'Kettle chips 24x', quantity: 12, loadTag: 'SKU-100' },
          { name: '012345678912', quantity: 3, loadTag: '012345678912' },
        ],
        validDates: { begin: '2026-12-01T00:00:00Z', end: '2026-12-03T23:59:59Z' },
        preferredDates: { begin: '2026-12-02T00:00:00Z', end: '2026-12-02T23:59:59Z' },
        attributes: {
          interchangeSender: 'KETTLE',
          interchangeReceiver: 'ACMEDC',
          interchangeControl: '000000101',
          groupControl: '101',
          transactionControl: '0001',
          department: '042',
        },
        status: { name: 'Original' },
        type: { name: 'PurchaseOrder' },
      },
    });
  });

  it('deletes on 01, ignores a 07 duplicate with a warning, and rejects an unknown purpose naming BEG01', () => {
    expect(mapTransaction(transaction('850', PO.replace('BEG*00', 'BEG*01')), settings).operation).toEqual({
      kind: 'document.delete',
      organisationId: LOCATION,
      documentId: 'PO-4711-R2',
    });
    const duplicate = mapTransaction(transaction('850', PO.replace('BEG*00', 'BEG*07')), settings);
    expect(duplicate).toMatchObject({
      rejected: false,
      diagnostics: [{ level: 'warning', message: expect.stringMatching(/duplicate/) }],
    });
    expect(duplicate.operation).toBeUndefined();
    const unknown = mapTransaction(transaction('850', PO.replace('BEG*00', 'BEG*99')), settings);
    expect(unknown).toMatchObject({
      rejected: true,
      diagnostics: [{ level: 'error', segmentTag: 'BEG', element: 1, segmentPosition: 2 }],
    });
    // A release number without the order number names no order: refused, pointing at BEG03.
    const noNumber = mapTransaction(transaction('850', PO.replace('BEG*00*SA*PO-4711*R2', 'BEG*00*SA**R2')), settings);
    expect(noNumber.rejected).toBe(true);
    expect(noNumber.diagnostics).toContainEqual(
      expect.objectContaining({
        level: 'error',
        segmentTag: 'BEG',
        element: 3,
        message: 'BEG03 (purchase order number) is missing',
      }),
    );
  });

  it('uses the directory first, and falls back to N102 when N104 is absent', () => {
    const directory: PartyDirectory = {
      byCode: (q, code): OrgRef | undefined =>
        q === '92' && code === 'SUP-KETTLE' ? { id: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e20' } : undefined,
      byScac: (scac) => (scac === 'FFRT' ? { id: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e10' } : undefined),
    };
    const doc = documentOf(
      mapTransaction(transaction('850', PO.replace('N1*ST*Main DC*92*DC01', 'N1*ST*DC01')), settings, directory),
    );
    expect(doc.offsite).toEqual({ id: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e20' });
    expect(doc.carrier).toEqual({ id: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e10' });
    expect(doc.occupant).toEqual({ coreName: 'ACME', coreId: 'DC01' });
  });

  it('is Outbound when the location is the ship-from, with the ship-to as offsite', () => {
    const outbound = PO.replace('N1*ST*Main DC*92*DC01', 'N1*ST*Harbour Stores*92*CUS-HARBOUR').replace(
      'N1*VN*Kettle Foods*92*SUP-KETTLE',
      'N1*SF*Main DC*92*DC01',
    );
    const doc = documentOf(mapTransaction(transaction('850', outbound), settings));
    expect(doc).toMatchObject({
      direction: 'Outbound',
      occupant: { coreId: 'DC01' },
      offsite: { coreId: 'CUS-HARBOUR' },
    });
  });

  it('rejects a bad quantity naming segment and element, and a set without any party', () => {
    const badQty = mapTransaction(transaction('850', PO.replace('PO1*2*3*PL', 'PO1*2*three*PL')), settings);
    expect(badQty).toMatchObject({
      rejected: true,
      diagnostics: [{ segmentTag: 'PO1', element: 2, message: expect.stringMatching(/PO102 .*"three"/) }],
    });
    expect(badQty.operation).toBeUndefined();
    const noParty = PO.replace(/TD5[^~]*~/, '').replace(/N1\*[^~]*~/g, '');
    expect(mapTransaction(transaction('850', noParty), settings).diagnostics).toEqual([
      expect.objectContaining({ level: 'error', message: expect.stringMatching(/no party could be resolved/) }),
    ]);
  });

  it('reports an impossible date', () => {
    const result = mapTransaction(transaction('850', PO.replace('DTM*038*20261203', 'DTM*038*20261332')), settings);
    expect(result).toMatchObject({
      rejected: true,
      diagnostics: [{ segmentTag: 'DTM', message: expect.stringMatching(/DTM\*038 has an invalid date/) }],
    });
  });
});

/** Items listed before their order on purpose: loads follow the HL tree, not segment order. */
const ASN = `BSN*00*ASN-900*20261201*1200~HL*1**S~TD5*O*2*BLUE~REF*BM*BOL-77~DTM*011*20261201*0800~DTM*017*20261202~
N1*SF*Kettle Foods*92*SUP-KETTLE~N1*ST*Main DC*92*DC01~
HL*3*2*I~LIN**UP*012345678905*SK*SKU-100~SN1**40*CA~PID*F****Kettle chips 24x~
HL*2*1*O~PRF*PO-4711~
HL*4*2*I~LIN**UP*012345678912~SN1**2*PL~CTT*2`;

describe('856 ship notice mapping', () => {
  it('maps one load per item HL through the parent pointers', () => {
    const result = mapTransaction(transaction('856', ASN), settings);
    expect(result.diagnostics).toEqual([]);
    expect(result.operation).toMatchObject({
      kind: 'document.upsert',
      document: {
        id: 'ASN-900',
        direction: 'Inbound',
        occupant: { coreId: 'DC01' },
        offsite: { coreId: 'SUP-KETTLE' },
        carrier: { coreName: 'SCAC', coreId: 'BLUE' },
        loads: [
          { name: 'Kettle chips 24x', quantity: 40, loadTag: 'SKU-100' },
          { name: '012345678912', quantity: 2, loadTag: '012345678912' },
        ],
        validDates: { begin: '2026-12-01T08:00:00Z', end: '2026-12-02T23:59:59Z' },
        attributes: { billOfLading: 'BOL-77' },
        type: { name: 'AdvanceShipNotice' },
        status: { name: 'Original' },
      },
    });
  });

  it('reads a padded HL03 and HL numbers written otherwise than plainly as the same levels', () => {
    const padded = ASN.replace('HL*3*2*I', 'HL*3*2* I ')
      .replace('HL*2*1*O', 'HL*2*1*O ')
      .replace('HL*4*2*I', 'HL*04*2*I');
    const result = mapTransaction(transaction('856', padded), settings);
    expect(result.diagnostics).toEqual([]);
    expect(documentOf(result).loads).toEqual([
      { name: 'Kettle chips 24x', quantity: 40, loadTag: 'SKU-100' },
      { name: '012345678912', quantity: 2, loadTag: '012345678912' },
    ]);
    expect(documentOf(result).attributes).toMatchObject({ loadOrders: '1-2=PO-4711' });
    const itemIsNoOrder = mapTransaction(transaction('856', ASN.replace('HL*2*1*O', 'HL*2*1*OI')), settings);
    expect(documentOf(itemIsNoOrder).attributes).not.toHaveProperty('loadOrders');
  });

  it('deletes on BSN01 03, and rejects broken hierarchies naming the HL', () => {
    expect(mapTransaction(transaction('856', ASN.replace('BSN*00', 'BSN*03')), settings).operation).toEqual({
      kind: 'document.delete',
      organisationId: LOCATION,
      documentId: 'ASN-900',
    });
    const orphan = mapTransaction(transaction('856', ASN.replace('HL*4*2*I', 'HL*4*9*I')), settings);
    expect(orphan.rejected).toBe(true);
    expect(orphan.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/HL02 parent 9 of HL 4 does not exist/),
      expect.stringMatching(/item HL 4 is not under any shipment/),
    ]);
    const noQty = mapTransaction(transaction('856', ASN.replace('SN1**2*PL~', '')), settings);
    expect(noQty.diagnostics).toEqual([expect.objectContaining({ message: 'item HL 4 has no SN1 quantity' })]);
  });

  it('refuses sets it does not map', () => {
    expect(mapTransaction(transaction('810', 'BIG*20261201*INV-1'), settings)).toMatchObject({
      rejected: true,
      diagnostics: [{ message: expect.stringMatching(/810 is not supported/) }],
    });
  });
});

describe('quantityValue', () => {
  it('reads X12 decimals (point, 5010 exponent) and nothing JavaScript alone would take', () => {
    expect(['12', '0', '12.5', '.5', '7.', '1E3', '25E-1'].map(quantityValue)).toEqual([
      12, 0, 12.5, 0.5, 7, 1000, 2.5,
    ]);
    expect(['', '-1', '0x10', '1e3', 'Infinity', '1,5', '+3', 'three', '1E'].map(quantityValue)).toEqual(
      Array(9).fill(undefined),
    );
  });
});
