import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The local Postgres the suites use (trust auth); each suite gets its own database in it. */
export const TEST_POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** Connection URL of the new, empty database. */
  url: string;
  /** Drops the database, closing whatever connections are still open to it. */
  drop(): Promise<void>;
}

async function admin<T>(adminUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates `dockbridge_test_<random>` on the local Postgres; call `drop()` in afterAll. */
export async function createTestDatabase(adminUrl = TEST_POSTGRES_ADMIN_URL): Promise<TestDatabase> {
  const name = `dockbridge_test_${randomBytes(6).toString('hex')}`;
  await admin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      admin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
