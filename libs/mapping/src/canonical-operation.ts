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
import type { ValidateFunction } from 'ajv';
import {
  documentInputSchema,
  DocumentInputDto,
  newDtoAjv,
  NotADotSegment,
  objectSchema,
  pathIdSchema,
  schemaProblem,
  textSchema,
  unstorableText,
  uuidSchema,
  validatePlain,
} from '@dockbridge/platform';

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
  @NotADotSegment()
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
  @NotADotSegment()
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
/**
 * JSON values one operation may hold (a document of 25,000 loads holds ~100,000): a worker parses
 * an operation's payload whole to deliver it, so one of a million `{}` (~60 MB of heap) could take
 * it out of heap alone; at this limit one is ~10 MB, and the worker's payload budget bounds how many
 * it holds at once.
 */
export const MAX_OPERATION_VALUES = 150_000;

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

const kindIs = (kind: OperationKind) => ({ required: ['kind'], properties: { kind: { const: kind } } });

/**
 * CanonicalOperationDto as a JSON Schema (see documentInputSchema): every field the DTO knows, each
 * checked only for the kinds its ValidateIf names, as the DTO does.
 */
const canonicalOperationSchema = {
  ...objectSchema(
    {
      kind: { enum: [...OPERATION_KINDS] },
      organisationId: uuidSchema(),
      document: true,
      options: true,
      documentId: true,
      booking: true,
      bookingEntityRef: true,
      bookingId: true,
      statusId: true,
      statusReference: true,
      fields: { type: ['array', 'null'] },
      formSubmissions: { type: ['array', 'null'] },
      addTasks: true,
      deleteTasks: true,
      time: true,
      areaId: uuidSchema(true),
      headerLoads: { type: ['array', 'null'] },
      vehicleId: true,
      vehicle: true,
    },
    ['kind', 'organisationId'],
  ),
  allOf: [
    {
      if: kindIs('document.upsert'),
      then: {
        required: ['document'],
        properties: {
          document: documentInputSchema,
          // Given (null included): an object of reference options.
          options: objectSchema({
            enableBaseOrgs: { type: ['boolean', 'null'] },
            selfCoreId: textSchema(1, 100, true),
          }),
        },
      },
    },
    {
      if: kindIs('document.delete'),
      then: { required: ['documentId'], properties: { documentId: pathIdSchema(1, 100) } },
    },
    {
      if: kindIs('booking.create'),
      then: {
        anyOf: [{ required: ['booking'] }, { required: ['bookingEntityRef'] }],
        // Both given: neither is checked here (checkValidated refuses the pair by name).
        if: { required: ['booking', 'bookingEntityRef'] },
        else: { properties: { booking: { type: 'object' }, bookingEntityRef: { type: 'object' } } },
      },
    },
    {
      if: kindIs('booking.status'),
      then: {
        required: ['bookingId'],
        properties: { bookingId: pathIdSchema(1) },
        if: { required: ['statusReference'] },
        then: { properties: { statusReference: { type: 'object' } } },
        else: { required: ['statusId'], properties: { statusId: uuidSchema() } },
      },
    },
    {
      if: kindIs('booking.tasks'),
      then: {
        required: ['bookingId', 'addTasks', 'deleteTasks', 'time'],
        properties: {
          bookingId: pathIdSchema(1),
          addTasks: { type: 'array' },
          deleteTasks: { type: 'array', items: { type: 'string' } },
          time: { type: 'string' },
        },
      },
    },
    {
      if: kindIs('vehicle.update'),
      then: {
        required: ['vehicleId', 'vehicle'],
        properties: { vehicleId: uuidSchema(), vehicle: { type: 'object' } },
      },
    },
  ],
};

let compiledOperation: ValidateFunction | undefined;

/**
 * Whether the compiled schema accepts an operation: ~100 times cheaper than class-validator, and
 * never accepting what the DTO refuses (canonical-operation.spec.ts compares the two). It says no
 * without saying why: the DTO then words the problems.
 */
export function compiledAccepts(operation: unknown): boolean {
  compiledOperation ??= newDtoAjv().compile(canonicalOperationSchema);
  return compiledOperation(operation);
}

/**
 * Why the compiled schema refuses what the DTO let through or could not read: a field named like
 * one of Object.prototype's (`valueOf`, `toString`: class-validator finds them on every object) or a
 * `constructor` holding an object (class-transformer throws on it). The schema is the stricter of the
 * two; its deepest error, worded with the message's paths.
 */
function compiledProblems(plain: unknown): string[] {
  const keys = typeof plain === 'object' && plain !== null && !Array.isArray(plain) ? Object.keys(plain) : [];
  const problems = keys.filter((key) => key !== 'operations').map((key) => `${key}: unknown field`);
  const list = (plain as { operations?: unknown } | null)?.operations;
  for (let i = 0; Array.isArray(list) && i < list.length && problems.length < MAX_LISTED_PROBLEMS; i++) {
    if (!compiledAccepts(list[i])) {
      problems.push(schemaProblem(compiledOperation!.errors, `operations[${i}]`));
    }
  }
  return problems;
}

/**
 * The DTO's words for what the compiled schema refused, and the schema's own for what the DTO did not
 * word (an operation or a body field it let through, or JSON it could not read).
 */
function problemsOf(plain: unknown): string[] {
  const result = validatePlain(CanonicalMessageDto, plain);
  const worded = result.ok ? [] : result.problems;
  // What a problem is about: an operation, or a field of the body.
  const subject = (problem: string) => /^operations\[\d+\]|^[^:\s.[]+/.exec(problem)?.[0] ?? problem;
  const covered = new Set(worded.map(subject));
  const more = compiledProblems(plain).filter((problem) => !covered.has(subject(problem)));
  const all = [...worded, ...more];
  return all.length > 0 ? all : ['body: not a canonical message'];
}

/** Whether the compiled schema accepts a whole body: `{operations: [...]}` and nothing else. */
function compiledAcceptsBody(plain: unknown): boolean {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return false;
  }
  const keys = Object.keys(plain);
  const list = (plain as { operations?: unknown }).operations;
  return (
    keys.length === 1 &&
    Array.isArray(list) &&
    list.length >= 1 &&
    list.length <= MAX_OPERATIONS_PER_MESSAGE &&
    list.every(compiledAccepts)
  );
}

/** Validates a canonical message; every problem names its path (`operations[3].document.loads[0].quantity`). */
export function checkCanonicalMessage(plain: unknown): CanonicalMessageCheck {
  const notObjects = notObjectsOf(plain);
  if (notObjects) {
    return notObjects;
  }
  const list = (plain as { operations?: unknown } | null)?.operations;
  const oversized =
    Array.isArray(list) && list.length <= MAX_OPERATIONS_PER_MESSAGE ? oversizedOperation(list) : undefined;
  if (oversized) {
    return { ok: false, problems: [oversized] };
  }
  if (!compiledAcceptsBody(plain)) {
    return { ok: false, problems: listed(problemsOf(plain)) };
  }
  return checkValidated(plain, unstorableText(plain));
}

/**
 * Problems an answer lists by name; the rest are counted. A body of many operations with many
 * unknown fields each made a 400 of a million problems (~45 MB, seconds of CPU).
 */
export const MAX_LISTED_PROBLEMS = 100;

function listed(problems: string[]): string[] {
  return problems.length <= MAX_LISTED_PROBLEMS
    ? problems
    : [...problems.slice(0, MAX_LISTED_PROBLEMS), `…and ${problems.length - MAX_LISTED_PROBLEMS} more problems`];
}

/** The first of `operations` holding more than MAX_OPERATION_VALUES values, named (`from`: the first one's index). */
function oversizedOperation(operations: readonly unknown[], from = 0): string | undefined {
  for (let i = 0; i < operations.length; i++) {
    // Counted down an explicit stack, stopping past the limit: the cost is bounded whatever the operation.
    const stack: unknown[] = [operations[i]];
    let values = 0;
    while (stack.length > 0 && values <= MAX_OPERATION_VALUES) {
      const value = stack.pop();
      values++;
      if (value !== null && typeof value === 'object') {
        for (const member of Array.isArray(value) ? value : Object.values(value)) {
          stack.push(member);
        }
      }
    }
    if (values > MAX_OPERATION_VALUES) {
      return `operations[${from + i}] holds more than ${MAX_OPERATION_VALUES} JSON values: split it`;
    }
  }
  return undefined;
}

/** class-validator lets an array through where a nested object is expected (`[[]]`): refuse it by name. */
function notObjectsOf(plain: unknown): CanonicalMessageCheck | undefined {
  const list = (plain as { operations?: unknown } | null)?.operations;
  const notObjects = Array.isArray(list)
    ? list.flatMap((op, i) =>
        typeof op === 'object' && op !== null && !Array.isArray(op) ? [] : [`operations[${i}] must be an object`],
      )
    : [];
  return notObjects.length ? { ok: false, problems: listed(notObjects) } : undefined;
}

/** What the DTO cannot say, of a message it found valid (`unstorable`: unstorableText of the body). */
function checkValidated(plain: unknown, unstorable: string | null): CanonicalMessageCheck {
  // Postgres text and jsonb hold neither U+0000 nor an unpaired surrogate: refuse them here, where the sender can be told.
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

/** Operations checked between two turns of the event loop (class-validator: ~0.2 ms an operation; compiled: ~0.01). */
export const CHECK_SLICE = 100;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Whether the JSON text of a body may hold a string Postgres cannot store: a NUL or an unpaired
 * surrogate reaches a parsed string only through a `\u` escape of one (or the character itself),
 * so a text with neither needs no walk over its strings (~60 ms of a 25,000-document message's 202).
 * A surrogate pair, escaped or not, is let to the walk, which tells it from an unpaired one.
 */
export const mayHoldUnstorableText = (json: string): boolean =>
  json.includes('\u0000') || /\\u(?:0000|[dD][89a-fA-F])|[\uD800-\uDFFF]/.test(json);

/**
 * checkCanonicalMessage, CHECK_SLICE operations at a time with a turn of the event loop between
 * slices: checking 25,000 documents (and their text) holds every other request of the process for as
 * long. The same problems with the same paths (a slice's own order). A slice the compiled schema
 * accepts is not given to class-validator, which words the problems of the others.
 */
export async function checkCanonicalMessageInTurns(
  plain: unknown,
  turn: () => Promise<void> = nextTurn,
  /** The JSON text `plain` was parsed from, when the caller has it (mayHoldUnstorableText). */
  json?: string,
): Promise<CanonicalMessageCheck> {
  const list = (plain as { operations?: unknown } | null)?.operations;
  if (!Array.isArray(list) || list.length <= CHECK_SLICE || notObjectsOf(plain)) {
    return checkCanonicalMessage(plain);
  }
  if (list.length > MAX_OPERATIONS_PER_MESSAGE) {
    return { ok: false, problems: [`operations must contain no more than ${MAX_OPERATIONS_PER_MESSAGE} elements`] };
  }
  const onlyOperations = Object.keys(plain as object).length === 1;
  const textToCheck = json === undefined || mayHoldUnstorableText(json);
  const problems = new Set<string>();
  // The first operation whose text cannot be stored, as unstorableText of the body would name it.
  let unstorable: string | null = null;
  for (let from = 0; from < list.length; from += CHECK_SLICE) {
    if (problems.size > MAX_LISTED_PROBLEMS) {
      // Enough to tell the sender what is wrong: the rest is not checked (nor listed).
      const listedProblems = [...problems].slice(0, MAX_LISTED_PROBLEMS);
      return {
        ok: false,
        problems: [...listedProblems, `…and more problems, not checked past operations[${from - 1}]`],
      };
    }
    if (from > 0) {
      await turn();
    }
    const operations = list.slice(from, from + CHECK_SLICE);
    const oversized = oversizedOperation(operations, from);
    if (oversized) {
      return { ok: false, problems: [oversized] };
    }
    if (!operations.every(compiledAccepts) || (from === 0 && !onlyOperations)) {
      // The body's other fields (refused by name) are checked with the first slice only: copied into
      // every slice, a body of many fields and many operations would cost their product.
      const slice = from === 0 ? { ...(plain as object), operations } : { operations };
      if (!compiledAcceptsBody(slice)) {
        // A slice's operations[k] is the message's operations[from + k].
        for (const problem of problemsOf(slice)) {
          problems.add(problem.replace(/^operations\[(\d+)\]/, (_, k: string) => `operations[${from + Number(k)}]`));
        }
      }
    }
    for (let i = 0; textToCheck && onlyOperations && problems.size === 0 && !unstorable && i < operations.length; i++) {
      unstorable = unstorableText(operations[i], `operations[${from + i}]`);
    }
  }
  if (problems.size > 0) {
    return { ok: false, problems: listed([...problems]) };
  }
  // Any field besides `operations` (one class-validator let through) is looked at with the rest, in the body's order.
  return checkValidated(plain, !textToCheck ? null : onlyOperations ? unstorable : unstorableText(plain));
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
