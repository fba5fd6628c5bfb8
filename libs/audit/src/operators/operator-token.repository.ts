import { DataSource } from 'typeorm';
import { isUuid } from '../audit.errors';
import { DomainError } from '../domain-error';
import { newId } from '../new-id';
import { OperatorIdentity, OperatorRole } from './operator-role';
import { generateOperatorToken, hashOperatorToken, isOperatorTokenFormat, operatorTokenHint } from './operator-token';

/** A named token as operators see it (never the token or its hash). */
export interface OperatorToken {
  id: string;
  name: string;
  role: OperatorRole;
  /** `dbo_` and the first characters, to tell tokens apart. */
  hint: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export interface NewOperatorToken {
  name: string;
  role: OperatorRole;
  createdBy: string;
  expiresAt?: Date | null;
}

interface OperatorTokenRow {
  id: string;
  name: string;
  role: OperatorRole;
  token_prefix: string;
  created_by: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const COLUMNS = 'id, name, role, token_prefix, created_by, created_at, expires_at, revoked_at, last_used_at';

const toToken = (row: OperatorTokenRow): OperatorToken => ({
  id: row.id,
  name: row.name,
  role: row.role,
  hint: row.token_prefix,
  createdBy: row.created_by,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  lastUsedAt: row.last_used_at,
});

/** The name is already held by an active token: one name, one person, in the activity log. */
export class OperatorNameTakenError extends DomainError {
  readonly kind = 'conflict';
  constructor(readonly operatorName: string) {
    super(`an active token named ${operatorName} exists: revoke it first, or choose another name`);
    this.name = 'OperatorNameTakenError';
  }
}

/** How often a token's last use is written: often enough to tell an unused token, rarely enough not to write per call. */
const LAST_USED_RESOLUTION = '1 minute';

/** Named operator tokens (`operator_token`), stored as their SHA-256. */
export class OperatorTokenRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Issues a token; the clear token is returned here and never again. */
  async create(input: NewOperatorToken): Promise<{ token: string; operator: OperatorToken }> {
    const token = generateOperatorToken();
    try {
      const [row]: OperatorTokenRow[] = await this.dataSource.query(
        `INSERT INTO operator_token (id, name, role, token_hash, token_prefix, created_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
        [
          newId(),
          input.name,
          input.role,
          hashOperatorToken(token),
          operatorTokenHint(token),
          input.createdBy,
          input.expiresAt ?? null,
        ],
      );
      return { token, operator: toToken(row) };
    } catch (error) {
      if ((error as { constraint?: string }).constraint === 'operator_token_active_name_key') {
        throw new OperatorNameTakenError(input.name);
      }
      throw error;
    }
  }

  async list(): Promise<OperatorToken[]> {
    const rows: OperatorTokenRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM operator_token ORDER BY revoked_at IS NOT NULL, name, id`,
    );
    return rows.map(toToken);
  }

  /** Revokes the token now (kept, for the log); null when there is no such token. Revoking twice keeps the first time. */
  async revoke(id: string): Promise<OperatorToken | null> {
    if (!isUuid(id)) {
      return null;
    }
    // As a SELECT over the UPDATE: TypeORM answers a bare UPDATE with [rows, count], a SELECT with its rows.
    const [row]: OperatorTokenRow[] = await this.dataSource.query(
      `WITH revoked AS (
         UPDATE operator_token SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}
       ) SELECT * FROM revoked`,
      [id],
    );
    return row ? toToken(row) : null;
  }

  /**
   * Who holds `token`, if it is an active (not revoked, not expired) operator token; marks it used.
   * Looked up on every call, so a revocation holds from the next request.
   */
  async identify(token: string): Promise<OperatorIdentity | null> {
    if (!isOperatorTokenFormat(token)) {
      return null;
    }
    const [row]: { id: string; name: string; role: OperatorRole; stale: boolean }[] = await this.dataSource.query(
      `SELECT id, name, role, last_used_at IS NULL OR last_used_at < now() - interval '${LAST_USED_RESOLUTION}' AS stale
       FROM operator_token
       WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [hashOperatorToken(token)],
    );
    if (!row) {
      return null;
    }
    if (row.stale) {
      await this.dataSource.query(`UPDATE operator_token SET last_used_at = now() WHERE id = $1`, [row.id]);
    }
    return { name: row.name, role: row.role, tokenId: row.id };
  }
}
