import { DomainError } from '@dockbridge/audit';

/** A partner id that is not in the store. */
export class PartnerNotFoundError extends DomainError {
  readonly kind = 'not-found';
  constructor(readonly partnerId: string) {
    super(`partner ${partnerId} not found`);
    this.name = 'PartnerNotFoundError';
  }
}

/** An API key id that does not belong to the partner named. */
export class ApiKeyNotFoundError extends DomainError {
  readonly kind = 'not-found';
  constructor(
    readonly partnerId: string,
    readonly keyId: string,
  ) {
    super(`API key ${keyId} of partner ${partnerId} not found`);
    this.name = 'ApiKeyNotFoundError';
  }
}

/** A key that cannot be registered: malformed, revoked before, or already another partner's. Never carries the key. */
export class ApiKeyRejectedError extends DomainError {
  readonly kind = 'invalid';
  constructor(
    readonly partnerId: string,
    reason: string,
  ) {
    super(`API key for partner ${partnerId} refused: ${reason}`);
    this.name = 'ApiKeyRejectedError';
  }
}

/** A change through the admin API to a partner its file owns (source 'file'): edit the file, or adopt the partner first. */
export class PartnerOwnedByFileError extends DomainError {
  readonly kind = 'conflict';
  override summary = 'Partner owned by its file';
  constructor(
    readonly partnerId: string,
    readonly file: string | null,
  ) {
    super(
      `partner ${partnerId} is owned by its file ${file ?? '(a partner file)'} (source: file): change the file, ` +
        `or take the partner over with POST /v1/admin/partners/${partnerId}/adopt (the file is then ignored)`,
    );
    this.name = 'PartnerOwnedByFileError';
    this.extra = { file };
  }
}
