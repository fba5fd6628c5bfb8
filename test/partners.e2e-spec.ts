import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { AuditModule, auditDataSourceOptions, runMigrations } from '@dockbridge/audit';
import {
  ApiKeyNotFoundError,
  ApiKeyRejectedError,
  generateApiKey,
  hashApiKey,
  importPartners,
  PARTNER_ENTITIES,
  PARTNER_MIGRATIONS,
  PartnerApiKeyEntity,
  PartnerNotFoundError,
  PartnerProfileInput,
  PartnerRepository,
  PartnersModule,
  SecretBox,
  SftpCredentialRepository,
  WebhookSecretRepository,
} from '@dockbridge/partners';
import { createTestDatabase, TestDatabase } from './support/database';

const MAIN_DC = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const NORTH_XD = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e02';

describe('partner store on Postgres', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let repo: PartnerRepository;
  let clock: Date;
  let appliedAtStart: string[];
  let seq = 0;

  /** A partner id of its own per test. */
  const newId = () => `p${Date.now().toString(36)}-${++seq}`;
  const profile = (id: string, extra: Partial<PartnerProfileInput> = {}): PartnerProfileInput => ({
    id,
    name: `Partner ${id}`,
    locationOrganisationId: MAIN_DC,
    settings: { batchThreshold: 10 },
    ...extra,
  });
  const advance = (ms: number) => {
    clock = new Date(clock.getTime() + ms);
  };
  const keyRow = (id: string) => dataSource.manager.findOneByOrFail(PartnerApiKeyEntity, { id });

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await new DataSource(
      auditDataSourceOptions({
        url: db.url,
        dataDir: '',
        migrationsRun: false,
        extraEntities: PARTNER_ENTITIES,
        extraMigrations: PARTNER_MIGRATIONS,
      }),
    ).initialize();
    appliedAtStart = await runMigrations(dataSource);
    clock = new Date('2026-03-01T12:00:00Z');
    repo = new PartnerRepository(dataSource, { now: () => clock });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  describe('migrations', () => {
    it('create the partner tables after the audit tables', () => {
      expect(appliedAtStart).toEqual([
        'CreateAuditTables1767225600000',
        'CreatePartnerTables1767312000000',
        'CreatePartnerFileAndSftpTables1767398400000',
        'CreateInterchangeReceipts1767484800000',
        'CreateWebhookTables1767571200000',
        'InterchangeReceiptsOutliveMessages1767657600000',
        'MessageArrivalOrder1767744000000',
        'IdempotencyKeyOnMessage1767830400000',
        'DropMessageSha256Index1767916800000',
        'EdiSearchIndexes1768003200000',
        'NewestWriteWins1768089600000',
        'IndexMessageReplayOf1768176000000',
        'IndexPartnerFilePartnerId1768176000001',
        'OperationRetryState1768262400000',
        'AttemptRecordedBeforeCall1768400000000',
        'PartnerOwnership1768486400000',
        'ReplayRuns1768572800000',
        'PartnerFileChunks1768700000000',
        'PartnerFileFetched1768700000001',
        'OperatorAccounts1768800000000',
        'OperationPayloadOutOfLine1768900000000',
        'OperationUpdatesInPlace1769000000000',
        'OperationTally1769100000000',
        'OperationPayloadBlocks1769200000000',
        'CompactDeliveryKeys1769300000000',
        'OperationClaimedBy1769400000000',
        'UntranslatedMessagesIndex1769500000000',
        'AbandoningMessagesIndex1769600000000',
        'OperationPayloadWeight1769700000000',
      ]);
    });

    it('index every foreign key, so deletes that follow one (cascade, set null) never scan its table', async () => {
      // Every FK of the schema, and whether an index leads with its columns (partial only when the predicate is "column IS NOT NULL").
      const rows: { fk: string; indexed: boolean }[] = await dataSource.query(`
        SELECT c.conname AS fk, EXISTS (
          SELECT 1 FROM pg_index i
           WHERE i.indrelid = c.conrelid
             AND (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] = c.conkey
             AND (i.indpred IS NULL OR pg_get_expr(i.indpred, i.indrelid) = '(' || (SELECT attname FROM pg_attribute WHERE attrelid = c.conrelid AND attnum = c.conkey[1]) || ' IS NOT NULL)')
        ) AS indexed
        FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace ORDER BY 1`);
      expect(rows.map((r) => r.fk)).toEqual(
        expect.arrayContaining(['message_replay_of_fkey', 'operation_message_id_fkey', 'partner_file_partner_id_fkey']),
      );
      expect(rows.filter((r) => !r.indexed).map((r) => r.fk)).toEqual([]);
    });

    it('leave a schema the entities agree with (nothing for TypeORM to synchronise)', async () => {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    });
  });

  describe('profiles', () => {
    it('upsert creates, then replaces, a profile; list returns it', async () => {
      const id = newId();
      const created = await repo.upsert(profile(id, { platformAccount: 'main-dc' }), 'api');
      expect(created).toMatchObject({
        id,
        enabled: true,
        locationOrganisationId: MAIN_DC,
        platformAccount: 'main-dc',
        settings: { batchThreshold: 10 },
        source: 'api',
      });
      advance(1000);
      const replaced = await repo.upsert(
        profile(id, { name: 'Renamed', locationOrganisationId: NORTH_XD, settings: { selfCoreId: 'XD02' } }),
        'file',
      );
      expect(replaced).toMatchObject({
        name: 'Renamed',
        locationOrganisationId: NORTH_XD,
        platformAccount: null,
        settings: { selfCoreId: 'XD02' },
        source: 'file',
      });
      expect(replaced.createdAt).toEqual(created.createdAt);
      expect(replaced.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
      expect((await repo.list()).filter((p) => p.id === id)).toEqual([replaced]);
      expect(await repo.findById(id)).toEqual(replaced);
    });

    it('upsert without `enabled` keeps an operator disable; with it, sets it', async () => {
      const id = newId();
      await repo.upsert(profile(id), 'file');
      await repo.setEnabled(id, false);
      expect((await repo.upsert(profile(id), 'file')).enabled).toBe(false);
      expect((await repo.upsert(profile(id, { enabled: true }), 'file')).enabled).toBe(true);
    });

    it('findById of an unknown or malformed id is null; setEnabled of one throws', async () => {
      expect(await repo.findById('nobody-here')).toBeNull();
      expect(await repo.findById("x'; DROP TABLE partner; --")).toBeNull();
      await expect(repo.setEnabled('nobody-here', false)).rejects.toBeInstanceOf(PartnerNotFoundError);
    });

    it('the table refuses an id that is not a slug', async () => {
      await expect(
        dataSource.query(
          `INSERT INTO partner (id, name, location_organisation_id, settings, source) VALUES ('Bad Id', 'x', $1, '{}', 'api')`,
          [MAIN_DC],
        ),
      ).rejects.toThrow(/partner_id_check/);
    });
  });

  describe('API keys', () => {
    it('an issued key authenticates its partner and is in the dbk_ format', async () => {
      const id = newId();
      await repo.upsert(profile(id), 'api');
      const { key, record } = await repo.issueApiKey(id, { label: 'prod' });
      expect(key).toMatch(/^dbk_[A-Za-z0-9_-]{43}$/);
      expect(record).toMatchObject({
        partnerId: id,
        keyPrefix: key.slice(4, 12),
        label: 'prod',
        source: 'api',
        revokedAt: null,
        expiresAt: null,
        lastUsedAt: null,
      });
      expect((await repo.authenticate(key))?.id).toBe(id);
      expect((await keyRow(record.id)).keyHash).toBe(hashApiKey(key));
    });

    it('a wrong, malformed or empty key authenticates nothing', async () => {
      const id = newId();
      await repo.upsert(profile(id), 'api');
      const { key } = await repo.issueApiKey(id, { label: 'prod' });
      const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
      expect(await repo.authenticate(flipped)).toBeNull();
      expect(await repo.authenticate(generateApiKey())).toBeNull();
      expect(await repo.authenticate(hashApiKey(key))).toBeNull();
      expect(await repo.authenticate('')).toBeNull();
      expect(await repo.authenticate(key.slice(4))).toBeNull();
    });

    it('a revoked key authenticates nothing; revoking is idempotent; other keys keep working', async () => {
      const id = newId();
      await repo.upsert(profile(id), 'api');
      const old = await repo.issueApiKey(id, { label: 'old' });
      const current = await repo.issueApiKey(id, { label: 'current' });
      const revoked = await repo.revokeApiKey(id, old.record.id);
      expect(revoked.revokedAt).toEqual(clock);
      advance(1000);
      expect((await repo.revokeApiKey(id, old.record.id)).revokedAt).toEqual(revoked.revokedAt);
      expect(await repo.authenticate(old.key)).toBeNull();
      expect((await repo.authenticate(current.key))?.id).toBe(id);
    });

    it('revoking another partner’s key, or an unknown one, is not found', async () => {
      const a = newId();
      const b = newId();
      await repo.upsert(profile(a), 'api');
      await repo.upsert(profile(b), 'api');
      const { key, record } = await repo.issueApiKey(a, { label: 'a' });
      await expect(repo.revokeApiKey(b, record.id)).rejects.toBeInstanceOf(ApiKeyNotFoundError);
      await expect(repo.revokeApiKey(a, 'not-a-uuid')).rejects.toBeInstanceOf(ApiKeyNotFoundError);
      expect((await repo.authenticate(key))?.id).toBe(a);
    });

    it('an expired key authenticates nothing', async () => {
      const id = newId();
      await repo.upsert(profile(id), 'api');
      const { key } = await repo.issueApiKey(id, { label: 'temp', expiresAt: new Date(clock.getTime() + 60 * 60_000) });
      expect((await repo.authenticate(key))?.id).toBe(id);
      advance(60 * 60_000);
      expect(await repo.authenticate(key)).toBeNull();
      await expect(repo.issueApiKey(id, { label: 'past', expiresAt: new Date(clock.getTime() - 1) })).rejects.toThrow(
        /future/,
      );
    });

    it('a disabled partner’s keys authenticate nothing until it is enabled again', async () => {
      const id = newId();
      await repo.upsert(profile(id), 'api');
      const { key } = await repo.issueApiKey(id, { label: 'prod' });
      await repo.setEnabled(id, false);
      expect(await repo.authenticate(key)).toBeNull();
      await repo.setEnabled(id, true);
      expect((await repo.authenticate(key))?.id).toBe(id);
    });

    it('records last use at most once a minute', async () => {
      const id = newId();
      await repo.upsert(profile(id), 'api');
      const { key, record } = await repo.issueApiKey(id, { label: 'prod' });
      const first = new Date(clock);
      await repo.authenticate(key);
      expect((await keyRow(record.id)).lastUsedAt).toEqual(first);
      advance(30_000);
      await repo.authenticate(key);
      expect((await keyRow(record.id)).lastUsedAt).toEqual(first);
      advance(30_000);
      await repo.authenticate(key);
      expect((await keyRow(record.id)).lastUsedAt).toEqual(clock);
    });

    it('listApiKeys shows every key of the partner, newest first, with no secret material', async () => {
      const id = newId();
      await repo.upsert(profile(id), 'api');
      const first = await repo.issueApiKey(id, { label: 'first' });
      advance(1000);
      const second = await repo.issueApiKey(id, { label: 'second' });
      await repo.revokeApiKey(id, first.record.id);
      const listed = await repo.listApiKeys(id);
      expect(listed.map((k) => [k.label, k.revokedAt !== null])).toEqual([
        ['second', false],
        ['first', true],
      ]);
      const text = JSON.stringify(listed);
      for (const { key } of [first, second]) {
        expect(text).not.toContain(key.slice(4));
        expect(text).not.toContain(hashApiKey(key));
      }
      expect(Object.keys(listed[0]).sort()).toEqual(
        ['createdAt', 'expiresAt', 'id', 'keyPrefix', 'label', 'lastUsedAt', 'partnerId', 'revokedAt', 'source'].sort(),
      );
    });

    it('issuing for an unknown partner throws', async () => {
      await expect(repo.issueApiKey('nobody-here', { label: 'x' })).rejects.toBeInstanceOf(PartnerNotFoundError);
    });

    it('importKey registers a key the partner holds, once; refuses a revoked one and another partner’s', async () => {
      const a = newId();
      const b = newId();
      await repo.upsert(profile(a), 'file');
      await repo.upsert(profile(b), 'file');
      const key = generateApiKey();
      const imported = await repo.importKey(a, key, 'from config');
      expect(imported).toMatchObject({ partnerId: a, source: 'config', keyPrefix: key.slice(4, 12) });
      const again = await repo.importKey(a, key, 'renamed');
      expect(again).toMatchObject({ id: imported.id, label: 'renamed' });
      expect((await repo.authenticate(key))?.id).toBe(a);

      await expect(repo.importKey(b, key, 'stolen')).rejects.toBeInstanceOf(ApiKeyRejectedError);
      await expect(repo.importKey(a, 'password123', 'weak')).rejects.toThrow(/not a dbk_ key/);
      await repo.revokeApiKey(a, imported.id);
      await expect(repo.importKey(a, key, 'again')).rejects.toThrow(/revoked/);
      expect(await repo.authenticate(key)).toBeNull();
    });
  });

  describe('importPartners (configuration as code)', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'partners-e2e-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('upserts profiles from a folder; a keyEnv key then authenticates', async () => {
      const id = newId();
      const key = generateApiKey();
      writeFileSync(
        join(dir, `${id}.yaml`),
        `id: ${id}\nname: Imported\nlocationOrganisationId: ${MAIN_DC}\nsettings:\n  selfCoreId: DC01\napiKeys:\n  - label: prod\n    keyEnv: THE_KEY\n`,
      );
      const result = await importPartners(repo, dir, { env: { THE_KEY: key } });
      expect(result).toEqual({ imported: [id], unchanged: [], conflicts: [], problems: [] });
      expect(await repo.findById(id)).toMatchObject({
        name: 'Imported',
        source: 'file',
        file: join(dir, `${id}.yaml`),
        conflict: null,
        enabled: true,
        settings: { selfCoreId: 'DC01' },
      });
      expect((await repo.authenticate(key))?.id).toBe(id);

      // Importing again changes nothing.
      expect(await importPartners(repo, dir, { env: { THE_KEY: key } })).toEqual({
        imported: [],
        unchanged: [id],
        conflicts: [],
        problems: [],
      });
      expect(await repo.listApiKeys(id)).toHaveLength(1);
    });

    it('rotating a key in config revokes the old one; API-issued keys stay', async () => {
      const id = newId();
      const file = join(dir, `${id}.yaml`);
      writeFileSync(
        file,
        `id: ${id}\nname: Rotating\nlocationOrganisationId: ${MAIN_DC}\napiKeys: [{label: prod, keyEnv: KEY}]\n`,
      );
      const oldKey = generateApiKey();
      const newKey = generateApiKey();
      await importPartners(repo, dir, { env: { KEY: oldKey } });
      const issued = await repo.issueApiKey(id, { label: 'ops' });

      // Variable unset: reported, and nothing is revoked (the list is incomplete).
      const unset = await importPartners(repo, dir, { env: {} });
      expect(unset.problems.map((p) => [p.file, p.field])).toEqual([[file, 'apiKeys[0].keyEnv']]);
      expect((await repo.authenticate(oldKey))?.id).toBe(id);

      await importPartners(repo, dir, { env: { KEY: newKey } });
      expect(await repo.authenticate(oldKey)).toBeNull();
      expect((await repo.authenticate(newKey))?.id).toBe(id);
      expect((await repo.authenticate(issued.key))?.id).toBe(id);
    });

    it('never revives an expired or revoked webhook secret, key or SFTP user, and says so', async () => {
      const id = newId();
      const file = join(dir, `${id}.yaml`);
      const secrets = new WebhookSecretRepository(dataSource, SecretBox.withKey(randomBytes(32)));
      const sftp = new SftpCredentialRepository(dataSource, repo, { now: () => clock });
      const key = generateApiKey();
      const env = {
        SECRET: 'whsec_' + randomBytes(24).toString('base64'),
        OTHER: 'whsec_' + randomBytes(24).toString('base64'),
        KEY: key,
        PASS: 'sftp password 0123456789',
      };
      writeFileSync(
        file,
        `id: ${id}\nname: Rotated\nlocationOrganisationId: ${MAIN_DC}\n` +
          `webhookSecrets: [{label: old, secretEnv: SECRET}, {label: revoked, secretEnv: OTHER}]\n` +
          `apiKeys: [{label: prod, keyEnv: KEY}]\nsftpUsers: [{username: ${id}-user, passwordEnv: PASS}]\n`,
      );
      expect((await importPartners(repo, dir, { env, secrets, sftp })).problems).toEqual([]);
      const [old, revoked] = await secrets.list(id);
      expect(await secrets.activeSecrets(id)).toHaveLength(2);

      // The rotation ends: the old secret expired, the other revoked, the key expired, the SFTP user revoked.
      await secrets.expire(id, old.id, new Date(Date.now() - 1000));
      await secrets.revoke(id, revoked.id);
      await dataSource.query(`UPDATE partner_api_key SET expires_at = $2 WHERE partner_id = $1`, [
        id,
        new Date(clock.getTime() - 1000),
      ]);
      await sftp.revoke(id, `${id}-user`);

      const restart = await importPartners(repo, dir, { env, secrets, sftp });
      expect(await secrets.activeSecrets(id)).toEqual([]);
      expect(await repo.authenticate(key)).toBeNull();
      expect(await sftp.verifyPassword(`${id}-user`, env.PASS)).toBeNull();
      expect(restart.problems.map((p) => [p.field, p.message.replace(`${file}: ${p.field}: `, '')])).toEqual([
        [
          'webhookSecrets',
          'secret "old" was expired or revoked and is not imported again: remove it from the file, or give the partner a new secret',
        ],
        [
          'webhookSecrets',
          'secret "revoked" was expired or revoked and is not imported again: remove it from the file, or give the partner a new secret',
        ],
        ['sftpUsers', expect.stringContaining('revoked')],
        [
          'apiKeys',
          expect.stringMatching(/^prod: this key expired on .* and is not brought back; give the partner a new one$/),
        ],
      ]);
    });

    it('lists secrets by fingerprint; an expiry only ever moves earlier (a later date leaves an expired secret expired)', async () => {
      const id = newId();
      await repo.upsert(profile(id), 'api');
      const secrets = new WebhookSecretRepository(dataSource, SecretBox.withKey(randomBytes(32)));
      const { record, secret } = await secrets.add(id, { label: 'old' });
      // Listed by a fingerprint, never by any characters of the secret.
      expect(record.fingerprint).toBe(`sha256:${createHash('sha256').update(secret).digest('hex').slice(0, 12)}`);
      expect(JSON.stringify(await secrets.list(id))).not.toContain(secret.slice(6, 12));
      const past = new Date(Date.now() - 60_000);
      await secrets.expire(id, record.id, past);
      await secrets.expire(id, record.id, new Date(Date.now() + 86_400_000));
      expect((await secrets.list(id))[0].expiresAt).toEqual(past);
      expect(await secrets.activeSecrets(id)).toEqual([]);
      const soon = new Date(Date.now() + 3_600_000);
      const { record: other } = await secrets.add(id, { label: 'new', expiresAt: new Date(Date.now() + 86_400_000) });
      await secrets.expire(id, other.id, soon);
      expect((await secrets.list(id))[1].expiresAt).toEqual(soon);
    });

    it('a bad file is reported with its file and field and not imported; good files still are', async () => {
      const good = newId();
      const bad = newId();
      writeFileSync(join(dir, 'good.yaml'), `id: ${good}\nname: Good\nlocationOrganisationId: ${MAIN_DC}\n`);
      writeFileSync(
        join(dir, 'bad.yaml'),
        `id: ${bad}\nname: Bad\nlocationOrganisationId: ${MAIN_DC}\nsettings:\n  batchThreshold: lots\n`,
      );
      const result = await importPartners(repo, dir, { env: {} });
      expect(result.imported).toEqual([good]);
      expect(result.problems).toEqual([
        {
          file: join(dir, 'bad.yaml'),
          field: 'settings.batchThreshold',
          message: `${join(dir, 'bad.yaml')}: settings.batchThreshold must be an integer number`,
        },
      ]);
      expect(await repo.findById(bad)).toBeNull();
    });

    it('a missing folder imports nothing', async () => {
      expect(await importPartners(repo, join(dir, 'missing'))).toEqual({
        imported: [],
        unchanged: [],
        conflicts: [],
        problems: [],
      });
    });
  });

  describe('PartnersModule', () => {
    it('provides PartnerRepository over the DataSource AuditModule opens', async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [
          AuditModule.forRoot({
            url: db.url,
            dataDir: '',
            migrationsRun: true,
            extraEntities: PARTNER_ENTITIES,
            extraMigrations: PARTNER_MIGRATIONS,
          }),
          PartnersModule.forRoot({ provide: SecretBox, useValue: SecretBox.withKey(randomBytes(32)) }),
        ],
      }).compile();
      try {
        const partners = moduleRef.get(PartnerRepository);
        const id = newId();
        await partners.upsert(profile(id), 'api');
        const { key } = await partners.issueApiKey(id, { label: 'nest' });
        expect((await partners.authenticate(key))?.id).toBe(id);
      } finally {
        await moduleRef.close();
      }
    });
  });
});
