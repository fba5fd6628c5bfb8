import type { CanonicalOperation } from '@dockbridge/mapping';
import { PlatformCallError, PlatformClient } from '@dockbridge/platform';

export interface CallOutcome {
  httpStatus: number;
  /** What was sent, for the attempt row: method, path, ids — never headers or tokens. */
  summary: string;
  /** e.g. `created`, `updated`, `already absent`, or the new booking id. */
  result: string;
}

/** Performs one canonical operation on the platform. Every write is idempotent by document id, so a retry never duplicates. */
export async function callPlatform(client: PlatformClient, operation: CanonicalOperation): Promise<CallOutcome> {
  const org = operation.organisationId;
  switch (operation.kind) {
    case 'document.upsert': {
      const result = await client.upsertDocument(org, operation.document, operation.options ?? {});
      return {
        httpStatus: result === 'created' ? 201 : 200,
        summary: `PUT documents/${operation.document.id}?upsert=true`,
        result,
      };
    }
    case 'document.delete':
      try {
        await client.deleteDocument(org, operation.documentId);
        return { httpStatus: 200, summary: `DELETE documents/${operation.documentId}`, result: 'deleted' };
      } catch (error) {
        // Already gone is what a delete wants: a redelivered delete must not fail.
        if (error instanceof PlatformCallError && error.status === 404) {
          return { httpStatus: 404, summary: `DELETE documents/${operation.documentId}`, result: 'already absent' };
        }
        throw error;
      }
    case 'booking.create': {
      const { kind: _kind, organisationId: _org, ...input } = operation;
      const id = await client.createBooking(org, input);
      return { httpStatus: 200, summary: 'graphql createBooking', result: id };
    }
    case 'booking.status': {
      const { kind: _kind, organisationId: _org, ...input } = operation;
      await client.updateBookingStatus(org, input);
      return { httpStatus: 200, summary: `graphql updateBookingStatus ${operation.bookingId}`, result: 'updated' };
    }
    case 'booking.tasks': {
      const { kind: _kind, organisationId: _org, ...input } = operation;
      await client.updateBookingTasks(org, input);
      return { httpStatus: 200, summary: `graphql updateBookingTasks ${operation.bookingId}`, result: 'updated' };
    }
    case 'vehicle.update':
      await client.updateVehicle(org, operation.vehicleId, operation.vehicle);
      return { httpStatus: 200, summary: `graphql updateVehicle ${operation.vehicleId}`, result: 'updated' };
  }
}

/** What an attempt row records of a request that failed. */
export function summaryOf(operation: CanonicalOperation): string {
  switch (operation.kind) {
    case 'document.upsert':
      return `PUT documents/${operation.document.id}?upsert=true`;
    case 'document.delete':
      return `DELETE documents/${operation.documentId}`;
    default:
      return `graphql ${operation.kind}`;
  }
}
