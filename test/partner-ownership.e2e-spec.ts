import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { importPartners, PartnerMappingRepository, PartnerRepository } from '@dockbridge/partners';
import { PartnerImport } from '../apps/gateway/src/partner-import';
import { DEMO } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

/**
 * Who owns a partner, its `config/partners/*.yaml` file or the admin API (issue 13): a restart never
 * undoes what the API did, a file never silently overrides the API, and the API never silently
 * changes what a file declares.
 */
describe('partner ownership: file or admin API', () => {
  let spine: Spine;
  let dir: string;
  let seq = 0;
  const newId = () => `own-${Date.now().toString(36)}-${++seq}`;
  const mappingV = (tag: string) => `{ "operations": [], "tag": "${tag}" }`;

  /** A partner file (and its mapping file, when given); returns the file's path. */
  const writePartner = (id: string, name: string, mapping?: string): string => {
    const file = join(dir, `${id}.yaml`);
    if (mapping !== undefined) {
      writeFileSync(join(dir, `${id}.jsonata`), mapping);
    }
    writeFileSync(
      file,
      `id: ${id}\nname: ${name}\nlocationOrganisationId: ${DEMO.mainDc}\n${mapping !== undefined ? `webhookMapping: ./${id}.jsonata\n` : ''}`,
    );
    return file;
  };
  /** What the gateway does at start (the same provider, run again: a restart on the same database). */
  const restart = () => spine.app.get(PartnerImport).onApplicationBootstrap();
  const admin = (method: string, path: string, body?: unknown) =>
    spine.call(method, `/v1/admin/partners${path}`, { auth: 'admin', body });
  const versions = async (id: string) =>
    (await spine.app.get(PartnerMappingRepository).list(id)).map((m) => [m.version, m.expression]);
  const listed = async (id: string) =>
    ((await (await admin('GET', '')).json()) as { id: string }[]).find((p) => p.id === id);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'partner-ownership-'));
    spine = await startSpine({ 'gateway.partnersDir': dir });
  }, 60_000);
  afterAll(async () => {
    await spine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a restart with an unchanged file writes nothing: no new mapping version, the profile untouched', async () => {
    const id = newId();
    const file = writePartner(id, 'From file', mappingV('file-1'));
    await restart();
    const first = await (await admin('GET', `/${id}`)).json();
    expect(first).toMatchObject({ source: 'file', file, conflict: null, name: 'From file' });
    expect(await versions(id)).toEqual([[1, mappingV('file-1')]]);

    await restart();
    await restart();
    expect(await versions(id)).toEqual([[1, mappingV('file-1')]]);
    expect((await (await admin('GET', `/${id}`)).json()).updatedAt).toBe(first.updatedAt);

    // A changed file is applied: profile and mapping.
    writePartner(id, 'Renamed in file', mappingV('file-2'));
    await restart();
    expect(await listed(id)).toMatchObject({ name: 'Renamed in file', source: 'file' });
    expect(await versions(id)).toEqual([
      [1, mappingV('file-1')],
      [2, mappingV('file-2')],
    ]);
  });

  it('refuses API changes to a file-owned partner with 409 naming the file; enabling stays possible', async () => {
    const id = newId();
    const file = writePartner(id, 'From file', mappingV('file'));
    await restart();

    const put = await admin('PUT', `/${id}`, { name: 'From API', locationOrganisationId: DEMO.mainDc });
    expect(put.status).toBe(409);
    const body = await put.json();
    expect(body).toMatchObject({ statusCode: 409, file });
    expect(body.details[0]).toContain(file);
    expect(body.details[0]).toContain(`/v1/admin/partners/${id}/adopt`);

    const mapping = await admin('PUT', `/${id}/mapping`, { expression: mappingV('api') });
    expect(mapping.status).toBe(409);
    expect((await mapping.json()).details[0]).toContain(file);

    expect(await listed(id)).toMatchObject({ name: 'From file', source: 'file' });
    expect(await versions(id)).toEqual([[1, mappingV('file')]]);
    // A bad body is still a 400 first.
    expect((await admin('PUT', `/${id}`, { name: '' })).status).toBe(400);
    // The kill switch is not a profile change: a file's partner can be disabled (the file does not re-enable it while unchanged).
    expect((await admin('POST', `/${id}/enabled`, { enabled: false })).status).toBe(200);
    await restart();
    expect(await listed(id)).toMatchObject({ enabled: false });
  });

  it('after adopt, an API mapping and profile survive restarts with the unchanged file; the file is reported as a conflict', async () => {
    const id = newId();
    const file = writePartner(id, 'From file', mappingV('file'));
    await restart();

    const adopted = await admin('POST', `/${id}/adopt`);
    expect(adopted.status).toBe(200);
    expect(await adopted.json()).toMatchObject({ source: 'api', file: null, conflict: { file } });
    expect((await admin('PUT', `/${id}/mapping`, { expression: mappingV('api') })).status).toBe(200);
    expect(
      (await admin('PUT', `/${id}`, { name: 'Edited through the API', locationOrganisationId: DEMO.mainDc })).status,
    ).toBe(200);

    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      await restart();
      await restart();
      expect(warn.mock.calls.map(([entry]) => entry)).toContainEqual(
        expect.objectContaining({ msg: 'partner file ignored: the admin API owns the partner', partnerId: id, file }),
      );
    } finally {
      warn.mockRestore();
    }
    expect(await spine.app.get(PartnerMappingRepository).current(id)).toMatchObject({
      version: 2,
      expression: mappingV('api'),
    });
    expect(await versions(id)).toHaveLength(2);
    expect(await listed(id)).toMatchObject({
      name: 'Edited through the API',
      source: 'api',
      conflict: { file, detectedAt: expect.any(String) },
    });

    // The conflict goes when the file does.
    rmSync(file);
    await restart();
    expect(await listed(id)).toMatchObject({ source: 'api', conflict: null });
  });

  it('an API-owned partner is not reverted by a file naming it; release gives it back to the file', async () => {
    const id = newId();
    expect((await admin('PUT', `/${id}`, { name: 'From API', locationOrganisationId: DEMO.mainDc })).status).toBe(200);
    expect((await admin('PUT', `/${id}/mapping`, { expression: mappingV('api') })).status).toBe(200);
    const file = writePartner(id, 'From file', mappingV('file'));

    const result = await importPartners(spine.app.get(PartnerRepository), dir, {
      mappings: spine.app.get(PartnerMappingRepository),
    });
    expect(result.conflicts).toEqual([
      { partnerId: id, file, message: expect.stringContaining(`partner ${id} is owned by the admin API`) },
    ]);
    expect(result.imported).not.toContain(id);
    expect(await listed(id)).toMatchObject({ name: 'From API', source: 'api', conflict: { file } });
    expect(await versions(id)).toEqual([[1, mappingV('api')]]);

    // Given back explicitly: the file is applied at once.
    const released = await admin('POST', `/${id}/release`);
    expect(released.status).toBe(200);
    expect(await released.json()).toMatchObject({ name: 'From file', source: 'file', file, conflict: null });
    expect(await spine.app.get(PartnerMappingRepository).current(id)).toMatchObject({
      version: 2,
      expression: mappingV('file'),
    });
    expect((await admin('POST', '/nobody-at-all/release')).status).toBe(404);
    const other = newId();
    await admin('PUT', `/${other}`, { name: 'No file', locationOrganisationId: DEMO.mainDc });
    expect((await admin('POST', `/${other}/release`)).status).toBe(409);
  });

  it('a partner imported before ownership was recorded keeps a mapping the API published over its unchanged file', async () => {
    const id = newId();
    writePartner(id, 'From file', mappingV('file'));
    await restart();
    // As the migration leaves a row imported by an older version (no hash), with a mapping that
    // version let the API publish over the file's.
    await spine.app.get(DataSource).query(`UPDATE partner SET file_sha256 = NULL WHERE id = $1`, [id]);
    await spine.app.get(PartnerMappingRepository).publish(id, mappingV('api'));

    await restart();
    expect(await spine.app.get(PartnerMappingRepository).current(id)).toMatchObject({
      version: 2,
      expression: mappingV('api'),
    });
    await restart();
    expect(await versions(id)).toHaveLength(2);
  });
});
