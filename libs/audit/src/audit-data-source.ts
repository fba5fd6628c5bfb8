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
  extraEntities?: (new (...args: never[]) => unknown)[];
  extraMigrations?: (new (...args: never[]) => unknown)[];
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
  if (options.url) {
    // No JIT: the planner overestimates the set statements of a large message (the gate over a
    // 25,000-document chunk: 1.3 M rows estimated), and compiling them took 1.3-1.5 s of a 2.4 s statement.
    const extra = { max: options.poolSize ?? 20, options: '-c jit=off' };
    return { ...common, url: options.url, applicationName: 'dockbridge', extra };
  }

  if (!options.dataDir.includes('://')) {
    mkdirSync(options.dataDir, { recursive: true });
  }
  new PGliteDriver({ dataDir: options.dataDir }); // hands the options to typeorm-pglite's process-wide instance
  return { ...common, driver: { Pool: SerialPGlitePool } };
}

/** A data source for the audit store; call `initialize()` (which migrates when `migrationsRun`). */
export function createAuditDataSource(options: AuditDatabaseOptions): DataSource {
  return new DataSource(auditDataSourceOptions(options));
}

/** The advisory lock every process takes around migrations (any constant; this one is "dockbrdg" in ASCII). */
const MIGRATION_LOCK = '7237112439071990887';

/**
 * Applies pending audit migrations, each in its own transaction; returns the names applied (none
 * when up to date). On Postgres under an advisory lock: a gateway and a worker starting together on
 * a fresh database take turns instead of both creating the same tables. PGlite is one process.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  if (dataSource.driver.options.type !== 'postgres' || !(dataSource.options as { url?: string }).url) {
    return (await dataSource.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
  }
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    return (await dataSource.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
  } finally {
    await lock.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => undefined);
    await lock.release();
  }
}

/** Opens a data source; its migrations run under the lock (runMigrations) rather than inside `initialize`. */
export async function openAuditDataSource(options: ReturnType<typeof auditDataSourceOptions>): Promise<DataSource> {
  const dataSource = new DataSource({ ...options, migrationsRun: false });
  await dataSource.initialize();
  if (options.migrationsRun) {
    await runMigrations(dataSource);
  }
  return dataSource;
}
