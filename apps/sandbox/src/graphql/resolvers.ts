import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import type { Direction } from '@dockbridge/platform';
import { BookingEntityRefInput, BookingInput, LoadQuantityInput, TaskInput } from '../bookings/booking-engine';
import { presentBooking } from '../bookings/booking-view';
import { BookingsService, StatusUpdateArgs, VehicleInput } from '../bookings/bookings.service';
import { DocumentsService, page } from '../documents/documents.service';
import { Caller } from '../http/caller';
import { PlatformError } from '../http/platform-error';
import { SandboxState, StoredDocument } from '../state/sandbox-state';
import { TimestampScalar, UUIDScalar, VoidScalar } from './scalars';
import { typeDefs } from './schema.graphql';

interface DocumentsArgs {
  organisationId: string;
  filter?: {
    ids?: string[] | null;
    direction?: Direction | null;
    typeName?: string | null;
    statusName?: string | null;
    updatedSince?: string | null;
  } | null;
  start: number;
  count: number;
  ordering: 'Id' | 'UpdateDate';
  ascending: boolean;
}

const MAX_COUNT = 1000;

/** The executable schema: resolvers translate arguments and hand over to the services. */
export function buildSchema(
  state: SandboxState,
  bookings: BookingsService,
  documents: DocumentsService,
): GraphQLSchema {
  const listDocuments = (caller: Caller, args: DocumentsArgs) => {
    caller.require(args.organisationId, 'ViewDocuments');
    if (args.count < 1 || args.count > MAX_COUNT) {
      throw PlatformError.badRequest('Invalid argument', [`count: must be between 1 and ${MAX_COUNT}`]);
    }
    if (args.start < 0) {
      throw PlatformError.badRequest('Invalid argument', ['start: must be 0 or more']);
    }
    const location = documents.location(args.organisationId);
    const filter = args.filter ?? {};
    const since = filter.updatedSince ? Date.parse(filter.updatedSince) : undefined;
    const matches = (d: StoredDocument) =>
      (!filter.ids || filter.ids.includes(d.id)) &&
      (!filter.direction || d.direction === filter.direction) &&
      (filter.typeName == null || d.type?.name === filter.typeName) &&
      (filter.statusName == null || d.status?.name === filter.statusName) &&
      (since === undefined || Date.parse(d.updateDate) >= since);
    const byId = (a: StoredDocument, b: StoredDocument) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const compare =
      args.ordering === 'UpdateDate'
        ? (a: StoredDocument, b: StoredDocument) => Date.parse(a.updateDate) - Date.parse(b.updateDate) || byId(a, b)
        : byId;
    const sorted = [...state.documentsAt(location.id).values()].filter(matches).sort(compare);
    if (!args.ascending) {
      sorted.reverse();
    }
    return page(sorted, args.start, args.count);
  };

  return makeExecutableSchema({
    typeDefs,
    resolvers: {
      UUID: UUIDScalar,
      Timestamp: TimestampScalar,
      Void: VoidScalar,
      Query: {
        booking: (_: unknown, args: { id: string }, caller: Caller) =>
          presentBooking(state, bookings.view(caller, args.id)),
        documents: (_: unknown, args: DocumentsArgs, caller: Caller) => listDocuments(caller, args),
      },
      Mutation: {
        createBooking: (
          _: unknown,
          args: { organisationId: string; booking?: BookingInput; bookingEntityRef?: BookingEntityRefInput },
          caller: Caller,
        ) => bookings.create(caller, args.organisationId, args.booking, args.bookingEntityRef),
        updateBookingStatus: (
          _: unknown,
          args: StatusUpdateArgs & { organisationId: string; bookingId: string },
          caller: Caller,
        ) => {
          bookings.updateStatus(caller, args.organisationId, args.bookingId, args);
          return null;
        },
        updateBookingTasks: (
          _: unknown,
          args: {
            organisationId: string;
            bookingId: string;
            addTasks: TaskInput[];
            deleteTasks: string[];
            time: string;
            areaId?: string;
            headerLoads?: LoadQuantityInput[];
          },
          caller: Caller,
        ) => {
          bookings.updateTasks(caller, args.organisationId, args.bookingId, args);
          return null;
        },
        updateVehicle: (
          _: unknown,
          args: { organisationId: string; vehicleId: string; vehicle?: VehicleInput },
          caller: Caller,
        ) => {
          bookings.updateVehicle(caller, args.organisationId, args.vehicleId, args.vehicle);
          return null;
        },
      },
    },
  });
}
