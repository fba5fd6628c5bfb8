/** A partner id that is not in the store. */
export class PartnerNotFoundError extends Error {
  constructor(readonly partnerId: string) {
    super(`partner ${partnerId} not found`);
    this.name = 'PartnerNotFoundError';
  }
}

/** An API key id that does not belong to the partner named. */
export class ApiKeyNotFoundError extends Error {
  constructor(
    readonly partnerId: string,
    readonly keyId: string,
  ) {
    super(`API key ${keyId} of partner ${partnerId} not found`);
    this.name = 'ApiKeyNotFoundError';
  }
}

/** A key that cannot be registered: malformed, revoked before, or already another partner's. Never carries the key. */
export class ApiKeyRejectedError extends Error {
  constructor(
    readonly partnerId: string,
    reason: string,
  ) {
    super(`API key for partner ${partnerId} refused: ${reason}`);
    this.name = 'ApiKeyRejectedError';
  }
}
