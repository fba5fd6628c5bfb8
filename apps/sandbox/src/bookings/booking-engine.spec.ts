import { join } from 'node:path';
import { SandboxState } from '../state/sandbox-state';
import { readSeed } from '../state/seed';
import { BookingEngine, BookingInput, overlaps } from './booking-engine';

const MAIN_DC = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01'; // capacity 2
const CROSS_DOCK = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e02'; // capacity 1 (default)
const FAST_FREIGHT = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e10';
const KETTLE = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e20';

const seed = readSeed(join(__dirname, '../../../../config/sandbox.seed.json'));

function input(locationId: string, requestedTime: string, duration = 60): BookingInput {
  return {
    carrierId: FAST_FREIGHT,
    requestedTime,
    duration,
    tasks: [
      {
        direction: 'Inbound',
        receiverId: locationId,
        senderId: locationId === MAIN_DC ? KETTLE : null,
        loads: [{ name: 'Pallet', quantity: 1 }],
      },
    ],
  };
}

describe('overlaps', () => {
  const at = (hhmm: string) => Date.parse(`2026-03-02T${hhmm}:00Z`);

  it('treats windows as half-open: one ending when the other starts does not overlap', () => {
    expect(overlaps(at('08:00'), 60, at('09:00'), 60)).toBe(false);
    expect(overlaps(at('09:00'), 60, at('08:00'), 60)).toBe(false);
  });

  it('detects partial and nested overlaps in both orders', () => {
    expect(overlaps(at('08:00'), 60, at('08:59'), 60)).toBe(true);
    expect(overlaps(at('08:30'), 10, at('08:00'), 60)).toBe(true);
    expect(overlaps(at('08:00'), 60, at('08:30'), 10)).toBe(true);
  });
});

describe('BookingEngine capacity', () => {
  let state: SandboxState;
  let engine: BookingEngine;
  const statusOf = (id: string) =>
    state.statusesAt(state.bookings.get(id)!.locationId).find((s) => s.id === state.bookings.get(id)!.statusId)!.name;

  beforeEach(() => {
    state = new SandboxState(seed);
    engine = new BookingEngine(state);
  });

  it('approves while fewer than capacity approved bookings overlap, then leaves bookings Submitted', () => {
    const a = engine.create(MAIN_DC, input(MAIN_DC, '2026-03-02T08:00:00Z'));
    const b = engine.create(MAIN_DC, input(MAIN_DC, '2026-03-02T08:30:00Z'));
    const c = engine.create(MAIN_DC, input(MAIN_DC, '2026-03-02T08:45:00Z'));
    expect([statusOf(a.id), statusOf(b.id), statusOf(c.id)]).toEqual(['Approved', 'Approved', 'Submitted']);
    expect(a.pin).toMatch(/^\d{5}$/);
    expect(a.bookedTime).toBe(a.requestedTime);
    expect(c.pin).toBeNull();
    expect(c.bookedTime).toBeNull();
  });

  it('approves a booking that only touches the end of approved ones', () => {
    engine.create(MAIN_DC, input(MAIN_DC, '2026-03-02T08:00:00Z'));
    engine.create(MAIN_DC, input(MAIN_DC, '2026-03-02T08:30:00Z'));
    const later = engine.create(MAIN_DC, input(MAIN_DC, '2026-03-02T09:30:00Z', 30));
    expect(statusOf(later.id)).toBe('Approved');
  });

  it('uses the default capacity of 1 and counts only the same location', () => {
    engine.create(MAIN_DC, input(MAIN_DC, '2026-03-02T08:00:00Z'));
    const first = engine.create(CROSS_DOCK, input(CROSS_DOCK, '2026-03-02T08:00:00Z'));
    const second = engine.create(CROSS_DOCK, input(CROSS_DOCK, '2026-03-02T08:15:00Z'));
    expect(statusOf(first.id)).toBe('Approved');
    expect(statusOf(second.id)).toBe('Submitted');
  });

  it('does not count Submitted or Cancelled bookings against capacity', () => {
    const a = engine.create(CROSS_DOCK, input(CROSS_DOCK, '2026-03-02T08:00:00Z'));
    const b = engine.create(CROSS_DOCK, input(CROSS_DOCK, '2026-03-02T08:00:00Z'));
    expect(statusOf(b.id)).toBe('Submitted');
    engine.updateStatus(a, 'location', { statusName: 'Cancelled' });
    const c = engine.create(CROSS_DOCK, input(CROSS_DOCK, '2026-03-02T08:30:00Z'));
    expect(statusOf(c.id)).toBe('Approved');
  });

  it('re-evaluates on updateTasks: a moved Submitted booking is approved, an Approved one moved into a full slot drops back', () => {
    const a = engine.create(CROSS_DOCK, input(CROSS_DOCK, '2026-03-02T08:00:00Z'));
    const b = engine.create(CROSS_DOCK, input(CROSS_DOCK, '2026-03-02T08:30:00Z'));
    expect(statusOf(b.id)).toBe('Submitted');

    engine.updateTasks(b, { addTasks: [], deleteTasks: [], time: '2026-03-02T12:00:00.000Z' });
    expect(statusOf(b.id)).toBe('Approved');
    expect(b.bookedTime).toBe('2026-03-02T12:00:00.000Z');

    engine.updateTasks(a, { addTasks: [], deleteTasks: [], time: '2026-03-02T12:30:00.000Z' });
    expect(statusOf(a.id)).toBe('Submitted');
    expect(a.pin).toBeNull();
    expect(a.bookedTime).toBeNull();
  });

  it('does not let an approved booking block itself when it is moved within its own slot', () => {
    const a = engine.create(CROSS_DOCK, input(CROSS_DOCK, '2026-03-02T08:00:00Z'));
    const pin = a.pin;
    engine.updateTasks(a, { addTasks: [], deleteTasks: [], time: '2026-03-02T08:15:00.000Z' });
    expect(statusOf(a.id)).toBe('Approved');
    expect(a.pin).toBe(pin);
  });
});
