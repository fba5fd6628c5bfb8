import { Injectable } from '@nestjs/common';
import { Caller } from '../http/caller';
import { PlatformError } from '../http/platform-error';
import { Booking, SandboxState } from '../state/sandbox-state';
import {
  BookingEngine,
  BookingEntityRefInput,
  BookingInput,
  FieldDataInput,
  Role,
  TasksChange,
} from './booking-engine';

export interface StatusUpdateArgs {
  statusId?: string | null;
  statusReference?: { name: string } | null;
  fields?: FieldDataInput[] | null;
  formSubmissions?: { formId?: string | null; name?: string | null; fields: FieldDataInput[] }[] | null;
}

export interface VehicleInput {
  name?: string | null;
  registration?: string | null;
  type?: string | null;
}

/** The GraphQL booking operations: who may do what (platform-interface.md rules 1-6), then the engine. */
@Injectable()
export class BookingsService {
  readonly engine: BookingEngine;

  constructor(private readonly state: SandboxState) {
    this.engine = new BookingEngine(state);
  }

  /**
   * Rule 1: ViewLocationBookings where one of the caller's organisations is the location,
   * ViewCarrierBookings where it is the carrier; either suffices. A booking at none of them is not found.
   */
  view(caller: Caller, id: string): Booking {
    const booking = this.state.bookings.get(id);
    const asLocation = !!booking && caller.actsFor(booking.locationId);
    const asCarrier = !!booking && caller.actsFor(booking.carrierId);
    if (!booking || (!asLocation && !asCarrier)) {
      throw PlatformError.notFound(`booking ${id} does not exist at the token's organisations`);
    }
    if (
      (asLocation && caller.permissions.has('ViewLocationBookings')) ||
      (asCarrier && caller.permissions.has('ViewCarrierBookings'))
    ) {
      return booking;
    }
    throw PlatformError.forbidden(
      `the token lacks the ${asLocation ? 'ViewLocationBookings' : 'ViewCarrierBookings'} permission`,
    );
  }

  create(
    caller: Caller,
    organisationId: string,
    booking?: BookingInput | null,
    bookingEntityRef?: BookingEntityRefInput | null,
  ): string {
    caller.require(organisationId, 'CreateBookings');
    if ((booking == null) === (bookingEntityRef == null)) {
      throw PlatformError.badRequest('Invalid booking', ['booking: give exactly one of booking and bookingEntityRef']);
    }
    const input = booking ?? this.engine.resolveEntityRefs(organisationId, bookingEntityRef!);
    return this.engine.create(organisationId, input, booking ? 'booking' : 'bookingEntityRef').id;
  }

  updateStatus(caller: Caller, organisationId: string, bookingId: string, args: StatusUpdateArgs): void {
    const { booking, role } = this.participant(caller, organisationId, bookingId);
    this.engine.updateStatus(booking, role, {
      statusId: args.statusId,
      statusName: args.statusReference?.name,
      fields: args.fields,
      formFields: (args.formSubmissions ?? []).flatMap((f) => f.fields),
    });
  }

  updateTasks(caller: Caller, organisationId: string, bookingId: string, change: TasksChange): void {
    const { booking } = this.participant(caller, organisationId, bookingId);
    this.engine.updateTasks(booking, change);
  }

  /** Rule 6: a vehicle's name cannot change. */
  updateVehicle(
    caller: Caller,
    organisationId: string,
    vehicleId: string,
    input: VehicleInput | null | undefined,
  ): void {
    caller.require(organisationId, 'ManageVehicles');
    const vehicle = this.state.vehicles.get(vehicleId);
    if (!vehicle || vehicle.organisationId !== organisationId) {
      throw PlatformError.notFound(`vehicle ${vehicleId} does not exist at organisation ${organisationId}`);
    }
    if (!input) {
      return;
    }
    if (input.name != null && input.name !== vehicle.name) {
      throw PlatformError.badRequest('Invalid vehicle', [
        `vehicle.name: the name of a vehicle cannot be updated (it is ${JSON.stringify(vehicle.name)})`,
      ]);
    }
    if (input.registration != null) {
      vehicle.registration = input.registration;
    }
    if (input.type != null) {
      vehicle.type = input.type;
    }
  }

  /** Rules 4-5: organisationId must be the booking's carrier or location, with the matching Participate* permission. */
  private participant(caller: Caller, organisationId: string, bookingId: string): { booking: Booking; role: Role } {
    if (!caller.actsFor(organisationId)) {
      throw PlatformError.forbidden(`the token does not act for organisation ${organisationId}`);
    }
    const booking = this.state.bookings.get(bookingId);
    if (!booking || (booking.locationId !== organisationId && booking.carrierId !== organisationId)) {
      throw PlatformError.notFound(`booking ${bookingId} does not exist at organisation ${organisationId}`);
    }
    const role: Role = booking.locationId === organisationId ? 'location' : 'carrier';
    caller.require(organisationId, role === 'location' ? 'ParticipateLocationBookings' : 'ParticipateCarrierBookings');
    return { booking, role };
  }
}
