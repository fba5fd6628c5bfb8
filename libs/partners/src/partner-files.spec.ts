import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey, hashApiKey } from './api-key';
import { loadPartnerFiles } from './partner-files';
import { PartnerProfileDto, validateDto } from './partner-profile.dto';

const MAIN_DC = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';

describe('loadPartnerFiles', () => {
  let dir: string;
  const write = (name: string, text: string) => writeFileSync(join(dir, name), text);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'partners-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds no profiles and no problems in a folder that does not exist', () => {
    expect(loadPartnerFiles(join(dir, 'missing'))).toEqual({ profiles: [], problems: [] });
  });

  it('reads .yaml and .yml files in name order, ignoring others', () => {
    write('b.yml', `id: beta\nname: Beta\nlocationOrganisationId: ${MAIN_DC}\n`);
    write('a.yaml', `id: alpha\nname: Alpha\nlocationOrganisationId: ${MAIN_DC}\nsettings: {batchThreshold: 50}\n`);
    write('notes.txt', 'not a profile');
    const { profiles, problems } = loadPartnerFiles(dir);
    expect(problems).toEqual([]);
    expect(profiles.map((p) => p.profile)).toEqual([
      {
        id: 'alpha',
        name: 'Alpha',
        locationOrganisationId: MAIN_DC,
        platformAccount: null,
        settings: { batchThreshold: 50 },
      },
      { id: 'beta', name: 'Beta', locationOrganisationId: MAIN_DC, platformAccount: null, settings: {} },
    ]);
  });

  it('reads the webhook mapping a file points at, and keeps one that does not compile from being published', () => {
    write('good.jsonata', '{"operations": []}');
    write('bad.jsonata', '{"operations": [}');
    write('a.yaml', `id: alpha\nname: Alpha\nlocationOrganisationId: ${MAIN_DC}\nwebhookMapping: good.jsonata\n`);
    write('b.yaml', `id: beta\nname: Beta\nlocationOrganisationId: ${MAIN_DC}\nwebhookMapping: bad.jsonata\n`);
    const { profiles, problems } = loadPartnerFiles(dir);
    expect(profiles.map((p) => [p.profile.id, p.mapping])).toEqual([
      ['alpha', '{"operations": []}'],
      ['beta', undefined],
    ]);
    expect(problems).toEqual([
      {
        file: join(dir, 'b.yaml'),
        field: 'webhookMapping',
        message: expect.stringMatching(
          /webhookMapping: bad\.jsonata is not a valid JSONata expression: .+ at position \d+$/,
        ),
      },
    ]);
  });

  it('names the file and the field of every problem, and leaves the file out', () => {
    write(
      'bad.yaml',
      [
        'id: Bad_Id',
        'locationOrganisationId: not-a-uuid',
        'settings:',
        '  batchThreshold: 0',
        '  colour: blue',
        'apiKeys:',
        '  - label: prod',
        '    keyEnv: "1BAD"',
      ].join('\n'),
    );
    const { profiles, problems } = loadPartnerFiles(dir);
    const file = join(dir, 'bad.yaml');
    expect(profiles).toEqual([]);
    expect(problems.every((p) => p.file === file && p.message.startsWith(`${file}: ${p.field}`))).toBe(true);
    expect(problems.map((p) => p.field).sort()).toEqual(
      [
        'apiKeys[0].keyEnv',
        'id',
        'locationOrganisationId',
        'name',
        'settings.batchThreshold',
        'settings.colour',
      ].sort(),
    );
    const byField = Object.fromEntries(problems.map((p) => [p.field, p.message]));
    expect(byField['id']).toContain('must be a slug');
    expect(byField['settings.batchThreshold']).toContain('must not be less than 1');
    expect(byField['settings.colour']).toContain('should not exist');
    expect(byField['apiKeys[0].keyEnv']).toContain('environment variable name');
  });

  it('reports YAML syntax errors with their position, not the file text', () => {
    write('broken.yaml', 'id: x\n  name: : :\n');
    const { problems } = loadPartnerFiles(dir);
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toMatch(/broken\.yaml: not valid YAML: .*line \d+/);
    expect(problems[0].message).not.toContain('\n');
  });

  it('refuses a file that holds a plaintext key, without repeating the key', () => {
    const key = generateApiKey();
    write('leak.yaml', `id: leaky\nname: Leaky\nlocationOrganisationId: ${MAIN_DC}\n# ${key}\n`);
    const { profiles, problems } = loadPartnerFiles(dir);
    expect(profiles).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toContain('line 4');
    expect(problems[0].message).not.toContain(key.slice(4));
  });

  it('reads keyEnv keys from the env given and keeps only their hash', () => {
    const key = generateApiKey();
    write('p.yaml', `id: p1\nname: P\nlocationOrganisationId: ${MAIN_DC}\napiKeys: [{label: prod, keyEnv: P1_KEY}]\n`);
    const { profiles, problems } = loadPartnerFiles(dir, { env: { P1_KEY: key } });
    expect(problems).toEqual([]);
    expect(profiles[0].keys).toEqual([
      { label: 'prod', sha256: hashApiKey(key), keyPrefix: key.slice(4, 12), expiresAt: null },
    ]);
    expect(profiles[0].keysComplete).toBe(true);
    expect(JSON.stringify(profiles)).not.toContain(key);
  });

  it('imports the profile but flags its keys incomplete when a keyEnv is unset or not a key', () => {
    write(
      'p.yaml',
      `id: p1\nname: P\nlocationOrganisationId: ${MAIN_DC}\napiKeys: [{label: a, keyEnv: UNSET}, {label: b, keyEnv: WEAK}]\n`,
    );
    const { profiles, problems } = loadPartnerFiles(dir, { env: { WEAK: 'password123' } });
    expect(profiles[0].keysComplete).toBe(false);
    expect(profiles[0].keys).toEqual([]);
    expect(problems.map((p) => [p.field, p.message.includes('UNSET') || p.message.includes('WEAK')])).toEqual([
      ['apiKeys[0].keyEnv', true],
      ['apiKeys[1].keyEnv', true],
    ]);
    expect(problems[1].message).not.toContain('password123');
  });

  it('takes apiKeyHashes as given (lowercased)', () => {
    const hash = hashApiKey(generateApiKey()).toUpperCase();
    write(
      'p.yaml',
      `id: p1\nname: P\nlocationOrganisationId: ${MAIN_DC}\napiKeyHashes: [{label: ops, sha256: ${hash}}]\n`,
    );
    const { profiles } = loadPartnerFiles(dir);
    expect(profiles[0].keys).toEqual([{ label: 'ops', sha256: hash.toLowerCase(), keyPrefix: null, expiresAt: null }]);
  });

  it('refuses a second file with the same id, and unknown platform accounts when accounts are given', () => {
    write('a.yaml', `id: same\nname: A\nlocationOrganisationId: ${MAIN_DC}\n`);
    write('b.yaml', `id: same\nname: B\nlocationOrganisationId: ${MAIN_DC}\n`);
    write('c.yaml', `id: other\nname: C\nlocationOrganisationId: ${MAIN_DC}\nplatformAccount: nowhere\n`);
    const { profiles, problems } = loadPartnerFiles(dir, { platformAccounts: ['main-dc'] });
    expect(profiles.map((p) => p.profile.name)).toEqual(['A']);
    expect(problems.map((p) => [p.file.endsWith('b.yaml') ? 'b' : 'c', p.field])).toEqual([
      ['b', 'id'],
      ['c', 'platformAccount'],
    ]);
  });

  it('accepts the example profiles shipped in config/partners', () => {
    const env = {
      ACME_WMS_API_KEY: generateApiKey(),
      FAST_FREIGHT_API_KEY: generateApiKey(),
      KETTLE_FOODS_API_KEY: generateApiKey(),
      ACME_WMS_WEBHOOK_SECRET: 'whsec_dGVzdA==',
      FAST_FREIGHT_WEBHOOK_SECRET: 'tms-secret',
      KETTLE_SFTP_PASSWORD: 'kettle sftp password',
    };
    const { profiles, problems } = loadPartnerFiles(join(__dirname, '../../../config/partners'), { env });
    expect(problems).toEqual([]);
    expect(profiles.map((p) => [p.profile.id, p.profile.locationOrganisationId, p.keys.length])).toEqual([
      ['acme-wms', MAIN_DC, 1],
      ['fast-freight', MAIN_DC, 1],
      ['kettle-foods', MAIN_DC, 1],
    ]);
    expect(profiles[2].sftpUsers).toEqual([
      { username: 'kettle', password: 'kettle sftp password', publicKey: undefined },
    ]);
  });
});

describe('PartnerProfileDto', () => {
  it('accepts a minimal profile and leaves enabled unset', () => {
    const result = validateDto(PartnerProfileDto, { id: 'ab', name: 'AB', locationOrganisationId: MAIN_DC });
    expect(result.ok).toBe(true);
    expect(result.ok && result.value.enabled).toBeUndefined();
  });

  it.each([
    ['{"constructor":{}}', 'settings.constructor'],
    ['{"edi":{"valueOf":1}}', 'settings.edi.valueOf'],
    ['{"edi":{"senderIds":["X"],"toString":"x"}}', 'settings.edi.toString'],
  ])('refuses settings %s by the name every object inherits, without throwing', (settings, field) => {
    const plain = { id: 'ab', name: 'AB', locationOrganisationId: MAIN_DC, settings: JSON.parse(settings) };
    expect(validateDto(PartnerProfileDto, plain)).toEqual({
      ok: false,
      problems: [{ field, message: 'is not a profile field' }],
    });
  });

  it.each([
    [{ qualifier: '99', id: 'DOCKBRIDGE' }, ['settings.edi.interchangeId.qualifier']],
    [{ qualifier: 'ZZ', id: 'ACME!DC' }, ['settings.edi.interchangeId.id']],
    [{ qualifier: '01', id: '925133417' }, []],
    [{ qualifier: 'ZZ', id: 'ACME-DC 1.2/3' }, []],
  ])('takes our interchange id %j only as a strict partner reads it', (interchangeId, fields) => {
    const edi = { senderIds: ['KETTLE'], coreName: 'ACME', interchangeId };
    const result = validateDto(PartnerProfileDto, {
      id: 'ab',
      name: 'AB',
      locationOrganisationId: MAIN_DC,
      settings: { edi },
    });
    expect(result.ok ? [] : result.problems.map((p) => p.field)).toEqual(fields);
  });

  it.each(['a', '-ab', 'AB', 'a_b', 'a'.repeat(64)])('refuses the id %p', (id) => {
    const result = validateDto(PartnerProfileDto, { id, name: 'X', locationOrganisationId: MAIN_DC });
    expect(result.ok ? [] : result.problems.map((p) => p.field)).toEqual(['id']);
  });

  it('refuses API keys in a profile given to the admin API', () => {
    const result = validateDto(PartnerProfileDto, {
      id: 'ab',
      name: 'AB',
      locationOrganisationId: MAIN_DC,
      apiKeys: [],
    });
    expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
      'apiKeys: property apiKeys should not exist',
    ]);
  });
});
