/** The document every delivery benchmark sends: a realistic ASN with two loads, its id given. */
export const benchDocument = (id: string, i: number) => ({
  id,
  direction: 'Inbound',
  occupant: { coreName: 'ACME', coreId: 'DC01' },
  offsite: { coreName: 'ACME', coreId: 'SUP-KETTLE' },
  carrier: { coreName: 'SCAC', coreId: 'FFRT' },
  loads: [
    { name: 'Pallet', quantity: 1 + (i % 20), loadTag: `SKU-${i % 997}` },
    { name: 'Case', quantity: 10 + (i % 7) },
  ],
  settings: { mode: 'Flexible', maxUses: 1 },
  validDates: { begin: '2026-12-01T00:00:00Z', end: '2026-12-08T00:00:00Z' },
  attributes: { ISA13: String(100000000 + i), BSN02: `SH${i}` },
  type: { name: 'AdvanceShipNotice' },
  status: { name: 'Original' },
});

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
