import { AuditDatabaseOptions, createAuditDataSource, runMigrations } from './audit-data-source';

/** Brings the audit store up to date; returns the names of the migrations applied. */
export async function migrate(options: Omit<AuditDatabaseOptions, 'migrationsRun'>): Promise<string[]> {
  const dataSource = createAuditDataSource({ ...options, migrationsRun: false });
  await dataSource.initialize();
  try {
    return await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
