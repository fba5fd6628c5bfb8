import type { Load } from '@dockbridge/platform';
import { Booking, Organisation, SandboxState, Task } from '../state/sandbox-state';

export interface OrganisationView {
  id: string;
  name: string;
  description: string | null;
  coreName: string | null;
  coreId: string | null;
}

export interface TaskView {
  id: string;
  direction: string;
  documentId: string | null;
  sender: OrganisationView | null;
  receiver: OrganisationView | null;
  loads: Load[];
  bookingOptions: string[];
}

/**
 * A booking as clients see it: the GraphQL Booking type resolves a subset of it, and the export's
 * column paths (`carrier.name`, `loads.quantity`, ...) walk it.
 */
export interface BookingView {
  id: string;
  pin: string | null;
  status: { id: string; name: string; description: string | null };
  carrier: OrganisationView | null;
  location: OrganisationView | null;
  requestedTime: string;
  bookedTime: string | null;
  duration: number;
  reassignedFrom: string | null;
  area: { id: string; name: string } | null;
  vehicle: { id: string; name: string; registration: string | null; type: string | null } | null;
  tasks: TaskView[];
  /** Loads of every task (in the tasks view: of that task only). */
  loads: Load[];
  headerLoads: Load[];
  fields: Record<string, string>;
  createdAt: string;
}

function organisation(org: Organisation | undefined): OrganisationView | null {
  return org ? { id: org.id, name: org.name, description: null, coreName: org.coreName, coreId: org.coreId } : null;
}

export function presentTask(state: SandboxState, task: Task): TaskView {
  return {
    id: task.id,
    direction: task.direction,
    documentId: task.documentId,
    sender: task.senderId ? organisation(state.organisations.get(task.senderId)) : null,
    receiver: task.receiverId ? organisation(state.organisations.get(task.receiverId)) : null,
    loads: task.loads,
    bookingOptions: task.bookingOptions,
  };
}

export function presentBooking(state: SandboxState, booking: Booking): BookingView {
  const status = state.statusesAt(booking.locationId).find((s) => s.id === booking.statusId);
  const area = booking.areaId ? state.areas.get(booking.areaId) : undefined;
  const vehicle = booking.vehicleId ? state.vehicles.get(booking.vehicleId) : undefined;
  return {
    id: booking.id,
    pin: booking.pin,
    status: { id: booking.statusId, name: status?.name ?? '', description: status?.description ?? null },
    carrier: organisation(state.organisations.get(booking.carrierId)),
    location: organisation(state.organisations.get(booking.locationId)),
    requestedTime: booking.requestedTime,
    bookedTime: booking.bookedTime,
    duration: booking.duration,
    reassignedFrom: booking.reassignedFrom,
    area: area ? { id: area.id, name: area.name } : null,
    vehicle: vehicle
      ? { id: vehicle.id, name: vehicle.name, registration: vehicle.registration ?? null, type: vehicle.type ?? null }
      : null,
    tasks: booking.tasks.map((t) => presentTask(state, t)),
    loads: booking.tasks.flatMap((t) => t.loads),
    headerLoads: booking.headerLoads,
    fields: booking.fields,
    createdAt: booking.createdAt,
  };
}
