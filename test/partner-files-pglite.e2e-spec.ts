import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createAuditDataSource } from '@dockbridge/audit';
import {
  FILE_CHUNK_BYTES,
  PARTNER_ENTITIES,
  PARTNER_MIGRATIONS,
  PartnerFileRepository,
  PartnerRepository,
} from '@dockbridge/partners';

/** Partner files on the embedded default (PGlite): stored bytes come back exactly, whichever way they are read. */
describe('partner files on PGlite', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await createAuditDataSource({
      dataDir: 'memory://',
      migrationsRun: true,
      extraEntities: PARTNER_ENTITIES,
      extraMigrations: PARTNER_MIGRATIONS,
    }).initialize();
    await new PartnerRepository(dataSource).upsert(
      { id: 'carrier', name: 'Carrier', locationOrganisationId: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01' },
      'api',
    );
  }, 60_000);
  afterAll(() => dataSource?.destroy());

  it('reads back bytes above 127 and a NUL byte, stored whole or in chunks', async () => {
    const files = new PartnerFileRepository(dataSource);
    const everyByte = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const high = Buffer.concat(Array.from({ length: 5000 }, () => everyByte.subarray(1))).subarray(
      0,
      FILE_CHUNK_BYTES + 77,
    );
    for (const [name, content] of [
      ['HIGH.bin', high],
      ['NUL.bin', Buffer.concat([high, everyByte])],
    ] as const) {
      const id = randomUUID();
      for (let seq = 0; seq * FILE_CHUNK_BYTES < content.length; seq++) {
        await files.appendChunk(id, seq, content.subarray(seq * FILE_CHUNK_BYTES, (seq + 1) * FILE_CHUNK_BYTES));
      }
      const sha256 = createHash('sha256').update(content).digest('hex');
      await files.completeUpload({ id, partnerId: 'carrier', name, size: content.length, sha256 });
      const whole = await files.put('carrier', 'outbound', name, content);
      for (const fileId of [id, whole.id]) {
        const parts: Buffer[] = [];
        for await (const part of files.slicesOf('carrier', fileId, 300_001)) {
          parts.push(part);
        }
        expect(Buffer.concat(parts).equals(content)).toBe(true);
      }
    }
  });
});
