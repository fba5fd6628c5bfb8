import type { Booking } from '../../apps/sandbox/src/state/sandbox-state';
import { readSeed, Seed } from '../../apps/sandbox/src/state/seed';
import { DEMO, DEMO_SEED_PATH } from './sandbox';

const APPROVED = '5a1e0000-0000-4000-8000-000000000002';

/**
 * The demo seed plus `total` approved bookings at Main DC, half an hour apart from 2026-01-01,
 * seeded in reverse time order (so an export's sort is what orders them). Booking n carries
 * (n % 5) + 1 pallets.
 */
export function seedWithBookings(total: number): Seed {
  const seed = readSeed(DEMO_SEED_PATH);
  const start = Date.parse('2026-01-01T00:00:00Z');
  seed.bookings = Array.from({ length: total }, (_, i): Booking => {
    const n = total - 1 - i;
    const time = new Date(start + n * 30 * 60_000).toISOString();
    const id = String(n).padStart(4, '0');
    return {
      id: `MDB-26-SEED-${id}`,
      pin: '12345',
      locationId: DEMO.mainDc,
      carrierId: DEMO.fastFreight,
      statusId: APPROVED,
      requestedTime: time,
      bookedTime: time,
      duration: 30,
      areaId: null,
      vehicleId: null,
      reassignedFrom: null,
      tasks: [
        {
          id: `MDT-26-SEED-${id}`,
          direction: 'Inbound',
          senderId: DEMO.kettleFoods,
          receiverId: DEMO.mainDc,
          documentId: null,
          loads: [{ name: 'Pallet', quantity: (n % 5) + 1 }],
          bookingOptions: [],
        },
      ],
      headerLoads: [],
      fields: {},
      createdBy: DEMO.mainDc,
      createdAt: time,
    };
  });
  return seed;
}
