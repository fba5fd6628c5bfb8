import { createHash } from 'node:crypto';
import jsonata from 'jsonata';
import { DataSource } from 'typeorm';
import { PartnerOwnedByFileError } from '../partners.errors';

export interface PartnerMapping {
  partnerId: string;
  version: number;
  expression: string;
  createdAt: Date;
}

type Row = { partner_id: string; version: number; expression: string; created_at: Date };
const toMapping = (r: Row): PartnerMapping => ({
  partnerId: r.partner_id,
  version: Number(r.version),
  expression: r.expression,
  createdAt: r.created_at,
});

/** Versioned JSONata mappings of a partner's webhook payloads: each message records the version it was mapped with. */
export class PartnerMappingRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores `expression` as the next version, unless it equals the current one; returns the current
   * mapping. With `owner: 'api'` (the admin API) a partner its file owns is refused with
   * PartnerOwnedByFileError: its mapping is the file's.
   */
  async publish(partnerId: string, expression: string, options: { owner?: 'api' } = {}): Promise<PartnerMapping> {
    const sha256 = createHash('sha256').update(expression).digest('hex');
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mapping:${partnerId}`]);
      if (options.owner === 'api') {
        const [partner]: { source: string; file: string | null }[] = await manager.query(
          `SELECT source, file FROM partner WHERE id = $1 FOR SHARE`,
          [partnerId],
        );
        if (partner?.source === 'file') {
          throw new PartnerOwnedByFileError(partnerId, partner.file);
        }
      }
      const [current]: (Row & { sha256: string })[] = await manager.query(
        `SELECT * FROM partner_mapping WHERE partner_id = $1 ORDER BY version DESC LIMIT 1`,
        [partnerId],
      );
      if (current?.sha256 === sha256) {
        return toMapping(current);
      }
      const rows: Row[] = await manager.query(
        `INSERT INTO partner_mapping (partner_id, version, expression, sha256) VALUES ($1, $2, $3, $4) RETURNING *`,
        [partnerId, (current ? Number(current.version) : 0) + 1, expression, sha256],
      );
      return toMapping(rows[0]);
    });
  }

  /** Whether `expression` is one of the partner's versions, current or not. */
  async hasVersion(partnerId: string, expression: string): Promise<boolean> {
    const sha256 = createHash('sha256').update(expression).digest('hex');
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM partner_mapping WHERE partner_id = $1 AND sha256 = $2 LIMIT 1`,
      [partnerId, sha256],
    );
    return rows.length > 0;
  }

  async current(partnerId: string): Promise<PartnerMapping | null> {
    const [row]: Row[] = await this.dataSource.query(
      `SELECT * FROM partner_mapping WHERE partner_id = $1 ORDER BY version DESC LIMIT 1`,
      [partnerId],
    );
    return row ? toMapping(row) : null;
  }

  async get(partnerId: string, version: number): Promise<PartnerMapping | null> {
    const [row]: Row[] = await this.dataSource.query(
      `SELECT * FROM partner_mapping WHERE partner_id = $1 AND version = $2`,
      [partnerId, version],
    );
    return row ? toMapping(row) : null;
  }

  async list(partnerId: string): Promise<PartnerMapping[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT * FROM partner_mapping WHERE partner_id = $1 ORDER BY version`,
      [partnerId],
    );
    return rows.map(toMapping);
  }
}

/** Why a JSONata expression does not compile (message and position), or undefined when it does. */
export function mappingCompileError(expression: string): string | undefined {
  try {
    jsonata(expression);
    return undefined;
  } catch (error) {
    const e = error as { message?: string; position?: number };
    return `${e.message ?? String(error)}${e.position !== undefined ? ` at position ${e.position}` : ''}`;
  }
}
