import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SecretBox } from './secret-box';

export interface WebhookSecretSummary {
  id: string;
  partnerId: string;
  label: string;
  /**
   * `sha256:` and the first 12 hex digits of the secret's SHA-256: tells secrets apart (a partner
   * computes the same with `printf %s "$SECRET" | sha256sum`) without showing any of it.
   */
  fingerprint: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

type Row = {
  id: string;
  partner_id: string;
  label: string;
  secret: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
};

export const secretFingerprint = (secret: string) =>
  `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 12)}`;

/**
 * Webhook signing secrets. Verification needs the secret itself (HMAC), so it is stored encrypted
 * (SecretBox) rather than hashed, and leaves this class only through `activeSecrets`, for the
 * verifier; listings show a fingerprint. Several
 * may be active at once, each with an optional expiry: rotation without downtime.
 */
export class WebhookSecretRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
  ) {}

  private summary(row: Row): WebhookSecretSummary {
    return {
      id: row.id,
      partnerId: row.partner_id,
      label: row.label,
      fingerprint: secretFingerprint(this.box.open(row.secret)),
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
    };
  }

  /** Adds a secret (a Standard Webhooks `whsec_…` one is generated when none is given); returns it once. */
  async add(
    partnerId: string,
    options: { label: string; secret?: string; expiresAt?: Date | null },
  ): Promise<{ secret: string; record: WebhookSecretSummary }> {
    const secret = options.secret ?? `whsec_${randomBytes(32).toString('base64')}`;
    const rows: Row[] = await this.dataSource.query(
      `INSERT INTO partner_webhook_secret (id, partner_id, label, secret, expires_at) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [randomUUID(), partnerId, options.label, this.box.seal(secret), options.expiresAt ?? null],
    );
    return { secret, record: this.summary(rows[0]) };
  }

  /** Secrets that verify now: not revoked, not expired. */
  async activeSecrets(partnerId: string): Promise<string[]> {
    return (await this.activeSecretsWithExpiry(partnerId)).map((s) => s.secret);
  }

  /** Active secrets with their expiry, for a verifier that keeps them a moment (it checks the expiry itself). */
  async activeSecretsWithExpiry(partnerId: string): Promise<{ secret: string; expiresAt: Date | null }[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT secret, expires_at FROM partner_webhook_secret WHERE partner_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) ORDER BY created_at DESC`,
      [partnerId],
    );
    return rows.map((r) => ({ secret: this.box.open(r.secret), expiresAt: r.expires_at }));
  }

  async list(partnerId: string): Promise<WebhookSecretSummary[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT * FROM partner_webhook_secret WHERE partner_id = $1 ORDER BY created_at`,
      [partnerId],
    );
    return rows.map((row) => this.summary(row));
  }

  /**
   * Ends a secret now, or at `at` (the end of a rotation's overlap). An expiry only ever moves
   * earlier: a later date leaves an earlier one (or one already past) as it is.
   */
  async expire(partnerId: string, id: string, at: Date = new Date()): Promise<boolean> {
    const rows: Row[] = await this.dataSource.query(
      `UPDATE partner_webhook_secret SET expires_at = least(coalesce(expires_at, 'infinity'), $3) WHERE partner_id = $1 AND id = $2 RETURNING *`,
      [partnerId, id, at],
    );
    return rows.length > 0;
  }

  /** Whether this secret is stored for the partner, and still verifies (`active`) or no longer does (`ended`: expired or revoked). */
  async statusOf(partnerId: string, secret: string): Promise<'active' | 'ended' | 'unknown'> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT secret, expires_at, revoked_at FROM partner_webhook_secret WHERE partner_id = $1`,
      [partnerId],
    );
    const same = rows.filter((row) => this.box.open(row.secret) === secret);
    if (same.length === 0) {
      return 'unknown';
    }
    const now = Date.now();
    return same.some((row) => !row.revoked_at && (!row.expires_at || new Date(row.expires_at).getTime() > now))
      ? 'active'
      : 'ended';
  }

  /** Encrypts the secrets stored before encryption at rest (they were readable as they were); returns how many. */
  async sealPlaintext(): Promise<number> {
    const rows: Pick<Row, 'id' | 'secret'>[] = await this.dataSource.query(
      `SELECT id, secret FROM partner_webhook_secret WHERE secret NOT LIKE 'enc:v1:%'`,
    );
    for (const row of rows) {
      await this.dataSource.query(`UPDATE partner_webhook_secret SET secret = $2 WHERE id = $1 AND secret = $3`, [
        row.id,
        this.box.seal(row.secret),
        row.secret,
      ]);
    }
    return rows.length;
  }

  async revoke(partnerId: string, id: string): Promise<boolean> {
    const rows: Row[] = await this.dataSource.query(
      `UPDATE partner_webhook_secret SET revoked_at = now() WHERE partner_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING *`,
      [partnerId, id],
    );
    return rows.length > 0;
  }
}
