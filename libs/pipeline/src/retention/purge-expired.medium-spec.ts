import { DataSource } from 'typeorm';
import { InterchangeRepository, MessageRepository } from '@dockbridge/audit';
import { PartnerFileRepository, PartnerRepository } from '@dockbridge/partners';
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

    expect(await purge.execute()).toEqual({ messages: 0, receipts: 5, abandonedChunks: 0 });
    expect(await purge.execute()).toEqual({ messages: 0, receipts: 0, abandonedChunks: 0 });
    const [{ n }]: { n: number }[] = await dataSource.query('SELECT count(*)::int AS n FROM interchange_receipt');
    expect(n).toBe(1);
  });

  it('removes the chunks of uploads that stopped a day ago without becoming a file, and nothing else', async () => {
    const { dataSource } = database;
    const files = new PartnerFileRepository(dataSource);
    await new PartnerRepository(dataSource).upsert(
      { id: 'kettle', name: 'Kettle', locationOrganisationId: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01' },
      'api',
    );
    const chunk = (fileId: string, seq: number, age: string) =>
      dataSource.query(
        `INSERT INTO partner_file_chunk (file_id, seq, data, created_at) VALUES ($1, $2, '\\x41', now() - $3::interval)`,
        [fileId, seq, age],
      );
    const [cutOff, stillGoing, stored] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await chunk(cutOff, 0, '2 days');
    await chunk(cutOff, 1, '25 hours');
    await chunk(stillGoing, 0, '2 days'); // a slow upload: its newest chunk is recent
    await chunk(stillGoing, 1, '1 minute');
    await chunk(stored, 0, '3 days');
    await files.completeUpload({ id: stored, partnerId: 'kettle', name: 'old.edi', size: 1, sha256: 'a'.repeat(64) });
    const purge = new PurgeExpired(
      new MessageRepository(dataSource),
      new InterchangeRepository(dataSource),
      { retentionDays: 0, failedRetentionDays: 0 },
      files,
    );

    expect(await purge.execute()).toMatchObject({ abandonedChunks: 2 });
    const left: { file_id: string }[] = await dataSource.query(
      'SELECT file_id FROM partner_file_chunk ORDER BY file_id',
    );
    expect(new Set(left.map((row) => row.file_id))).toEqual(new Set([stillGoing, stored]));
    expect((await files.read('kettle', 'inbound', 'old.edi'))!.content.toString()).toBe('A');
  });
});
