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

/** `node migrate.js --url postgres://...` or `node migrate.js --data-dir ./data/pglite`. */
function parseArgs(argv: string[]): Omit<AuditDatabaseOptions, 'migrationsRun'> {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const url = value('--url');
  const dataDir = value('--data-dir');
  if (!url && !dataDir) throw new Error('usage: migrate (--url postgres://user@host/db | --data-dir <pglite dir>)');
  return { url, dataDir: dataDir ?? '' };
}

if (require.main === module) {
  Promise.resolve()
    .then(() => migrate(parseArgs(process.argv.slice(2))))
    .then((names) => {
      console.log(names.length ? `applied: ${names.join(', ')}` : 'audit store is up to date');
    })
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    });
}
