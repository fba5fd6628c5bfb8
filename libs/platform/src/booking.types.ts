/** The platform's GraphQL booking shapes (platform-interface.md and the sandbox's documented choices). */
import type { Direction } from './document.types';

export interface LoadQuantityInput {
  name: string;
  quantity: number;
  loadTag?: string;
}

export interface FieldDataInput {
  fieldId?: string;
  key?: string;
  value?: string;
}

export interface FormSubmissionInput {
  formId?: string;
  name?: string;
  fields: FieldDataInput[];
}

export interface TaskInput {
  direction: Direction;
  senderId?: string;
  receiverId?: string;
  loads: LoadQuantityInput[];
  documentId?: string;
  bookingOptions?: string[];
}

export interface BookingInput {
  carrierId: string;
  requestedTime: string;
  /** Minutes. */
  duration: number;
  areaId?: string;
  vehicleId?: string;
  tasks: TaskInput[];
  fields?: FieldDataInput[];
  headerLoads?: LoadQuantityInput[];
}

export interface EntityRefInput {
  id?: string;
  name?: string;
  coreName?: string;
  coreId?: string;
}

export interface EntityRefTaskInput extends Omit<TaskInput, 'senderId' | 'receiverId'> {
  sender?: EntityRefInput;
  receiver?: EntityRefInput;
}

/** BookingInput with names in place of UUIDs. */
export interface BookingEntityRefInput extends Omit<BookingInput, 'carrierId' | 'areaId' | 'vehicleId' | 'tasks'> {
  carrier: EntityRefInput;
  area?: EntityRefInput;
  vehicle?: EntityRefInput;
  tasks: EntityRefTaskInput[];
}

export interface BookingStatusEntityRefInput {
  name: string;
}

export interface VehicleInput {
  name?: string;
  registration?: string;
  type?: string;
}

export interface DocumentsFilterInput {
  ids?: string[];
  direction?: Direction;
  typeName?: string;
  statusName?: string;
  updatedSince?: string;
}

export type DocumentOrdering = 'Id' | 'UpdateDate';

export interface Booking {
  id: string;
  pin: string | null;
  status: { id: string; name: string; description: string | null };
  carrier: { id: string; name: string; description: string | null };
  requestedTime: string;
  bookedTime: string | null;
  duration: number;
  reassignedFrom: string | null;
  location: { id: string; name: string };
  tasks: { id: string; direction: Direction; documentId: string | null; loads: LoadQuantityInput[] }[];
}

export interface UpdateBookingStatusInput {
  bookingId: string;
  statusId?: string;
  statusReference?: BookingStatusEntityRefInput;
  fields?: FieldDataInput[];
  formSubmissions?: FormSubmissionInput[];
}

export interface UpdateBookingTasksInput {
  bookingId: string;
  addTasks: TaskInput[];
  deleteTasks: string[];
  time: string;
  areaId?: string;
  headerLoads?: LoadQuantityInput[];
}

export interface BookingsExportRequest {
  layoutId: string;
  filter?: Record<string, unknown>;
  format?: 'json' | 'csv';
  viewAs?: 'bookings' | 'tasks';
}
