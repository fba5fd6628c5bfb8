import { DataSource } from 'typeorm';
import { createAuditDataSource } from '@dockbridge/audit';
import { PARTNER_ENTITIES, PARTNER_MIGRATIONS, PartnerFileRepository, PartnerRepository } from '@dockbridge/partners';
import { EVERY_BYTE_FILES, readSlices, storeChunkedAndWhole } from './support/partner-files';

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
    for (const [name, content] of EVERY_BYTE_FILES) {
      for (const fileId of await storeChunkedAndWhole(files, 'carrier', name, content)) {
        expect((await readSlices(files, 'carrier', fileId, 300_001)).equals(content)).toBe(true);
      }
    }
  });
});
