import { dropSupersededWrites } from './delivery-plan';

const LOCATION = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const upsert = (id: string, description: string) => ({
  operation: {
    kind: 'document.upsert' as const,
    organisationId: LOCATION,
    document: { id, direction: 'Inbound' as const, description },
  },
});

describe('dropSupersededWrites', () => {
  it('keeps only the last write of each document, in order, and says which were dropped', () => {
    const items = [
      upsert('A', 'first'),
      upsert('B', 'only'),
      upsert('A', 'second'),
      { operation: { kind: 'document.delete' as const, organisationId: LOCATION, documentId: 'B' } },
    ];
    const { kept, notes } = dropSupersededWrites(items);
    expect(kept).toEqual([items[2], items[3]]);
    expect(notes).toEqual([
      'operation 1 (document A) is superseded by operation 3 of the same message',
      'operation 2 (document B) is superseded by operation 4 of the same message',
    ]);
  });

  it('leaves booking operations alone', () => {
    const status = {
      operation: {
        kind: 'booking.status' as const,
        organisationId: LOCATION,
        bookingId: 'MDB-26-AAAA-BBBB',
        statusReference: { name: 'Arrived' },
      },
    };
    expect(dropSupersededWrites([status, status]).kept).toHaveLength(2);
  });
});
