/** Where a message came in. */
export const MESSAGE_CHANNELS = ['api', 'sftp', 'http-edi', 'webhook', 'replay', 'export'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

/**
 * The lifecycle of a message; `rejected` and `duplicate` are decided by translation, the rest by
 * delivery (`superseded`: every operation was overtaken by newer writes to the same targets).
 */
export const MESSAGE_STATUSES = [
  'received',
  'translating',
  'delivering',
  'delivered',
  'partially_failed',
  'failed',
  'rejected',
  'duplicate',
  'superseded',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** What one operation does on the platform. */
export const OPERATION_KINDS = [
  'document.upsert',
  'document.delete',
  'booking.create',
  'booking.status',
  'booking.tasks',
  'vehicle.update',
] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

/** `superseded`: not sent, because a newer write to the same target was delivered first (`supersededBy`). */
export const OPERATION_STATUSES = ['pending', 'delivering', 'delivered', 'failed', 'skipped', 'superseded'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

/** Operations whose write replaces the target's whole state: an older one after a newer is moot. A task change composes, so it is not among them. */
export const SUPERSEDABLE_KINDS: readonly OperationKind[] = [
  'document.upsert',
  'document.delete',
  'vehicle.update',
  'booking.status',
];

/** The platform client's error taxonomy, as stored on a failed operation. */
export const DELIVERY_ERROR_CLASSES = ['retryable', 'permanent', 'auth'] as const;
export type DeliveryErrorClass = (typeof DELIVERY_ERROR_CLASSES)[number];

/**
 * `in-flight`: recorded before the platform call, finished with its outcome after it; `interrupted`:
 * the process died during the call, so the platform may or may not have applied it.
 */
export const ATTEMPT_OUTCOMES = ['success', ...DELIVERY_ERROR_CLASSES, 'in-flight', 'interrupted'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** Who moved a message: a process role, or the operator who pressed the button. */
export type Actor = 'gateway' | 'worker' | 'sweeper' | `operator:${string}`;

/** Longest error excerpt or request summary stored on an attempt or operation. */
export const EXCERPT_MAX_CHARS = 2000;

/** A jsonb object. Values are `any` because TypeORM's insert types cannot carry `unknown`; narrow when reading. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type JsonObject = Record<string, any>;
