import { mkdirSync } from 'node:fs';
import { DataSource, DataSourceOptions } from 'typeorm';
import { PGliteDriver } from 'typeorm-pglite';
import { AUDIT_ENTITIES } from './entities';
import { AUDIT_MIGRATIONS } from './migrations';
import { SerialPGlitePool } from './pglite.pool';

/** Where the audit store lives. The lead maps AppConfig onto this. */
export interface AuditDatabaseOptions {
  /** `postgres://...` for a Postgres server; without it, embedded PGlite in `dataDir`. */
  url?: string;
  /** PGlite data directory (created when missing), or `memory://` for a throwaway store. Unused with `url`. */
  dataDir: string;
  /** Apply pending migrations when the data source is initialised. */
  migrationsRun: boolean;
  logging?: boolean;
  /** Entities and migrations of the other stores that share this database (partners). */
  extraEntities?: Function[];
  extraMigrations?: Function[];
  /** Postgres connections per process (each ingest commits on its own: more connections, more group commit). */
  poolSize?: number;
}

/**
 * TypeORM options for the audit store: Postgres through `pg` when `url` is given, otherwise
 * PGlite through typeorm-pglite. Schema changes come only from AUDIT_MIGRATIONS, never
 * `synchronize`.
 *
 * typeorm-pglite keeps ONE PGlite instance per process: open at most one PGlite data source at
 * a time (destroy it before opening another dataDir).
 */
export function auditDataSourceOptions(options: AuditDatabaseOptions): DataSourceOptions {
  const common = {
    type: 'postgres' as const,
    entities: [...AUDIT_ENTITIES, ...(options.extraEntities ?? [])],
    migrations: [...AUDIT_MIGRATIONS, ...(options.extraMigrations ?? [])],
    migrationsRun: options.migrationsRun,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    logging: options.logging ?? false,
  };
  if (options.url) return { ...common, url: options.url, applicationName: 'dockbridge', extra: { max: options.poolSize ?? 20 } };

  if (!options.dataDir.includes('://')) mkdirSync(options.dataDir, { recursive: true });
  new PGliteDriver({ dataDir: options.dataDir }); // hands the options to typeorm-pglite's process-wide instance
  return { ...common, driver: { Pool: SerialPGlitePool } };
}

/** A data source for the audit store; call `initialize()` (which migrates when `migrationsRun`). */
export function createAuditDataSource(options: AuditDatabaseOptions): DataSource {
  return new DataSource(auditDataSourceOptions(options));
}

/** Applies pending audit migrations, each in its own transaction; returns the names applied (none when up to date). */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  return applied.map((migration) => migration.name);
}
