import { DomainError } from '@dockbridge/audit';

/** An SFTP credential that cannot be set: bad user name, taken or revoked, weak password, bad key. Never carries the secret. */
export class SftpCredentialRejectedError extends DomainError {
  readonly kind = 'invalid';
  override summary = 'Invalid SFTP user';
  constructor(
    readonly partnerId: string,
    readonly username: string,
    reason: string,
  ) {
    super(`SFTP credential ${username} for partner ${partnerId} refused: ${reason}`);
    this.name = 'SftpCredentialRejectedError';
  }
}

/** No SFTP account by that name for that partner. */
export class SftpCredentialNotFoundError extends DomainError {
  readonly kind = 'not-found';
  constructor(
    readonly partnerId: string,
    readonly username: string,
  ) {
    super(`SFTP user ${username} of partner ${partnerId} not found`);
    this.name = 'SftpCredentialNotFoundError';
  }
}
