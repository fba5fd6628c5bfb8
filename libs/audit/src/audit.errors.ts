import { DomainError } from './domain-error';

/** A message or operation id that is not in the audit store. */
export class AuditRecordNotFoundError extends DomainError {
  readonly kind = 'not-found';
  constructor(
    readonly record: 'message' | 'operation',
    readonly id: string,
  ) {
    super(`${record} ${id} not found`);
    this.name = 'AuditRecordNotFoundError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids come from URLs and CLI arguments: anything that is not a uuid cannot name a row. */
export const isUuid = (value: string): boolean => UUID.test(value);
