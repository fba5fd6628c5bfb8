import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { startMediumDatabase } from '../../../../test/support/medium';
import { PartnerRepository } from '../partner.repository';
import { PartnerFileRepository } from './partner-file.repository';

/**
 * What a removed version of a partner file keeps (medium: real Postgres): its row, always; its bytes
 * only while a message reads them. A partner re-opening a stored upload without writing made a copy
 * each round trip, and every copy was kept.
 */
describe('PartnerFileRepository: the bytes of removed versions', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let files: PartnerFileRepository;

  beforeAll(async () => {
    database = await startMediumDatabase();
    files = new PartnerFileRepository(database.dataSource);
    await new PartnerRepository(database.dataSource).upsert(
      { id: 'kettle', name: 'Kettle', locationOrganisationId: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01' },
      'api',
    );
  }, 60_000);
  afterAll(() => database?.close());

  const chunksOf = async (id: string) =>
    Number(
      (
        (await database.dataSource.query(`SELECT count(*) AS n FROM partner_file_chunk WHERE file_id = $1`, [id])) as {
          n: string;
        }[]
      )[0].n,
    );
  /** A stored upload of `name` (one chunk), live once completed. */
  const upload = async (name: string) => {
    const id = randomUUID();
    await files.appendChunk(id, 0, Buffer.from('ISA*00*'));
    await files.completeUpload({ id, partnerId: 'kettle', name, size: 7, sha256: 'a'.repeat(64) });
    return id;
  };

  it('drops the bytes of an upload replaced, removed, undone or renamed over before it became a message', async () => {
    const first = await upload('x.tmp');
    const second = await upload('x.tmp'); // a resumed upload: a new version in place of the first
    expect([await chunksOf(first), await chunksOf(second)]).toEqual([0, 1]);
    expect((await files.read('kettle', 'inbound', 'x.tmp'))!.content.toString()).toBe('ISA*00*');
    expect(await files.remove('kettle', 'inbound', 'x.tmp')).toBe(true);
    expect(await chunksOf(second)).toBe(0);
    const undone = await upload('y.tmp');
    expect(await files.removeById('kettle', undone)).toBe(true);
    expect(await chunksOf(undone)).toBe(0);
    const renamedOver = await upload('z.tmp');
    const renamed = await upload('w.tmp');
    await files.rename('kettle', 'inbound', 'w.tmp', 'z.tmp', { overwrite: true });
    expect([await chunksOf(renamedOver), await chunksOf(renamed)]).toEqual([0, 1]);
    const rows = (await database.dataSource.query(
      `SELECT count(*) AS n FROM partner_file WHERE id = ANY($1::uuid[]) AND removed_at IS NOT NULL`,
      [[first, second, undone, renamedOver]],
    )) as { n: string }[];
    expect(Number(rows[0].n)).toBe(4); // the rows stay, for the record
  });

  // The second insert of a live name is refused by the partial unique index: it failed that upload.
  it('completes uploads of one name finishing at once, the last to commit live', async () => {
    const ids = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const id = randomUUID();
        await files.appendChunk(id, 0, Buffer.from('ISA*00*'));
        return id;
      }),
    );
    const done = await Promise.allSettled(
      ids.map((id) =>
        files.completeUpload({ id, partnerId: 'kettle', name: 'same.edi', size: 7, sha256: 'd'.repeat(64) }),
      ),
    );
    expect(done.map((d) => d.status)).toEqual(ids.map(() => 'fulfilled'));
    const live = (await database.dataSource.query(
      `SELECT id FROM partner_file WHERE partner_id = 'kettle' AND name = 'same.edi' AND removed_at IS NULL`,
    )) as { id: string }[];
    expect(live).toHaveLength(1);
    expect(await chunksOf(live[0].id)).toBe(1);
  });

  it('keeps the bytes a message reads, inbound or outbound', async () => {
    const recorded = randomUUID();
    await files.appendChunk(recorded, 0, Buffer.from('ISA*'));
    await files.completeUpload(
      { id: recorded, partnerId: 'kettle', name: 'po.edi', size: 4, sha256: 'b'.repeat(64) },
      async (manager) => {
        const [row] = (await manager.query(
          `INSERT INTO message (id, partner_id, channel, raw_payload, content_type, status, sha256, metadata)
           VALUES (gen_random_uuid(), 'kettle', 'sftp', '', 'application/edi-x12', 'received', $1, '{}') RETURNING id`,
          ['b'.repeat(64)],
        )) as { id: string }[];
        return row.id;
      },
    );
    await upload('po.edi'); // the partner sends the same name again
    expect(await chunksOf(recorded)).toBe(1);
    const ack = randomUUID();
    await files.appendChunk(ack, 0, Buffer.from('997'));
    await files.completeOutbound({ id: ack, partnerId: 'kettle', name: '997_1.x12', size: 3, sha256: 'c'.repeat(64) });
    expect(await files.remove('kettle', 'outbound', '997_1.x12')).toBe(true);
    expect(await chunksOf(ack)).toBe(1);
  });
});
