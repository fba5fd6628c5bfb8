/**
 * Injection tokens of the use cases' options: each use case is an @Injectable() class whose plain
 * dependencies Nest resolves by class; what comes from configuration comes through one of these,
 * built from AppConfig in PipelineModule (tests build the classes directly with their options).
 */
export const TRANSLATE_OPTIONS = Symbol('TranslateOptions');
export const ACKNOWLEDGMENT_OUTBOX = Symbol('AcknowledgmentOutbox');
export const DELIVERY_OPTIONS = Symbol('DeliveryOptions');
export const BATCH_OPTIONS = Symbol('BatchOptions');
export const SWEEP_OPTIONS = Symbol('SweepOptions');
export const RETENTION_OPTIONS = Symbol('RetentionOptions');
export const UPLOAD_OPTIONS = Symbol('UploadOptions');
