import type { CanonicalOperation } from '@dockbridge/mapping';
import { PlatformCallError, type PlatformClient } from '@dockbridge/platform';
import { callPlatform, summaryOf } from './platform-call';

const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const document = { id: 'PO-1', direction: 'Inbound' as const, occupant: { id: ORG } };

/** A client that records each call and answers with what `answers` gives for its method. */
function client(answers: Partial<Record<keyof PlatformClient, (...args: unknown[]) => unknown>> = {}) {
  const calls: unknown[][] = [];
  const fake = new Proxy(
    {},
    {
      get:
        (_target, method: string) =>
        async (...args: unknown[]) => {
          calls.push([method, ...args]);
          return answers[method as keyof PlatformClient]?.(...args);
        },
    },
  ) as PlatformClient;
  return { fake, calls };
}

describe('callPlatform: one canonical operation, one platform call', () => {
  it('upserts a document, 201 when the platform created it and 200 when it updated it', async () => {
    const created = client({ upsertDocument: () => 'created' });
    const operation = { kind: 'document.upsert', organisationId: ORG, document } as const;
    await expect(callPlatform(created.fake, operation)).resolves.toEqual({
      httpStatus: 201,
      summary: 'PUT documents/PO-1?upsert=true',
      result: 'created',
    });
    expect(created.calls).toEqual([['upsertDocument', ORG, document, {}]]);
    const updated = client({ upsertDocument: () => 'updated' });
    const options = { enableBaseOrgs: true };
    await expect(callPlatform(updated.fake, { ...operation, options })).resolves.toMatchObject({
      httpStatus: 200,
      result: 'updated',
    });
    expect(updated.calls).toEqual([['upsertDocument', ORG, document, options]]);
  });

  it('deletes a document, a document already gone counting as deleted', async () => {
    const operation = { kind: 'document.delete', organisationId: ORG, documentId: 'PO-1' } as const;
    const deleted = client();
    await expect(callPlatform(deleted.fake, operation)).resolves.toEqual({
      httpStatus: 200,
      summary: 'DELETE documents/PO-1',
      result: 'deleted',
    });
    expect(deleted.calls).toEqual([['deleteDocument', ORG, 'PO-1']]);
    const notFound = new PlatformCallError('permanent', 'delete document', 'no such document', 404);
    const gone = client({
      deleteDocument: () => {
        throw notFound;
      },
    });
    await expect(callPlatform(gone.fake, operation)).resolves.toEqual({
      httpStatus: 404,
      summary: 'DELETE documents/PO-1',
      result: 'already absent',
    });
  });

  it('lets any other failure of a delete through', async () => {
    const operation = { kind: 'document.delete', organisationId: ORG, documentId: 'PO-1' } as const;
    for (const error of [
      new PlatformCallError('retryable', 'delete document', 'Bad gateway', 502),
      Object.assign(new Error('odd'), { status: 404 }),
    ]) {
      const failing = client({
        deleteDocument: () => {
          throw error;
        },
      });
      await expect(callPlatform(failing.fake, operation)).rejects.toBe(error);
    }
  });

  it('creates a booking with the operation less its kind and organisation, its result the new id', async () => {
    const booking = { carrierId: 'C1', requestedTime: '2026-11-22T08:00:00Z', duration: 30, tasks: [] };
    const { fake, calls } = client({ createBooking: () => 'B-9' });
    await expect(callPlatform(fake, { kind: 'booking.create', organisationId: ORG, booking })).resolves.toEqual({
      httpStatus: 200,
      summary: 'graphql createBooking',
      result: 'B-9',
    });
    expect(calls).toEqual([['createBooking', ORG, { booking }]]);
  });

  it('updates a booking status, its tasks, and a vehicle', async () => {
    const { fake, calls } = client();
    const status = { kind: 'booking.status', organisationId: ORG, bookingId: 'B-1', statusId: 'S-1' } as const;
    await expect(callPlatform(fake, status)).resolves.toEqual({
      httpStatus: 200,
      summary: 'graphql updateBookingStatus B-1',
      result: 'updated',
    });
    const tasks = {
      kind: 'booking.tasks',
      organisationId: ORG,
      bookingId: 'B-2',
      addTasks: [],
      deleteTasks: ['T-1'],
      time: '2026-11-22T08:00:00Z',
    } as const;
    await expect(callPlatform(fake, tasks as unknown as CanonicalOperation)).resolves.toEqual({
      httpStatus: 200,
      summary: 'graphql updateBookingTasks B-2',
      result: 'updated',
    });
    const vehicle = { kind: 'vehicle.update', organisationId: ORG, vehicleId: 'V-1', vehicle: { name: 'Truck 7' } };
    await expect(callPlatform(fake, vehicle as CanonicalOperation)).resolves.toEqual({
      httpStatus: 200,
      summary: 'graphql updateVehicle V-1',
      result: 'updated',
    });
    expect(calls).toEqual([
      ['updateBookingStatus', ORG, { bookingId: 'B-1', statusId: 'S-1' }],
      [
        'updateBookingTasks',
        ORG,
        { bookingId: 'B-2', addTasks: [], deleteTasks: ['T-1'], time: '2026-11-22T08:00:00Z' },
      ],
      ['updateVehicle', ORG, 'V-1', { name: 'Truck 7' }],
    ]);
  });
});

describe('summaryOf: what an attempt row says of a failed call', () => {
  it('names the REST call, or the GraphQL operation', () => {
    expect(summaryOf({ kind: 'document.upsert', organisationId: ORG, document })).toBe(
      'PUT documents/PO-1?upsert=true',
    );
    expect(summaryOf({ kind: 'document.delete', organisationId: ORG, documentId: 'PO-1' })).toBe(
      'DELETE documents/PO-1',
    );
    expect(summaryOf({ kind: 'booking.status', organisationId: ORG, bookingId: 'B-1' } as CanonicalOperation)).toBe(
      'graphql booking.status',
    );
  });
});
