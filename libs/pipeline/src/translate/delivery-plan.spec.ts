import type { PlanEntry } from '@dockbridge/audit';
import { DeliveryPlanner, dropSupersededWrites, planDelivery } from './delivery-plan';

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
  /** Pending operation rows of upserts whose documents are `bytes` long in a batch body. */
  const rows = (n: number, bytes: number): PlanEntry[] =>
    Array.from({ length: n }, (_, i) => ({
      id: `op-${i}`,
      status: 'pending',
      kind: 'document.upsert',
      organisationId: LOCATION,
      options: null,
      bytes,
    }));

  it('goes through batch jobs from the threshold on, in chunks of at most batchSize documents', () => {
    expect(planDelivery('m', rows(4, 10), 5, 100)).toEqual({ single: ['op-0', 'op-1', 'op-2', 'op-3'], batches: [] });
    const plan = planDelivery('m', rows(5, 10), 5, 2);
    expect(plan.single).toEqual([]);
    // The first chunks (an eighth, a quarter, a half of 2) hold one document each.
    expect(plan.batches.map((b) => b.operationIds)).toEqual([['op-0'], ['op-1'], ['op-2'], ['op-3', 'op-4']]);
    expect(plan.batches[0]).toMatchObject({ messageId: 'm', organisationId: LOCATION, kind: 'document.upsert' });
  });

  it("delivers one call each a group of 200,000 under a partner's threshold", () => {
    const plan = planDelivery('m', rows(200_000, 10), 1_000_000, 25_000);
    expect(plan.batches).toEqual([]);
    expect(plan.single).toHaveLength(200_000);
    expect(plan.single.at(-1)).toBe('op-199999');
  });

  it('groups reference options whatever the order of their keys (rows read back from jsonb come sorted)', () => {
    const mapped = { enableBaseOrgs: true, selfCoreId: 'DC01' };
    const readBack = { selfCoreId: 'DC01', enableBaseOrgs: true };
    const entries = rows(6, 10).map((row, i) => ({ ...row, options: i < 3 ? mapped : readBack }));
    const plan = planDelivery('m', entries, 5, 100);
    expect(plan.single).toEqual([]);
    expect(plan.batches.flatMap((b) => b.operationIds)).toEqual(entries.map((e) => e.id));
    // Different options are still apart.
    const apart = planDelivery(
      'm',
      [...entries, { ...entries[0], id: 'other', options: { selfCoreId: 'DC02' } }],
      5,
      100,
    );
    expect(apart.single).toEqual(['other']);
  });

  it('starts a large group with smaller chunks, so the platform begins while the rest is sent', () => {
    const plan = planDelivery('m', rows(100_000, 10), 1, 25_000);
    expect(plan.batches.map((b) => b.operationIds.length)).toEqual([3125, 6250, 12_500, 25_000, 25_000, 25_000, 3125]);
    expect(new Set(plan.batches.flatMap((b) => b.operationIds)).size).toBe(100_000);
    expect(planDelivery('m', rows(3000, 10), 1, 25_000).batches.map((b) => b.operationIds.length)).toEqual([3000]);
  });

  // The sweeper re-plans a message still delivering; batch jobs are found by their first operation's id.
  it('cuts the same chunks whatever has settled since, so a re-plan finds the jobs already made', () => {
    const all = rows(40_000, 10);
    const before = planDelivery('m', all, 1, 25_000);
    const settled = (ids: Set<string>) =>
      all.map((op) => (ids.has(op.id) ? { ...op, status: 'delivered' as const } : op));
    // The first chunk delivered, the second's first operation superseded by the gate, one of the third failed.
    const gone = new Set([...before.batches[0].operationIds, before.batches[1].operationIds[0], 'op-12000']);
    const after = planDelivery('m', settled(gone), 1, 25_000);
    expect(after.batches.map((b) => b.operationIds[0])).toEqual(before.batches.slice(1).map((b) => b.operationIds[0]));
    expect(after.batches.map((b) => b.operationIds)).toEqual(before.batches.slice(1).map((b) => b.operationIds));
    expect(after.single).toEqual([]);
    // Nothing open: nothing planned; a group under the threshold sends only its open operations alone.
    expect(planDelivery('m', settled(new Set(all.map((op) => op.id))), 1, 25_000).batches).toEqual([]);
    expect(planDelivery('m', settled(new Set(['op-0', 'op-2'])).slice(0, 4), 5, 25_000).single).toEqual([
      'op-1',
      'op-3',
    ]);
  });

  it('hands out each chunk once it is complete while pages come, the same chunks as a whole plan', () => {
    const all = rows(10_000, 10);
    const planner = new DeliveryPlanner('m', 1, 25_000);
    const readyAfter = [];
    for (let from = 0; from < all.length; from += 1000) {
      planner.addAll(all.slice(from, from + 1000));
      readyAfter.push(planner.takeReady().batches.map((b) => b.operationIds.length));
    }
    // The first chunk (3,125) is out after the fourth page, the second (6,250) after the tenth: it is full.
    expect(readyAfter).toEqual([[], [], [], [3125], [], [], [], [], [], [6250]]);
    expect(planner.plan().batches.map((b) => b.operationIds.length)).toEqual([625]);
  });

  it('streams the plan of any mix of groups, sizes, settled operations and pages as planDelivery plans it whole', () => {
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let round = 0; round < 40; round++) {
      const entries = Array.from({ length: 1 + random(3000) }, (_, i) => {
        const kind = ['document.upsert', 'document.delete', 'booking.create'][random(3)] as 'document.upsert';
        return {
          id: `op-${i}`,
          status: random(4) === 0 ? ('delivered' as const) : ('pending' as const),
          kind,
          organisationId: random(5) === 0 ? `${LOCATION.slice(0, -1)}2` : LOCATION,
          options: random(6) === 0 ? { enableBaseOrgs: true } : null,
          bytes: 1 + random(random(10) === 0 ? 30_000 : 500),
        };
      });
      const [threshold, batchSize, maxBytes, page] = [
        1 + random(600),
        1 + random(2000),
        1 + random(400_000),
        1 + random(700),
      ];
      const planner = new DeliveryPlanner('m', threshold, batchSize, maxBytes);
      const batches: ReturnType<typeof planDelivery>['batches'] = [];
      for (let from = 0; from < entries.length; from += page) {
        planner.addAll(entries.slice(from, from + page));
        batches.push(...planner.takeReady().batches);
      }
      const rest = planner.plan();
      const whole = planDelivery('m', entries, threshold, batchSize, maxBytes);
      const sorted = (plan: typeof batches) => plan.map((b) => JSON.stringify(b)).sort();
      expect(sorted([...batches, ...rest.batches])).toEqual(sorted(whole.batches));
      expect(rest.single).toEqual(whole.single);
    }
  });

  // 25,000 ASNs of 40 items made a 100 MB body that the platform refused whole: every document failed.
  it('keeps each batch body under maxBytes, a document too large for any batch going alone', () => {
    const plan = planDelivery('m', rows(30, 1000), 1, 25_000, 28_000);
    // An eighth, a quarter and a half of 28,000 bytes, then the whole: 3, 6, 13 and the last 8 (26 a batch).
    expect(plan.batches.map((b) => b.operationIds.length)).toEqual([3, 6, 13, 8]);
    const huge = planDelivery('m', rows(3, 30_000), 1, 25_000, 28_000);
    expect(huge.batches.map((b) => b.operationIds.length)).toEqual([1, 1, 1]);
  });
});
