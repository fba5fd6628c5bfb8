import { DocumentInputDto, validatePlain } from './document-input.dto';

const valid = {
  id: 'PO-1',
  direction: 'Inbound',
  occupant: { coreName: 'ACME', coreId: 'DC01' },
  offsite: { id: '3f1d8a9e-2b4c-4d5e-8f60-718293a4b5c6' },
  loads: [{ name: 'Pallet', quantity: 3, loadTag: 'SKU-1' }],
  settings: { mode: 'Fixed', maxUses: 2 },
  validDates: { begin: '2026-11-22T00:00:00Z', end: '2026-11-23T00:00:00Z' },
  attributes: { ISA13: '000000001', urgent: true },
  status: { name: 'Original' },
  type: { name: 'PurchaseOrder' },
};

const problemsOf = (input: unknown) => {
  const result = validatePlain(DocumentInputDto, input);
  return result.ok ? [] : result.problems;
};

describe('DocumentInputDto', () => {
  it('accepts a complete valid document', () => {
    expect(problemsOf(valid)).toEqual([]);
  });

  it('names each offending field with its path', () => {
    const problems = problemsOf({
      ...valid,
      direction: 'Sideways',
      loads: [
        { name: 'Pallet', quantity: 1 },
        { name: 'Case', quantity: 'many' },
      ],
      validDates: { begin: '2026-11-23T00:00:00Z', end: '2026-11-22T00:00:00Z' },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^direction must be one of/),
        expect.stringMatching(/^loads\[1\]\.quantity/),
        expect.stringMatching(/^validDates\.end must not be before begin/),
      ]),
    );
    expect(problems).toHaveLength(3);
  });

  it('requires at least one party', () => {
    const { occupant, offsite, ...noParties } = valid;
    expect(problemsOf(noParties)).toEqual([expect.stringMatching(/at least one of occupant, offsite, carrier/)]);
  });

  it('refuses an OrgRef with both forms, or with half a Core ID', () => {
    expect(problemsOf({ ...valid, carrier: { id: valid.offsite.id, coreId: 'X' } })).toEqual([
      expect.stringMatching(/^carrier\.id.*exactly one form/),
    ]);
    expect(problemsOf({ ...valid, carrier: { coreId: 'X' } })).toEqual([expect.stringMatching(/^carrier\.coreName/)]);
  });

  it('refuses unknown fields by name and non-object bodies', () => {
    expect(problemsOf({ ...valid, colour: 'red' })).toEqual(['colour: property colour should not exist']);
    expect(problemsOf([valid])).toEqual(['body must be a JSON object']);
  });
});
