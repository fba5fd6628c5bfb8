import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { PARTNER_ID_PATTERN } from '../entities/partner.entity';
import { PartnerRepository } from '../partner.repository';
import { PartnerProfile } from '../partner.types';
import { PartnerNotFoundError } from '../partners.errors';
import { PartnerSftpCredentialEntity, SFTP_USERNAME_PATTERN } from './sftp-credential.entity';
import { SftpCredentialNotFoundError, SftpCredentialRejectedError } from './sftp-credential.errors';
import {
  burnSftpPasswordCheck,
  hashSftpPassword,
  SFTP_PASSWORD_MAX_LENGTH,
  SFTP_PASSWORD_MIN_LENGTH,
  verifySftpPassword,
} from './sftp-password';
import { parsePublicKeyLine, samePublicKey, verifyPublicKeySignature } from './ssh-public-key';

export interface SftpCredentialRepositoryOptions {
  /** The clock (tests); `new Date()` by default. */
  now?: () => Date;
}

/** An SFTP account as operators see it: never the password or its hash. */
export interface SftpCredentialSummary {
  id: string;
  partnerId: string;
  username: string;
  hasPassword: boolean;
  /** Type and `SHA256:` fingerprint of the public key, when one is set. */
  publicKeyType: string | null;
  publicKeyFingerprint: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** What the client offered at public-key login (ssh2's `ctx.key`). */
export interface OfferedPublicKey {
  algo: string;
  /** The key in SSH wire format. */
  data: Buffer;
}

/** The client's proof of holding the private key (ssh2's `ctx.blob`, `ctx.signature`, `ctx.hashAlgo`). */
export interface PublicKeyProof {
  blob: Buffer;
  signature: Buffer;
  hashAlgo?: string;
}

const UNIQUE_VIOLATION = '23505';

function toSummary(row: PartnerSftpCredentialEntity): SftpCredentialSummary {
  const key = row.publicKey ? parsePublicKeyLine(row.publicKey) : null;
  return {
    id: row.id,
    partnerId: row.partnerId,
    username: row.username,
    hasPassword: row.passwordHash !== null,
    publicKeyType: key && !(key instanceof Error) ? key.type : null,
    publicKeyFingerprint: key && !(key instanceof Error) ? key.fingerprint : null,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

/**
 * SFTP accounts of partners (`partner_sftp_credential`). One row per user name (unique across
 * partners) with a password and/or one public key. Passwords are stored as scrypt hashes (random
 * salt), checked in constant time; hashes never leave this class. Logins of a revoked account or a
 * disabled partner find nothing.
 */
export class SftpCredentialRepository {
  private readonly now: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    private readonly partners: PartnerRepository,
    options: SftpCredentialRepositoryOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** Sets (or replaces) the account's password, creating the account if needed. */
  async setPassword(partnerId: string, username: string, password: string): Promise<SftpCredentialSummary> {
    if (typeof password !== 'string' || password.length < SFTP_PASSWORD_MIN_LENGTH) {
      throw new SftpCredentialRejectedError(
        partnerId,
        username,
        `a password needs at least ${SFTP_PASSWORD_MIN_LENGTH} characters`,
      );
    }
    if (password.length > SFTP_PASSWORD_MAX_LENGTH) {
      throw new SftpCredentialRejectedError(
        partnerId,
        username,
        `a password has at most ${SFTP_PASSWORD_MAX_LENGTH} characters`,
      );
    }
    const passwordHash = await hashSftpPassword(password);
    return this.upsertAccount(partnerId, username, { passwordHash });
  }

  /** Sets the account's public key (one OpenSSH line; replaces a previous key), creating the account if needed. */
  async addPublicKey(
    partnerId: string,
    username: string,
    openSshPublicKeyLine: string,
  ): Promise<SftpCredentialSummary> {
    const key = parsePublicKeyLine(openSshPublicKeyLine);
    if (key instanceof Error) {
      throw new SftpCredentialRejectedError(partnerId, username, key.message);
    }
    return this.upsertAccount(partnerId, username, { publicKey: key.line });
  }

  /** Revokes the account for good (its user name is not given out again). Revoking twice is harmless. */
  async revoke(partnerId: string, username: string): Promise<SftpCredentialSummary> {
    const manager = this.dataSource.manager;
    const row = SFTP_USERNAME_PATTERN.test(username)
      ? await manager.findOneBy(PartnerSftpCredentialEntity, { partnerId, username })
      : null;
    if (!row) {
      throw new SftpCredentialNotFoundError(partnerId, username);
    }
    if (!row.revokedAt) {
      row.revokedAt = this.now();
      await manager.update(PartnerSftpCredentialEntity, { id: row.id }, { revokedAt: row.revokedAt });
    }
    return toSummary(row);
  }

  /** The partner's accounts, revoked ones included; no password, no hash. */
  async list(partnerId: string): Promise<SftpCredentialSummary[]> {
    const rows = await this.dataSource.manager.find(PartnerSftpCredentialEntity, {
      where: { partnerId },
      order: { username: 'ASC' },
    });
    return rows.map(toSummary);
  }

  /** The enabled partner whose live account has this user name and password, else null (no reason given). */
  async verifyPassword(username: string, password: string): Promise<PartnerProfile | null> {
    const row = await this.liveAccount(username);
    if (!row?.passwordHash || typeof password !== 'string') {
      await burnSftpPasswordCheck(typeof password === 'string' ? password : '');
      return null;
    }
    if (!(await verifySftpPassword(password, row.passwordHash))) {
      return null;
    }
    return this.enabledPartner(row.partnerId);
  }

  /**
   * The "would you accept this key?" probe (public-key login without a signature): the partner when
   * the account's key is the one offered. It proves nothing: answer it with ssh2's `ctx.accept()`,
   * which sends PK_OK and makes the client sign; only `verifyPublicKey` authenticates.
   */
  async acceptsPublicKey(username: string, key: OfferedPublicKey): Promise<PartnerProfile | null> {
    const row = await this.liveAccount(username);
    if (!row?.publicKey || !Buffer.isBuffer(key?.data) || !samePublicKey(row.publicKey, key.data)) {
      return null;
    }
    return this.enabledPartner(row.partnerId);
  }

  /** Public-key login: the partner when the offered key is the account's and the signature verifies with it. */
  async verifyPublicKey(
    username: string,
    key: OfferedPublicKey,
    proof: PublicKeyProof,
  ): Promise<PartnerProfile | null> {
    const row = await this.liveAccount(username);
    if (!row?.publicKey || !Buffer.isBuffer(key?.data) || !samePublicKey(row.publicKey, key.data)) {
      return null;
    }
    if (!Buffer.isBuffer(proof?.blob) || !Buffer.isBuffer(proof?.signature)) {
      return null;
    }
    if (!verifyPublicKeySignature(row.publicKey, proof.blob, proof.signature, proof.hashAlgo)) {
      return null;
    }
    return this.enabledPartner(row.partnerId);
  }

  /** Whether a session logged in as this user may still act: the account is live, the partner's, and the partner enabled. */
  async stillAllowed(username: string, partnerId: string): Promise<boolean> {
    const row = await this.liveAccount(username);
    return row?.partnerId === partnerId && (await this.enabledPartner(partnerId)) !== null;
  }

  private async liveAccount(username: string): Promise<PartnerSftpCredentialEntity | null> {
    if (typeof username !== 'string' || !SFTP_USERNAME_PATTERN.test(username)) {
      return null;
    }
    const row = await this.dataSource.manager.findOneBy(PartnerSftpCredentialEntity, { username });
    return row && !row.revokedAt ? row : null;
  }

  private async enabledPartner(partnerId: string): Promise<PartnerProfile | null> {
    const partner = await this.partners.findById(partnerId);
    return partner?.enabled ? partner : null;
  }

  private async upsertAccount(
    partnerId: string,
    username: string,
    values: { passwordHash?: string; publicKey?: string },
  ): Promise<SftpCredentialSummary> {
    if (typeof username !== 'string' || !SFTP_USERNAME_PATTERN.test(username)) {
      throw new SftpCredentialRejectedError(
        partnerId,
        String(username),
        `a user name matches ${SFTP_USERNAME_PATTERN.source}`,
      );
    }
    try {
      return await this.dataSource.transaction(async (manager) => {
        await this.lockPartner(manager, partnerId);
        const existing = await manager
          .createQueryBuilder(PartnerSftpCredentialEntity, 'c')
          .setLock('pessimistic_write')
          .where('c.username = :username', { username })
          .getOne();
        if (existing && existing.partnerId !== partnerId) {
          throw new SftpCredentialRejectedError(partnerId, username, 'this user name belongs to another partner');
        }
        if (existing?.revokedAt) {
          throw new SftpCredentialRejectedError(
            partnerId,
            username,
            'this account was revoked; choose another user name',
          );
        }
        if (existing) {
          await manager.update(PartnerSftpCredentialEntity, { id: existing.id }, values);
          return toSummary(await manager.findOneByOrFail(PartnerSftpCredentialEntity, { id: existing.id }));
        }
        const id = randomUUID();
        await manager.insert(PartnerSftpCredentialEntity, {
          id,
          partnerId,
          username,
          passwordHash: values.passwordHash ?? null,
          publicKey: values.publicKey ?? null,
          createdAt: this.now(),
          revokedAt: null,
        });
        return toSummary(await manager.findOneByOrFail(PartnerSftpCredentialEntity, { id }));
      });
    } catch (error) {
      const e = error as { code?: string; driverError?: { code?: string } };
      if ((e.driverError?.code ?? e.code) === UNIQUE_VIOLATION) {
        throw new SftpCredentialRejectedError(partnerId, username, 'this user name is taken');
      }
      throw error;
    }
  }

  private async lockPartner(manager: EntityManager, partnerId: string): Promise<void> {
    const rows: unknown[] = PARTNER_ID_PATTERN.test(partnerId)
      ? await manager.query(`SELECT id FROM partner WHERE id = $1 FOR UPDATE`, [partnerId])
      : [];
    if (rows.length === 0) {
      throw new PartnerNotFoundError(partnerId);
    }
  }
}
