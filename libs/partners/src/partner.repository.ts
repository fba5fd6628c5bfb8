import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey, isApiKeyFormat, isSha256Hex, sameHash } from './api-key';
import { PartnerApiKeyEntity, PartnerEntity, PARTNER_ID_PATTERN } from './entities';
import {
  ApiKeyNotFoundError,
  ApiKeyRejectedError,
  PartnerNotFoundError,
  PartnerOwnedByFileError,
} from './partners.errors';
import {
  ApiKeySummary,
  ConfigApiKey,
  IssuedApiKey,
  PartnerProfile,
  PartnerProfileInput,
  PartnerSource,
} from './partner.types';

export interface PartnerRepositoryOptions {
  /** The clock (tests); `new Date()` by default. */
  now?: () => Date;
}

export interface IssueApiKeyOptions {
  label: string;
  expiresAt?: Date | null;
}

/** What `syncConfigKeys` did. `refused` keys were left alone (revoked before, or another partner's). */
export interface ConfigKeySync {
  keys: ApiKeySummary[];
  revoked: ApiKeySummary[];
  refused: { label: string; reason: string }[];
}

/** `last_used_at` is written at most this often per key, not on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toProfile(row: PartnerEntity): PartnerProfile {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    locationOrganisationId: row.locationOrganisationId,
    platformAccount: row.platformAccount,
    settings: row.settings ?? {},
    source: row.source,
    file: row.file ?? null,
    conflict: row.conflictFile ? { file: row.conflictFile, detectedAt: row.conflictAt ?? row.updatedAt } : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Everything about a key but its hash. */
function toSummary(row: PartnerApiKeyEntity): ApiKeySummary {
  return {
    id: row.id,
    partnerId: row.partnerId,
    keyPrefix: row.keyPrefix,
    label: row.label,
    source: row.source,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    lastUsedAt: row.lastUsedAt,
  };
}

function requireLabel(label: string): string {
  const trimmed = typeof label === 'string' ? label.trim() : '';
  if (!trimmed) {
    throw new RangeError('An API key needs a label');
  }
  return trimmed;
}

/** Partner profiles and their API keys. Keys are stored only as SHA-256 hashes; hashes never leave this class. */
export class PartnerRepository {
  private readonly now: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    options: PartnerRepositoryOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Creates or replaces a profile and gives it to `source`, unconditionally (tests, tools). The
   * admin API goes through `upsertFromApi`, the file import through `applyFile`, which respect the
   * owner. `enabled` left out keeps an existing partner's state (true for a new one); every other
   * field is replaced. Returns the stored profile.
   */
  async upsert(profile: PartnerProfileInput, source: PartnerSource): Promise<PartnerProfile> {
    const written = await this.write(profile, { source, file: null, guard: 'none' });
    return written!;
  }

  /**
   * The admin API's create-or-replace: a new partner is the API's; a partner its file owns is
   * refused with PartnerOwnedByFileError (nothing written), until it is adopted.
   */
  async upsertFromApi(profile: PartnerProfileInput): Promise<PartnerProfile> {
    const written = await this.write(profile, { source: 'api', file: null, guard: 'api' });
    if (written) {
      return written;
    }
    const owner = await this.dataSource.manager.findOneBy(PartnerEntity, { id: profile.id });
    throw new PartnerOwnedByFileError(profile.id, owner?.file ?? null);
  }

  /**
   * The file import's write: creates the partner as the file's or replaces a file-owned profile,
   * recording the file. Returns null, writing nothing, when the API owns the partner.
   */
  async applyFile(profile: PartnerProfileInput, file: string): Promise<PartnerProfile | null> {
    return this.write(profile, { source: 'file', file, guard: 'file' });
  }

  /** The hash of what was last applied from the partner's file; null when none was recorded (or API-owned), undefined for no partner. */
  async fileSha256(id: string): Promise<string | null | undefined> {
    if (!PARTNER_ID_PATTERN.test(id)) {
      return undefined;
    }
    const [row]: { file_sha256: string | null }[] = await this.dataSource.query(
      `SELECT file_sha256 FROM partner WHERE id = $1`,
      [id],
    );
    return row ? row.file_sha256 : undefined;
  }

  /** Records what was applied from the partner's file (`sha256`: see loadPartnerFiles) and where the file is; only while the file owns it. */
  async recordFileApplied(id: string, file: string, sha256: string | null): Promise<void> {
    await this.dataSource.query(`UPDATE partner SET file = $2, file_sha256 = $3 WHERE id = $1 AND source = 'file'`, [
      id,
      file,
      sha256,
    ]);
  }

  /** Notes that the import ignored `file` because the API owns the partner (shown as `conflict`). */
  async recordConflict(id: string, file: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE partner SET conflict_file = $2, conflict_at = $3 WHERE id = $1 AND source = 'api' AND conflict_file IS DISTINCT FROM $2`,
      [id, file, this.now()],
    );
  }

  /** Clears the conflicts of every partner not in `stillConflicting` (their file is gone, or they were given back to it). */
  async clearConflicts(stillConflicting: readonly string[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE partner SET conflict_file = NULL, conflict_at = NULL WHERE conflict_file IS NOT NULL AND NOT (id = ANY($1::text[]))`,
      [stillConflicting],
    );
  }

  /**
   * Hands a partner to the admin API (source 'api'): its file is ignored from then on, and reported
   * as a conflict at each start while it exists. Adopting an API-owned partner changes nothing.
   */
  async adopt(id: string): Promise<PartnerProfile> {
    if (!PARTNER_ID_PATTERN.test(id)) {
      throw new PartnerNotFoundError(id);
    }
    await this.dataSource.query(
      `UPDATE partner SET source = 'api', conflict_file = file, conflict_at = CASE WHEN file IS NULL THEN NULL ELSE $2::timestamptz END,
              file = NULL, file_sha256 = NULL, updated_at = $2
        WHERE id = $1 AND source = 'file'`,
      [id, this.now()],
    );
    const row = await this.dataSource.manager.findOneBy(PartnerEntity, { id });
    if (!row) {
      throw new PartnerNotFoundError(id);
    }
    return toProfile(row);
  }

  /**
   * Gives an API-owned partner back to `file` (source 'file'); the caller applies the file next.
   * Returns null when the partner does not exist.
   */
  async release(id: string, file: string): Promise<PartnerProfile | null> {
    if (!PARTNER_ID_PATTERN.test(id)) {
      return null;
    }
    await this.dataSource.query(
      `UPDATE partner SET source = 'file', file = $2, file_sha256 = NULL, conflict_file = NULL, conflict_at = NULL, updated_at = $3 WHERE id = $1`,
      [id, file, this.now()],
    );
    return this.findById(id);
  }

  /**
   * One INSERT … ON CONFLICT: with `guard` 'api' or 'file' an existing partner is replaced only
   * while that source owns it (null otherwise), so an adoption racing an import is never undone.
   */
  private async write(
    profile: PartnerProfileInput,
    options: { source: PartnerSource; file: string | null; guard: 'none' | PartnerSource },
  ): Promise<PartnerProfile | null> {
    if (!PARTNER_ID_PATTERN.test(profile.id)) {
      throw new RangeError(`Invalid partner id: ${profile.id}`);
    }
    const now = this.now();
    const guard = options.guard === 'none' ? '' : `WHERE partner.source = '${options.guard}'`;
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO partner (id, name, enabled, location_organisation_id, platform_account, settings, source, file, created_at, updated_at)
       VALUES ($1, $2, COALESCE($3::boolean, true), $4, $5, $6::jsonb, $7, $8, $9, $9)
       ON CONFLICT (id) DO UPDATE SET
         name = EXCLUDED.name,
         enabled = COALESCE($3::boolean, partner.enabled),
         location_organisation_id = EXCLUDED.location_organisation_id,
         platform_account = EXCLUDED.platform_account,
         settings = EXCLUDED.settings,
         source = EXCLUDED.source,
         file = EXCLUDED.file,
         file_sha256 = CASE WHEN EXCLUDED.source = 'file' THEN partner.file_sha256 END,
         conflict_file = CASE WHEN EXCLUDED.source = 'api' THEN partner.conflict_file END,
         conflict_at = CASE WHEN EXCLUDED.source = 'api' THEN partner.conflict_at END,
         updated_at = EXCLUDED.updated_at
       ${guard}
       RETURNING id`,
      [
        profile.id,
        profile.name,
        profile.enabled ?? null,
        profile.locationOrganisationId,
        profile.platformAccount ?? null,
        JSON.stringify(profile.settings ?? {}),
        options.source,
        options.file,
        now,
      ],
    );
    if (rows.length === 0) {
      return null;
    }
    return toProfile(await this.dataSource.manager.findOneByOrFail(PartnerEntity, { id: profile.id }));
  }

  async findById(id: string): Promise<PartnerProfile | null> {
    if (!PARTNER_ID_PATTERN.test(id)) {
      return null;
    }
    const row = await this.dataSource.manager.findOneBy(PartnerEntity, { id });
    return row ? toProfile(row) : null;
  }

  /** Every partner, by id. */
  async list(): Promise<PartnerProfile[]> {
    const rows = await this.dataSource.manager.find(PartnerEntity, { order: { id: 'ASC' } });
    return rows.map(toProfile);
  }

  /** Turns a partner on or off; a disabled partner's keys authenticate nothing. */
  async setEnabled(id: string, enabled: boolean): Promise<PartnerProfile> {
    if (!PARTNER_ID_PATTERN.test(id)) {
      throw new PartnerNotFoundError(id);
    }
    const result = await this.dataSource.manager.update(PartnerEntity, { id }, { enabled, updatedAt: this.now() });
    if (!result.affected) {
      throw new PartnerNotFoundError(id);
    }
    return toProfile(await this.dataSource.manager.findOneByOrFail(PartnerEntity, { id }));
  }

  /** A new key for the partner. The plaintext is in the result and nowhere else: it cannot be shown again. */
  async issueApiKey(partnerId: string, options: IssueApiKeyOptions): Promise<IssuedApiKey> {
    const label = requireLabel(options.label);
    const now = this.now();
    if (options.expiresAt && options.expiresAt.getTime() <= now.getTime()) {
      throw new RangeError('expiresAt must be in the future');
    }
    return this.dataSource.transaction(async (manager) => {
      await this.lockPartner(manager, partnerId);
      const key = generateApiKey();
      const row = await this.insertKey(manager, {
        partnerId,
        keyPrefix: apiKeyDisplayPrefix(key),
        keyHash: hashApiKey(key),
        label,
        source: 'api',
        expiresAt: options.expiresAt ?? null,
        createdAt: now,
      });
      return { key, record: toSummary(row) };
    });
  }

  /** Revokes a key for good (a revoked key is never accepted or re-imported). Revoking twice is harmless. */
  async revokeApiKey(partnerId: string, keyId: string): Promise<ApiKeySummary> {
    if (!UUID.test(keyId)) {
      throw new ApiKeyNotFoundError(partnerId, keyId);
    }
    const manager = this.dataSource.manager;
    await manager.update(PartnerApiKeyEntity, { id: keyId, partnerId, revokedAt: IsNull() }, { revokedAt: this.now() });
    const row = await manager.findOneBy(PartnerApiKeyEntity, { id: keyId, partnerId });
    if (!row) {
      throw new ApiKeyNotFoundError(partnerId, keyId);
    }
    return toSummary(row);
  }

  /** The partner's keys, newest first, revoked and expired ones included; no key, no hash. */
  async listApiKeys(partnerId: string): Promise<ApiKeySummary[]> {
    const rows = await this.dataSource.manager.find(PartnerApiKeyEntity, {
      where: { partnerId },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
    return rows.map(toSummary);
  }

  /**
   * The enabled partner a key belongs to, or null: unknown, malformed, revoked or expired key, or
   * disabled partner (no reason given: the caller answers 401 either way). Records `last_used_at`,
   * at most once a minute per key.
   */
  async authenticate(plaintextKey: string): Promise<PartnerProfile | null> {
    if (!isApiKeyFormat(plaintextKey)) {
      return null;
    }
    const hash = hashApiKey(plaintextKey);
    const key = await this.dataSource.manager.findOneBy(PartnerApiKeyEntity, { keyHash: hash });
    // The index lookup already matched; the constant-time compare is a second check that does not
    // depend on how the database compares strings.
    if (!key || !sameHash(key.keyHash, hash)) {
      return null;
    }
    const now = this.now();
    if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) {
      return null;
    }
    const partner = await this.dataSource.manager.findOneBy(PartnerEntity, { id: key.partnerId });
    if (!partner?.enabled) {
      return null;
    }

    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      // Conditional, so replicas racing on the same key write once.
      await this.dataSource.query(
        `UPDATE partner_api_key SET last_used_at = $2
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`,
        [key.id, now, new Date(now.getTime() - LAST_USED_RESOLUTION_MS)],
      );
    }
    return toProfile(partner);
  }

  /**
   * Registers a key the partner already holds (configuration as code): `source` 'config'.
   * Idempotent: the same key again updates its label. Throws ApiKeyRejectedError for a malformed
   * key, a key revoked before, or a key of another partner.
   */
  async importKey(
    partnerId: string,
    plaintextKey: string,
    label: string,
    expiresAt: Date | null = null,
  ): Promise<ApiKeySummary> {
    if (!isApiKeyFormat(plaintextKey)) {
      throw new ApiKeyRejectedError(partnerId, 'not a dbk_ key (dbk_ + 43 base64url characters)');
    }
    const result = await this.syncKeys(
      partnerId,
      [{ label, sha256: hashApiKey(plaintextKey), keyPrefix: apiKeyDisplayPrefix(plaintextKey), expiresAt }],
      false,
    );
    if (result.refused.length) {
      throw new ApiKeyRejectedError(partnerId, result.refused[0].reason);
    }
    return result.keys[0];
  }

  /**
   * Makes the partner's config keys exactly `keys`: adds the new ones, updates labels and expiry
   * of known ones, and revokes config keys no longer listed (so removing or rotating a key in the
   * file takes effect on the next import). Keys issued through the API are left alone. With
   * `revokeUnlisted: false` (the file's list is incomplete) nothing is revoked.
   */
  async syncConfigKeys(
    partnerId: string,
    keys: readonly (ConfigApiKey & { expiresAt?: Date | null })[],
    options: { revokeUnlisted?: boolean } = {},
  ): Promise<ConfigKeySync> {
    return this.syncKeys(partnerId, keys, options.revokeUnlisted ?? true);
  }

  private async syncKeys(
    partnerId: string,
    keys: readonly (ConfigApiKey & { expiresAt?: Date | null })[],
    revokeUnlisted: boolean,
  ): Promise<ConfigKeySync> {
    for (const key of keys) {
      requireLabel(key.label);
      if (!isSha256Hex(key.sha256)) {
        throw new ApiKeyRejectedError(partnerId, `${key.label}: not a lowercase hex SHA-256`);
      }
    }
    const now = this.now();
    return this.dataSource.transaction(async (manager) => {
      await this.lockPartner(manager, partnerId);
      const result: ConfigKeySync = { keys: [], revoked: [], refused: [] };
      const wanted = new Set<string>();
      for (const key of keys) {
        const label = requireLabel(key.label);
        const existing = await manager.findOneBy(PartnerApiKeyEntity, { keyHash: key.sha256 });
        if (existing && existing.partnerId !== partnerId) {
          result.refused.push({ label, reason: `${label}: this key is already registered for another partner` });
          continue;
        }
        if (existing?.revokedAt) {
          result.refused.push({ label, reason: `${label}: this key was revoked; give the partner a new one` });
          continue;
        }
        if (existing?.expiresAt && existing.expiresAt <= now) {
          result.refused.push({
            label,
            reason: `${label}: this key expired on ${existing.expiresAt.toISOString()} and is not brought back; give the partner a new one`,
          });
          continue;
        }
        wanted.add(key.sha256);
        if (existing) {
          await manager.update(
            PartnerApiKeyEntity,
            { id: existing.id },
            {
              label,
              keyPrefix: key.keyPrefix ?? existing.keyPrefix,
              expiresAt: key.expiresAt ?? null,
              source: 'config',
            },
          );
          result.keys.push(toSummary(await manager.findOneByOrFail(PartnerApiKeyEntity, { id: existing.id })));
        } else {
          const row = await this.insertKey(manager, {
            partnerId,
            keyPrefix: key.keyPrefix,
            keyHash: key.sha256,
            label,
            source: 'config',
            expiresAt: key.expiresAt ?? null,
            createdAt: now,
          });
          result.keys.push(toSummary(row));
        }
      }
      if (revokeUnlisted) {
        const current = await manager.findBy(PartnerApiKeyEntity, { partnerId, source: 'config', revokedAt: IsNull() });
        for (const row of current.filter((k) => !wanted.has(k.keyHash))) {
          await manager.update(PartnerApiKeyEntity, { id: row.id }, { revokedAt: now });
          result.revoked.push(toSummary({ ...row, revokedAt: now }));
        }
      }
      return result;
    });
  }

  /** Locks the partner row for the transaction (keys of one partner change one writer at a time). */
  private async lockPartner(manager: EntityManager, partnerId: string): Promise<void> {
    const rows: unknown[] = PARTNER_ID_PATTERN.test(partnerId)
      ? await manager.query(`SELECT id FROM partner WHERE id = $1 FOR UPDATE`, [partnerId])
      : [];
    if (rows.length === 0) {
      throw new PartnerNotFoundError(partnerId);
    }
  }

  private async insertKey(
    manager: EntityManager,
    values: Omit<PartnerApiKeyEntity, 'id' | 'revokedAt' | 'lastUsedAt' | 'partner'>,
  ): Promise<PartnerApiKeyEntity> {
    const id = randomUUID();
    await manager.insert(PartnerApiKeyEntity, { id, ...values, revokedAt: null, lastUsedAt: null });
    return manager.findOneByOrFail(PartnerApiKeyEntity, { id });
  }
}
