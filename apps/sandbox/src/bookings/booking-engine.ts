import { randomInt } from 'node:crypto';
import type { Direction, Load } from '@dockbridge/platform';
import { PlatformError } from '../http/platform-error';
import { Booking, Organisation, SandboxState, StoredDocument, Task } from '../state/sandbox-state';
import { SeedStatus } from '../state/seed';

/** GraphQL input shapes (issue 2), as the resolvers hand them over: timestamps already ISO 8601 UTC. */
export interface LoadQuantityInput {
  name: string;
  quantity: number;
  loadTag?: string | null;
}

export interface FieldDataInput {
  fieldId?: string | null;
  key?: string | null;
  value?: string | null;
}

export interface TaskInput {
  direction: Direction;
  senderId?: string | null;
  receiverId?: string | null;
  loads: LoadQuantityInput[];
  documentId?: string | null;
  bookingOptions?: string[] | null;
}

export interface BookingInput {
  carrierId: string;
  requestedTime: string;
  duration: number;
  areaId?: string | null;
  vehicleId?: string | null;
  tasks: TaskInput[];
  fields?: FieldDataInput[] | null;
  headerLoads?: LoadQuantityInput[] | null;
}

export interface EntityRefInput {
  id?: string | null;
  name?: string | null;
  coreName?: string | null;
  coreId?: string | null;
}

export interface TaskEntityRefInput extends Omit<TaskInput, 'senderId' | 'receiverId'> {
  sender?: EntityRefInput | null;
  receiver?: EntityRefInput | null;
}

export interface BookingEntityRefInput extends Omit<BookingInput, 'carrierId' | 'areaId' | 'vehicleId' | 'tasks'> {
  carrier: EntityRefInput;
  area?: EntityRefInput | null;
  vehicle?: EntityRefInput | null;
  tasks: TaskEntityRefInput[];
}

export interface StatusChange {
  statusId?: string | null;
  statusName?: string | null;
  fields?: FieldDataInput[] | null;
  /** Fields of form submissions count like `fields`. */
  formFields?: FieldDataInput[];
}

export interface TasksChange {
  addTasks: TaskInput[];
  deleteTasks: string[];
  time: string;
  areaId?: string | null;
  headerLoads?: LoadQuantityInput[] | null;
}

export type Role = 'location' | 'carrier';

const MINUTE = 60_000;

/** Whether [aStart, aStart + aMinutes) and [bStart, bStart + bMinutes) share a moment. */
export function overlaps(aStart: number, aMinutes: number, bStart: number, bMinutes: number): boolean {
  return aStart < bStart + bMinutes * MINUTE && bStart < aStart + aMinutes * MINUTE;
}

function bad(problems: string[]): PlatformError {
  return PlatformError.badRequest('Invalid booking', problems);
}

function loadKey(load: LoadQuantityInput | Load, withQuantity: boolean): string {
  return [load.name, withQuantity ? load.quantity : '', load.loadTag ?? ''].join('\u0000');
}

function sameMultiset(a: string[], b: string[]): boolean {
  const x = [...a].sort();
  const y = [...b].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function toLoads(loads: LoadQuantityInput[] | null | undefined): Load[] {
  return (loads ?? []).map((l) => ({
    name: l.name,
    quantity: l.quantity,
    ...(l.loadTag != null ? { loadTag: l.loadTag } : {}),
  }));
}

/**
 * The booking engine: validates bookings against a location's configuration and documents, and
 * approves them while the location has capacity. Plain logic over SandboxState; permissions are
 * the caller's business (BookingsService).
 */
export class BookingEngine {
  constructor(private readonly state: SandboxState) {}

  // ---- capacity ----------------------------------------------------------------------------

  /** Approved bookings at the booking's location, other than itself, overlapping its requested window. */
  approvedOverlapping(booking: Pick<Booking, 'id' | 'locationId' | 'requestedTime' | 'duration'>): Booking[] {
    const approved = this.status(booking.locationId, 'Approved');
    if (!approved) {
      return [];
    }
    const start = Date.parse(booking.requestedTime);
    return [...this.state.bookings.values()].filter(
      (other) =>
        other.id !== booking.id &&
        other.locationId === booking.locationId &&
        other.statusId === approved.id &&
        overlaps(start, booking.duration, Date.parse(other.bookedTime ?? other.requestedTime), other.duration),
    );
  }

  /** Approves the booking when fewer than `capacity` approved bookings overlap it; else it is (back to) Submitted. */
  evaluate(booking: Booking): void {
    const location = this.state.organisations.get(booking.locationId);
    const approved = this.status(booking.locationId, 'Approved');
    const fits = !!approved && this.approvedOverlapping(booking).length < (location?.capacity ?? 1);
    if (fits) {
      booking.statusId = approved.id;
      booking.bookedTime = booking.requestedTime;
      booking.pin ??= newPin();
    } else {
      booking.statusId = this.initialStatus(booking.locationId).id;
      booking.bookedTime = null;
      booking.pin = null;
    }
  }

  // ---- createBooking -----------------------------------------------------------------------

  /** Validates, stores and evaluates a new booking made by `organisationId`; returns it. */
  create(organisationId: string, input: BookingInput, prefix = 'booking'): Booking {
    const location = this.locate(organisationId, input.tasks, prefix);
    const problems: string[] = [];
    const maker = this.state.organisations.get(organisationId);
    const carrier = this.state.organisations.get(input.carrierId);
    if (!carrier || carrier.kind !== 'carrier') {
      problems.push(`${prefix}.carrierId: organisation ${input.carrierId} is not a carrier`);
    } else if (!this.state.isConnected(location.id, carrier.id)) {
      problems.push(`${prefix}.carrierId: carrier ${carrier.name} is not connected to location ${location.name}`);
    } else if (maker?.kind === 'carrier' && carrier.id !== maker.id) {
      problems.push(`${prefix}.carrierId: a carrier books for itself only (${maker.name})`);
    }
    this.checkTiming(input.requestedTime, `${prefix}.requestedTime`, input.duration, `${prefix}.duration`, problems);
    this.checkArea(location, input.areaId, `${prefix}.areaId`, problems);
    this.checkVehicle(location, input.carrierId, input.vehicleId, `${prefix}.vehicleId`, problems);
    this.checkLoads(input.headerLoads ?? [], `${prefix}.headerLoads`, problems);
    const fields = this.fieldMap(input.fields ?? [], `${prefix}.fields`, problems);
    if (input.tasks.length === 0) {
      problems.push(`${prefix}.tasks: a booking needs at least one task`);
    }
    const { tasks, documents } = this.buildTasks(
      location,
      input.tasks,
      input.requestedTime,
      `${prefix}.tasks`,
      problems,
    );
    if (problems.length) {
      throw bad(problems);
    }

    for (const document of documents) {
      document.uses++;
    }
    const booking: Booking = {
      id: this.state.newBookingId(),
      pin: null,
      locationId: location.id,
      carrierId: input.carrierId,
      statusId: this.initialStatus(location.id).id,
      requestedTime: input.requestedTime,
      bookedTime: null,
      duration: input.duration,
      areaId: input.areaId ?? null,
      vehicleId: input.vehicleId ?? null,
      reassignedFrom: null,
      tasks,
      headerLoads: toLoads(input.headerLoads),
      fields,
      createdBy: organisationId,
      createdAt: new Date().toISOString(),
    };
    this.state.bookings.set(booking.id, booking);
    this.evaluate(booking);
    return booking;
  }

  /**
   * The booking's location: `organisationId` when it is a location; otherwise the receiver of the
   * first inbound task, or failing that the sender of the first outbound one.
   */
  locate(
    organisationId: string,
    tasks: Pick<TaskInput, 'direction' | 'senderId' | 'receiverId'>[],
    prefix = 'booking',
  ): Organisation {
    const maker = this.state.organisations.get(organisationId);
    if (!maker) {
      throw PlatformError.notFound(`organisation ${organisationId} does not exist`);
    }
    if (maker.kind === 'location') {
      return maker;
    }
    let index = tasks.findIndex((t) => t.direction === 'Inbound');
    let member: 'receiverId' | 'senderId' = 'receiverId';
    if (index < 0) {
      [index, member] = [tasks.findIndex((t) => t.direction === 'Outbound'), 'senderId'];
    }
    if (index < 0) {
      throw bad([
        `${prefix}.tasks: a booking needs at least one task, whose receiver (inbound) or sender (outbound) is the location`,
      ]);
    }
    const field = `${prefix}.tasks[${index}].${member}`;
    const id = tasks[index][member];
    if (!id) {
      throw bad([`${field}: required, it names the location when a ${maker.kind} books`]);
    }
    const location = this.state.organisations.get(id);
    if (!location || location.kind !== 'location') {
      throw bad([`${field}: organisation ${id} is not a location`]);
    }
    if (!this.state.isConnected(location.id, maker.id)) {
      throw bad([`${field}: ${maker.name} is not connected to location ${location.name}`]);
    }
    return location;
  }

  /** Turns a BookingEntityRefInput into a BookingInput, naming each reference that matches nothing. */
  resolveEntityRefs(organisationId: string, input: BookingEntityRefInput, prefix = 'bookingEntityRef'): BookingInput {
    const problems: string[] = [];
    const organisations = [...this.state.organisations.values()];
    const org = (ref: EntityRefInput | null | undefined, field: string, kind?: Organisation['kind']) =>
      ref
        ? this.match(ref, field, kind ? organisations.filter((o) => o.kind === kind) : organisations, problems)?.id
        : undefined;
    const tasks: TaskInput[] = input.tasks.map(({ sender, receiver, ...task }, i) => ({
      ...task,
      senderId: org(sender, `${prefix}.tasks[${i}].sender`),
      receiverId: org(receiver, `${prefix}.tasks[${i}].receiver`),
    }));
    const carrierId = org(input.carrier, `${prefix}.carrier`, 'carrier');
    if (problems.length) {
      throw bad(problems);
    }
    const location = this.locate(organisationId, tasks, prefix);
    const areas = [...this.state.areas.values()].filter((a) => a.locationId === location.id);
    const vehicles = [...this.state.vehicles.values()].filter(
      (v) => v.organisationId === carrierId || v.organisationId === location.id,
    );
    const areaId = input.area ? this.match(input.area, `${prefix}.area`, areas, problems)?.id : undefined;
    const vehicleId = input.vehicle
      ? this.match(input.vehicle, `${prefix}.vehicle`, vehicles, problems)?.id
      : undefined;
    if (problems.length) {
      throw bad(problems);
    }
    const { carrier: _c, area: _a, vehicle: _v, ...rest } = input;
    return { ...rest, carrierId: carrierId!, areaId, vehicleId, tasks };
  }

  // ---- updateBookingStatus -----------------------------------------------------------------

  updateStatus(booking: Booking, role: Role, change: StatusChange): void {
    const statuses = this.state.statusesAt(booking.locationId);
    const current = statuses.find((s) => s.id === booking.statusId);
    const hasId = change.statusId != null;
    const hasName = change.statusName != null;
    if (hasId === hasName) {
      throw bad(['statusId: give exactly one of statusId and statusReference']);
    }
    const target = hasId
      ? statuses.find((s) => s.id === change.statusId)
      : statuses.find((s) => s.name === change.statusName);
    if (!target) {
      throw bad([
        hasId
          ? `statusId: no status ${change.statusId} at the booking's location`
          : `statusReference.name: no status named ${JSON.stringify(change.statusName)} at the booking's location`,
      ]);
    }
    const field = hasId ? 'statusId' : 'statusReference';
    const allowed = target.id !== current?.id && (target.exception || (current?.next.includes(target.name) ?? false));
    if (!allowed) {
      const options = statuses
        .filter((s) => current?.next.includes(s.name) || (s.exception && s.id !== current?.id))
        .map((s) => s.name);
      throw bad([
        `${field}: a booking in status ${current?.name ?? '?'} cannot move to ${target.name} (allowed: ${options.join(', ') || 'none'})`,
      ]);
    }
    if (role === 'carrier' && !target.carrierAvailable) {
      throw bad([`${field}: status ${target.name} is not available to carriers`]);
    }

    const problems: string[] = [];
    const supplied = {
      ...this.fieldMap(change.fields ?? [], 'fields', problems),
      ...this.fieldMap(change.formFields ?? [], 'formSubmissions.fields', problems),
    };
    const fields = { ...booking.fields, ...supplied };
    const missing = (target.requiredFields ?? []).filter((key) => !fields[key]);
    if (missing.length) {
      problems.push(
        `fields: status ${target.name} requires ${missing.map((k) => JSON.stringify(k)).join(', ')} (FieldDataInput with that key)`,
      );
    }
    if (problems.length) {
      throw bad(problems);
    }

    booking.fields = fields;
    booking.statusId = target.id;
    if (target.name === 'Approved') {
      booking.bookedTime ??= booking.requestedTime;
      booking.pin ??= newPin();
    }
  }

  // ---- updateBookingTasks ------------------------------------------------------------------

  updateTasks(booking: Booking, change: TasksChange): void {
    const status = this.state.statusesAt(booking.locationId).find((s) => s.id === booking.statusId);
    const location = this.state.organisations.get(booking.locationId)!;
    if (status && status.next.length === 0) {
      throw bad([`bookingId: booking ${booking.id} is ${status.name}; its tasks can no longer change`]);
    }

    const problems: string[] = [];
    const unknown = change.deleteTasks.filter((id) => !booking.tasks.some((t) => t.id === id));
    if (unknown.length) {
      problems.push(`deleteTasks: booking ${booking.id} has no task ${unknown.join(', ')}`);
    }
    this.checkTiming(change.time, 'time', booking.duration, 'duration', problems);
    this.checkArea(location, change.areaId, 'areaId', problems);
    this.checkLoads(change.headerLoads ?? [], 'headerLoads', problems);
    const { tasks: added, documents } = this.buildTasks(location, change.addTasks, change.time, 'addTasks', problems);
    const kept = booking.tasks.filter((t) => !change.deleteTasks.includes(t.id));
    if (kept.length + added.length === 0) {
      problems.push('deleteTasks: a booking needs at least one task');
    }
    if (problems.length) {
      throw bad(problems);
    }

    // A deleted document-backed task gives its use of the document back.
    for (const task of booking.tasks.filter((t) => change.deleteTasks.includes(t.id) && t.documentId)) {
      const document = this.state.documentsAt(location.id).get(task.documentId!);
      if (document) {
        document.uses = Math.max(0, document.uses - 1);
      }
    }
    for (const document of documents) {
      document.uses++;
    }
    booking.tasks = [...kept, ...added];
    booking.requestedTime = change.time;
    if (change.areaId != null) {
      booking.areaId = change.areaId;
    }
    if (change.headerLoads != null) {
      booking.headerLoads = toLoads(change.headerLoads);
    }
    // Only bookings still in the engine's hands are re-evaluated; later stages keep their status.
    if (status?.name === 'Submitted' || status?.name === 'Approved') {
      this.evaluate(booking);
    } else if (booking.bookedTime) {
      booking.bookedTime = booking.requestedTime;
    }
  }

  // ---- shared checks -----------------------------------------------------------------------

  /** Validates tasks at `location`, pre-filling them from their documents; returns the documents each use. */
  private buildTasks(
    location: Organisation,
    inputs: TaskInput[],
    requestedTime: string,
    prefix: string,
    problems: string[],
  ): { tasks: Task[]; documents: StoredDocument[] } {
    const tasks: Task[] = [];
    const documents: StoredDocument[] = [];
    inputs.forEach((input, i) => {
      const at = `${prefix}[${i}]`;
      let senderId = input.senderId ?? null;
      let receiverId = input.receiverId ?? null;
      let loads: Load[] = toLoads(input.loads);
      this.checkLoads(input.loads, `${at}.loads`, problems);

      if (input.documentId != null) {
        const document = location.documentsEnabled
          ? this.state.documentsAt(location.id).get(input.documentId)
          : undefined;
        if (!document) {
          problems.push(`${at}.documentId: document ${input.documentId} does not exist at location ${location.name}`);
        } else {
          const pending = documents.filter((d) => d === document).length;
          this.checkDocument(document, input, requestedTime, pending, at, problems);
          documents.push(document);
          if (loads.length === 0) {
            loads = structuredClone(document.loads ?? []);
          }
          // The document's parties fill the task's missing ones: occupant on the location's side.
          const occupant = document.occupant?.id ?? null;
          const offsite = document.offsite?.id ?? null;
          if (input.direction === 'Inbound') {
            [senderId, receiverId] = [senderId ?? offsite, receiverId ?? occupant];
          } else {
            [senderId, receiverId] = [senderId ?? occupant, receiverId ?? offsite];
          }
        }
      }

      if (input.direction === 'Inbound' && !receiverId) {
        problems.push(`${at}.receiverId: an inbound task needs a receiver`);
      }
      if (input.direction === 'Outbound' && !senderId) {
        problems.push(`${at}.senderId: an outbound task needs a sender`);
      }
      for (const [member, id] of [
        ['senderId', senderId],
        ['receiverId', receiverId],
      ] as const) {
        if (id && (!this.state.organisations.has(id) || !this.state.isConnected(location.id, id))) {
          problems.push(`${at}.${member}: organisation ${id} is not connected to location ${location.name}`);
        }
      }
      tasks.push({
        id: this.state.newTaskId(),
        direction: input.direction,
        senderId,
        receiverId,
        documentId: input.documentId ?? null,
        loads,
        bookingOptions: input.bookingOptions ?? [],
      });
    });
    return { tasks, documents };
  }

  /** The document rules of issue 2: validDates, maxUses, settings.mode. */
  private checkDocument(
    document: StoredDocument,
    input: TaskInput,
    requestedTime: string,
    pending: number,
    at: string,
    problems: string[],
  ): void {
    const where = `${at}.documentId: document ${document.id}`;
    if (document.direction !== input.direction) {
      problems.push(`${where} is ${document.direction}, the task ${input.direction}`);
    }
    const time = Date.parse(requestedTime);
    const { begin, end } = document.validDates ?? {};
    if ((begin && time < Date.parse(begin)) || (end && time > Date.parse(end))) {
      problems.push(
        `${where} may be booked from ${begin ?? 'any time'} to ${end ?? 'any time'}; the requested time ${requestedTime} is outside its validDates`,
      );
    }
    const maxUses = document.settings?.maxUses;
    if (maxUses != null && document.uses + pending >= maxUses) {
      problems.push(`${where} has been used ${document.uses + pending} of its maxUses ${maxUses} times`);
    }
    if (input.loads.length === 0) {
      return;
    } // pre-filled from the document: nothing to compare
    const mode = document.settings?.mode ?? 'Free';
    const docLoads = document.loads ?? [];
    if (
      mode === 'Fixed' &&
      !sameMultiset(
        input.loads.map((l) => loadKey(l, true)),
        docLoads.map((l) => loadKey(l, true)),
      )
    ) {
      problems.push(
        `${at}.loads: document ${document.id} is Fixed; its loads cannot change (send them as the document has them, or none)`,
      );
    }
    if (
      mode === 'Flexible' &&
      !sameMultiset(
        input.loads.map((l) => l.name),
        docLoads.map((l) => l.name),
      )
    ) {
      problems.push(
        `${at}.loads: document ${document.id} is Flexible; quantities may change but the load types must stay ${docLoads.map((l) => l.name).join(', ') || '(none)'}`,
      );
    }
  }

  private checkTiming(
    requestedTime: string,
    timeField: string,
    duration: number,
    durationField: string,
    problems: string[],
  ): void {
    if (Number.isNaN(Date.parse(requestedTime))) {
      problems.push(`${timeField}: not an ISO 8601 timestamp`);
    }
    if (!Number.isInteger(duration) || duration <= 0) {
      problems.push(`${durationField}: must be a positive number of minutes`);
    }
  }

  private checkLoads(loads: LoadQuantityInput[], prefix: string, problems: string[]): void {
    loads.forEach((load, i) => {
      if (!load.name?.trim()) {
        problems.push(`${prefix}[${i}].name: required`);
      }
      if (!Number.isFinite(load.quantity) || load.quantity < 0) {
        problems.push(`${prefix}[${i}].quantity: must be zero or more`);
      }
    });
  }

  private checkArea(
    location: Organisation,
    areaId: string | null | undefined,
    field: string,
    problems: string[],
  ): void {
    if (areaId == null) {
      return;
    }
    if (this.state.areas.get(areaId)?.locationId !== location.id) {
      problems.push(`${field}: no area ${areaId} at location ${location.name}`);
    }
  }

  private checkVehicle(
    location: Organisation,
    carrierId: string,
    vehicleId: string | null | undefined,
    field: string,
    problems: string[],
  ): void {
    if (vehicleId == null) {
      return;
    }
    const owner = this.state.vehicles.get(vehicleId)?.organisationId;
    if (owner !== carrierId && owner !== location.id) {
      problems.push(`${field}: no vehicle ${vehicleId} of the carrier or the location`);
    }
  }

  /** Field values by key (or by field id when no key is given). */
  private fieldMap(fields: FieldDataInput[], prefix: string, problems: string[]): Record<string, string> {
    const map: Record<string, string> = {};
    fields.forEach((f, i) => {
      const key = f.key ?? f.fieldId;
      if (!key) {
        problems.push(`${prefix}[${i}]: give a key or a fieldId`);
      } else {
        map[key] = f.value ?? '';
      }
    });
    return map;
  }

  /** One entity named by `ref`: by id, Core ID (coreId, optionally with coreName) or name. */
  private match<T extends { id: string; name: string; coreName?: string | null; coreId?: string | null }>(
    ref: EntityRefInput,
    field: string,
    candidates: T[],
    problems: string[],
  ): T | undefined {
    let found: T[];
    let described: string;
    if (ref.id != null) {
      [found, described] = [candidates.filter((c) => c.id === ref.id), `id ${ref.id}`];
    } else if (ref.coreId != null) {
      found = candidates.filter(
        (c) => c.coreId === ref.coreId && (ref.coreName == null || c.coreName === ref.coreName),
      );
      described = `Core ID ${ref.coreName ?? '*'}/${ref.coreId}`;
    } else if (ref.name != null) {
      [found, described] = [candidates.filter((c) => c.name === ref.name), `name ${JSON.stringify(ref.name)}`];
    } else {
      problems.push(`${field}: give id, coreId or name`);
      return undefined;
    }
    if (found.length === 1) {
      return found[0];
    }
    problems.push(
      found.length
        ? `${field}: ${described} is ambiguous (${found.length} matches)`
        : `${field}: nothing matches ${described}`,
    );
    return undefined;
  }

  status(locationId: string, name: string): SeedStatus | undefined {
    return this.state.statusesAt(locationId).find((s) => s.name === name);
  }

  /** `Submitted`, or the location's first status when its workflow has none by that name. */
  private initialStatus(locationId: string): SeedStatus {
    const status = this.status(locationId, 'Submitted') ?? this.state.statusesAt(locationId)[0];
    if (!status) {
      throw new Error(`location ${locationId} has no booking statuses`);
    }
    return status;
  }
}

function newPin(): string {
  return String(randomInt(10_000, 100_000));
}
