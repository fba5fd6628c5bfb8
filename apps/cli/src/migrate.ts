import 'reflect-metadata';
import { migrate } from '@dockbridge/audit';
import { ConfigError, loadConfig } from '@dockbridge/config';
import { PARTNER_ENTITIES, PARTNER_MIGRATIONS } from '@dockbridge/partners';

/** `npm run migrate`: brings the database named by the configuration (DATABASE_URL, else PGlite in ./data) up to date. */
async function main(): Promise<void> {
  const config = loadConfig();
  const applied = await migrate({
    url: config.database.url,
    dataDir: config.database.dataDir,
    extraEntities: PARTNER_ENTITIES,
    extraMigrations: PARTNER_MIGRATIONS,
  });
  const where = config.database.url ? 'Postgres' : `PGlite in ${config.database.dataDir}`;
  console.log(applied.length ? `${where}: applied ${applied.join(', ')}` : `${where}: up to date`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error instanceof Error ? error.message : error);
  process.exit(1);
});
