import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import type {
  BookingEntityRefInput,
  BookingInput,
  DocumentInput,
  UpdateBookingStatusInput,
  UpdateBookingTasksInput,
  VehicleInput,
} from '@dockbridge/platform';
import { DocumentInputDto, unstorableText, validatePlain } from '@dockbridge/platform';

/**
 * Canonical operations: what every ingress (JSON API, EDI, webhooks) is translated into, and what
 * the worker delivers. One operation is one platform call (or one entry of a batch job).
 */
export interface ReferenceOptions {
  enableBaseOrgs?: boolean;
  selfCoreId?: string;
}

export type CanonicalOperation =
  | { kind: 'document.upsert'; organisationId: string; document: DocumentInput; options?: ReferenceOptions }
  | { kind: 'document.delete'; organisationId: string; documentId: string }
  | ({ kind: 'booking.create'; organisationId: string } & (
      { booking: BookingInput } | { bookingEntityRef: BookingEntityRefInput }
    ))
  | ({ kind: 'booking.status'; organisationId: string } & UpdateBookingStatusInput)
  | ({ kind: 'booking.tasks'; organisationId: string } & UpdateBookingTasksInput)
  | { kind: 'vehicle.update'; organisationId: string; vehicleId: string; vehicle: VehicleInput };

export type OperationKind = CanonicalOperation['kind'];

export const OPERATION_KINDS: readonly OperationKind[] = [
  'document.upsert',
  'document.delete',
  'booking.create',
  'booking.status',
  'booking.tasks',
  'vehicle.update',
];

/** The platform object an operation acts on: document id, booking id or vehicle id (audit search by document id). */
export function targetOf(operation: CanonicalOperation): string | null {
  switch (operation.kind) {
    case 'document.upsert':
      return operation.document.id;
    case 'document.delete':
      return operation.documentId;
    case 'booking.create':
      return null;
    case 'booking.status':
    case 'booking.tasks':
      return operation.bookingId;
    case 'vehicle.update':
      return operation.vehicleId;
  }
}

/**
 * What an operation writes, for ordering (see OperationRepository.gate): a document or a vehicle of
 * an organisation, or a booking. Operations with the same key reach the platform in arrival order,
 * and the newest one delivered wins. null: nothing to order (a new booking).
 */
export function orderKeyOf(operation: CanonicalOperation): string | null {
  const organisation = String(operation.organisationId).toLowerCase();
  switch (operation.kind) {
    case 'document.upsert':
    case 'document.delete':
      return `document|${organisation}|${targetOf(operation)}`;
    case 'vehicle.update':
      return `vehicle|${organisation}|${operation.vehicleId}`;
    case 'booking.status':
    case 'booking.tasks':
      return `booking|${operation.bookingId}`;
    case 'booking.create':
      return null;
  }
}

class ReferenceOptionsDto {
  @IsOptional() @IsBoolean() enableBaseOrgs?: boolean;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) selfCoreId?: string;
}

/** Fields every operation has; the kind decides which others are required. GraphQL inputs are checked by the platform itself. */
class CanonicalOperationDto {
  @IsIn(OPERATION_KINDS) kind: OperationKind;
  @IsUUID('all') organisationId: string;

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'document.upsert')
  @IsObject()
  @ValidateNested()
  @Type(() => DocumentInputDto)
  document?: DocumentInputDto;

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'document.upsert' && o.options !== undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => ReferenceOptionsDto)
  options?: ReferenceOptionsDto;

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'document.delete')
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  documentId?: string;

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'booking.create' && o.bookingEntityRef === undefined)
  @IsObject({ message: 'booking (or bookingEntityRef) must be an object' })
  booking?: object;

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'booking.create' && o.booking === undefined)
  @IsObject()
  bookingEntityRef?: object;

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'booking.status' || o.kind === 'booking.tasks')
  @IsString()
  @MinLength(1)
  bookingId?: string;

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'booking.status' && o.statusReference === undefined)
  @IsUUID('all', { message: 'statusId must be a UUID (or give statusReference)' })
  statusId?: string;

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'booking.status' && o.statusReference !== undefined)
  @IsObject()
  statusReference?: object;

  @IsOptional() @IsArray() fields?: object[];
  @IsOptional() @IsArray() formSubmissions?: object[];

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'booking.tasks') @IsArray() addTasks?: object[];
  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'booking.tasks')
  @IsArray()
  @IsString({ each: true })
  deleteTasks?: string[];
  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'booking.tasks') @IsString() time?: string;
  @IsOptional() @IsUUID('all') areaId?: string;
  @IsOptional() @IsArray() headerLoads?: object[];

  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'vehicle.update') @IsUUID('all') vehicleId?: string;
  @ValidateIf((o: CanonicalOperationDto) => o.kind === 'vehicle.update') @IsObject() vehicle?: object;
}

export const MAX_OPERATIONS_PER_MESSAGE = 100_000;

/** `{"operations": [...]}`: the body of `POST /v1/messages` and of a stored API message. */
export class CanonicalMessageDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_OPERATIONS_PER_MESSAGE)
  @ValidateNested({ each: true })
  @Type(() => CanonicalOperationDto)
  operations: CanonicalOperationDto[];
}

export type CanonicalMessageCheck = { ok: true; operations: CanonicalOperation[] } | { ok: false; problems: string[] };

/** Validates a canonical message; every problem names its path (`operations[3].document.loads[0].quantity`). */
export function checkCanonicalMessage(plain: unknown): CanonicalMessageCheck {
  const notObjects = notObjectsOf(plain);
  if (notObjects) {
    return notObjects;
  }
  const result = validatePlain(CanonicalMessageDto, plain);
  return result.ok ? checkValidated(plain) : result;
}

/** class-validator lets an array through where a nested object is expected (`[[]]`): refuse it by name. */
function notObjectsOf(plain: unknown): CanonicalMessageCheck | undefined {
  const list = (plain as { operations?: unknown } | null)?.operations;
  const notObjects = Array.isArray(list)
    ? list.flatMap((op, i) =>
        typeof op === 'object' && op !== null && !Array.isArray(op) ? [] : [`operations[${i}] must be an object`],
      )
    : [];
  return notObjects.length ? { ok: false, problems: notObjects } : undefined;
}

/** What the DTO cannot say, of a message it found valid. */
function checkValidated(plain: unknown): CanonicalMessageCheck {
  // Postgres text and jsonb hold neither U+0000 nor an unpaired surrogate: refuse them here, where the sender can be told.
  const unstorable = unstorableText(plain);
  if (unstorable) {
    return { ok: false, problems: [unstorable] };
  }
  const operations = (plain as { operations: CanonicalOperation[] }).operations;
  const both = operations.flatMap((op, i) =>
    op.kind === 'booking.create' && 'booking' in op && 'bookingEntityRef' in op
      ? [`operations[${i}]: give booking or bookingEntityRef, not both`]
      : [],
  );
  return both.length ? { ok: false, problems: both } : { ok: true, operations };
}

/** Operations validated between two turns of the event loop (class-validator: ~0.2 ms an operation). */
export const CHECK_SLICE = 100;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * checkCanonicalMessage, CHECK_SLICE operations at a time with a turn of the event loop between
 * slices: checking 25,000 documents takes seconds, which would hold every other request of the
 * process for as long. The same problems with the same paths (a slice's own order).
 */
export async function checkCanonicalMessageInTurns(
  plain: unknown,
  turn: () => Promise<void> = nextTurn,
): Promise<CanonicalMessageCheck> {
  const list = (plain as { operations?: unknown } | null)?.operations;
  if (!Array.isArray(list) || list.length <= CHECK_SLICE || notObjectsOf(plain)) {
    return checkCanonicalMessage(plain);
  }
  if (list.length > MAX_OPERATIONS_PER_MESSAGE) {
    return { ok: false, problems: [`operations must contain no more than ${MAX_OPERATIONS_PER_MESSAGE} elements`] };
  }
  const problems = new Set<string>();
  for (let from = 0; from < list.length; from += CHECK_SLICE) {
    if (from > 0) {
      await turn();
    }
    const operations = list.slice(from, from + CHECK_SLICE);
    // The body's other fields (refused by name) are checked with the first slice only: copied into
    // every slice, a body of many fields and many operations would cost their product.
    const slice = from === 0 ? { ...(plain as object), operations } : { operations };
    const result = validatePlain(CanonicalMessageDto, slice);
    if (!result.ok) {
      // A slice's operations[k] is the message's operations[from + k].
      for (const problem of result.problems) {
        problems.add(problem.replace(/operations\[(\d+)\]/, (_, k: string) => `operations[${from + Number(k)}]`));
      }
    }
  }
  return problems.size > 0 ? { ok: false, problems: [...problems] } : checkValidated(plain);
}

/** Problems listed by name before the rest are only counted (a message may hold 100,000 operations). */
const MAX_SCOPE_PROBLEMS = 20;

/**
 * Operations that act on an organisation outside `allowed` (lower-case uuids), each named by
 * position, kind and organisation: a partner may act only on the organisations its profile names.
 */
export function organisationScopeProblems(
  operations: readonly CanonicalOperation[],
  allowed: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  let more = 0;
  operations.forEach((op, i) => {
    if (allowed.has(String(op.organisationId).toLowerCase())) {
      return;
    }
    if (problems.length < MAX_SCOPE_PROBLEMS) {
      problems.push(
        `operations[${i}] (${op.kind}) acts on organisation ${op.organisationId}, which this partner may not act on`,
      );
    } else {
      more++;
    }
  });
  if (more > 0) {
    problems.push(`and ${more} more operations on organisations this partner may not act on`);
  }
  return problems;
}
