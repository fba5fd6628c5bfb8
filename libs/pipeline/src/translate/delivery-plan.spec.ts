import { dropSupersededWrites, planDelivery, planEntryOf } from './delivery-plan';

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

describe('planDelivery', () => {
  /** Pending operation rows of upserts whose descriptions make each document about `bytes` long. */
  const rows = (n: number, bytes: number) =>
    Array.from({ length: n }, (_, i) =>
      planEntryOf({
        id: `op-${i}`,
        status: 'pending',
        kind: 'document.upsert',
        organisationId: LOCATION,
        payload: upsert(`D${i}`, 'x'.repeat(bytes)).operation,
      }),
    );

  it('goes through batch jobs from the threshold on, in chunks of at most batchSize documents', () => {
    expect(planDelivery('m', rows(4, 10), 5, 100)).toEqual({ single: ['op-0', 'op-1', 'op-2', 'op-3'], batches: [] });
    const plan = planDelivery('m', rows(5, 10), 5, 2);
    expect(plan.single).toEqual([]);
    expect(plan.batches.map((b) => b.operationIds)).toEqual([['op-0', 'op-1'], ['op-2', 'op-3'], ['op-4']]);
    expect(plan.batches[0]).toMatchObject({ messageId: 'm', organisationId: LOCATION, kind: 'document.upsert' });
  });

  // 25,000 ASNs of 40 items made a 100 MB body that the platform refused whole: every document failed.
  it('keeps each batch body under maxBytes, a document too large for any batch going alone', () => {
    const plan = planDelivery('m', rows(10, 1000), 1, 25_000, 3500);
    expect(plan.batches.map((b) => b.operationIds.length)).toEqual([3, 3, 3, 1]);
    const huge = planDelivery('m', rows(3, 5000), 1, 25_000, 3500);
    expect(huge.batches.map((b) => b.operationIds.length)).toEqual([1, 1, 1]);
  });
});
