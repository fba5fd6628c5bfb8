import { DataSource } from 'typeorm';
import { InterchangeRepository, MessageRepository } from '@dockbridge/audit';
import { startMediumDatabase } from '../../../../test/support/medium';
import { PurgeExpired } from './purge-expired';

/** The retention's interchange receipts on a real Postgres: what is purged is counted row by row. */
describe('PurgeExpired: interchange receipts (medium: real Postgres)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };

  beforeAll(async () => {
    database = await startMediumDatabase();
  }, 60_000);
  afterAll(() => database?.close());

  it('reports the number of receipts it deleted, not the length of what the driver answered', async () => {
    const { dataSource } = database;
    const receipt = (key: string, age: string) =>
      dataSource.query(
        `INSERT INTO interchange_receipt (partner_id, interchange_key, message_id, received_at)
         VALUES ('kettle', $1, gen_random_uuid(), now() - $2::interval)`,
        [key, age],
      );
    for (let i = 1; i <= 5; i++) {
      await receipt(`ZZ/KETTLE/00000000${i}`, '3651 days');
    }
    await receipt('ZZ/KETTLE/000000009', '1 day');
    const purge = new PurgeExpired(new MessageRepository(dataSource), new InterchangeRepository(dataSource), {
      retentionDays: 0,
      failedRetentionDays: 0,
    });

    expect(await purge.execute()).toEqual({ messages: 0, receipts: 5 });
    expect(await purge.execute()).toEqual({ messages: 0, receipts: 0 });
    const [{ n }]: { n: number }[] = await dataSource.query('SELECT count(*)::int AS n FROM interchange_receipt');
    expect(n).toBe(1);
  });
});
