import { DataSource } from 'typeorm';
import { OperatorTokenRepository } from '@dockbridge/audit';
import { DEMO, TestResponse } from './support/sandbox';
import { ADMIN_TOKEN, Spine, startSpine } from './support/spine';

const upsert = (id: string) => ({
  kind: 'document.upsert',
  organisationId: DEMO.mainDc,
  document: { id, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
});

describe('operator accounts: named tokens with a role, and who did what', () => {
  let spine: Spine;
  beforeAll(async () => (spine = await startSpine()), 60_000);
  afterAll(() => spine?.close());

  /** A call to the admin API with `token` as the bearer. */
  const as = (token: string, method: string, path: string, body?: unknown): Promise<TestResponse> =>
    fetch(spine.url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const issue = async (name: string, role: string, by = ADMIN_TOKEN) => {
    const response = await as(by, 'POST', '/v1/admin/operators', { name, role });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; token: string; name: string; role: string; hint: string };
  };

  const delivered = async (documentId: string) => {
    const { messageId } = await (
      await spine.call('POST', '/v1/messages', { body: { operations: [upsert(documentId)] } })
    ).json();
    await spine.waitForStatus(messageId, ['delivered']);
    return messageId as string;
  };

  it('knows the bootstrap token as admin, and a named token by its name and role', async () => {
    expect(await (await as(ADMIN_TOKEN, 'GET', '/v1/admin/me')).json()).toEqual({ name: 'admin', role: 'admin' });
    const viewer = await issue('vera', 'viewer');
    expect(viewer.token).toMatch(/^dbo_[A-Za-z0-9_-]{43}$/);
    expect(viewer.hint).toBe(`${viewer.token.slice(0, 10)}…`);
    expect(await (await as(viewer.token, 'GET', '/v1/admin/me')).json()).toEqual({ name: 'vera', role: 'viewer' });
  });

  it('shows a token only when it is issued, and never stores it in the clear', async () => {
    const issued = await issue('tess', 'operator');
    const listed = await (await as(ADMIN_TOKEN, 'GET', '/v1/admin/operators')).json();
    expect(listed.find((t: { id: string }) => t.id === issued.id)).toMatchObject({
      name: 'tess',
      role: 'operator',
      createdBy: 'operator:admin',
      revokedAt: null,
    });
    expect(JSON.stringify(listed)).not.toContain(issued.token);
    const stored = await spine.app.get(DataSource).query(`SELECT * FROM operator_token WHERE id = $1`, [issued.id]);
    expect(JSON.stringify(stored)).not.toContain(issued.token.slice(10));
  });

  it('lets a viewer read but not replay, edit partners or see tokens', async () => {
    const { token } = await issue('val', 'viewer');
    const messageId = await delivered('OPS-V1');
    expect((await as(token, 'GET', `/v1/admin/messages/${messageId}`)).status).toBe(200);
    expect((await as(token, 'GET', '/v1/admin/partners')).status).toBe(200);
    const replay = await as(token, 'POST', `/v1/admin/messages/${messageId}/replay`, {});
    expect(replay.status).toBe(403);
    expect((await replay.json()).details.join(' ')).toMatch(/val is a viewer: this needs the operator role/);
    expect((await as(token, 'POST', '/v1/admin/messages/replay', { dryRun: true })).status).toBe(403);
    expect((await as(token, 'PUT', '/v1/admin/partners/viewer-made', { name: 'X' })).status).toBe(403);
    expect((await as(token, 'GET', '/v1/admin/operators')).status).toBe(403);
    expect((await as(token, 'POST', '/v1/admin/operators', { name: 'mallory', role: 'admin' })).status).toBe(403);
    // Every role reads the queue dashboard.
    expect((await as(token, 'GET', '/admin/queues')).status).toBe(200);
  });

  it("lets an operator replay, recorded under the operator's own name, but not change partners", async () => {
    const { token } = await issue('olga', 'operator');
    const messageId = await delivered('OPS-O1');
    // The request's `operator` field cannot make a named token's replay someone else's.
    const replay = await as(token, 'POST', `/v1/admin/messages/${messageId}/replay`, { operator: 'someone-else' });
    expect(replay.status).toBe(202);
    const { messageId: replayId } = await replay.json();
    const detail = await (await as(token, 'GET', `/v1/admin/messages/${replayId}`)).json();
    expect(detail.events.map((e: { actor: string }) => e.actor)).toContain('operator:olga');
    expect(JSON.stringify(detail)).not.toContain('someone-else');
    expect((await as(token, 'PUT', '/v1/admin/partners/olga-made', { name: 'X' })).status).toBe(403);
    expect((await as(token, 'POST', '/v1/admin/partners/test-wms/api-keys', { label: 'x' })).status).toBe(403);

    const activity = await (await as(token, 'GET', `/v1/admin/activity?target=message:${messageId}`)).json();
    expect(activity.items).toEqual([
      expect.objectContaining({
        actor: 'operator:olga',
        role: 'operator',
        action: 'message.replay',
        summary: `replayed as ${replayId} (rerun)`,
      }),
    ]);
  });

  it('refuses a revoked token from the next call, and an expired one', async () => {
    const issued = await issue('rex', 'viewer');
    expect((await as(issued.token, 'GET', '/v1/admin/me')).status).toBe(200);
    const revoked = await as(ADMIN_TOKEN, 'DELETE', `/v1/admin/operators/${issued.id}`);
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ id: issued.id, name: 'rex', revokedAt: expect.any(String) });
    expect((await as(issued.token, 'GET', '/v1/admin/me')).status).toBe(401);
    // The name is free again once its token is revoked.
    const again = await issue('rex', 'viewer');
    expect((await as(again.token, 'GET', '/v1/admin/me')).status).toBe(200);

    const { token: expired } = await spine.app.get(OperatorTokenRepository).create({
      name: 'ex',
      role: 'admin',
      createdBy: 'operator:admin',
      expiresAt: new Date(Date.now() - 1000),
    });
    expect((await as(expired, 'GET', '/v1/admin/me')).status).toBe(401);
    expect((await as('dbo_' + 'A'.repeat(43), 'GET', '/v1/admin/me')).status).toBe(401);
  });

  it('refuses a second active token with the same name, and an expiry in the past', async () => {
    await issue('dup', 'viewer');
    const second = await as(ADMIN_TOKEN, 'POST', '/v1/admin/operators', { name: 'dup', role: 'admin' });
    expect(second.status).toBe(409);
    expect((await second.json()).details.join(' ')).toMatch(/an active token named dup exists/);
    const past = await as(ADMIN_TOKEN, 'POST', '/v1/admin/operators', {
      name: 'late',
      role: 'viewer',
      expiresAt: '2020-01-01T00:00:00Z',
    });
    expect(past.status).toBe(400);
    const bad = await as(ADMIN_TOKEN, 'POST', '/v1/admin/operators', { name: 'a b', role: 'root' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).details.join(' ')).toMatch(/name must be .*role must be one of/s);
  });

  it('records every partner change by whom, and never a secret, password or key', async () => {
    const { token } = await issue('ada', 'admin');
    const secret = 'whsec_do-not-log-this-secret-0123456789';
    const password = 'do-not-log-this-password';
    expect(
      (await as(token, 'PUT', '/v1/admin/partners/ada-wms', { name: 'Ada WMS', locationOrganisationId: DEMO.mainDc }))
        .status,
    ).toBe(200);
    const key = await (await as(token, 'POST', '/v1/admin/partners/ada-wms/api-keys', { label: 'prod' })).json();
    expect(
      (await as(token, 'POST', '/v1/admin/partners/ada-wms/webhook-secrets', { label: 'r1', secret })).status,
    ).toBe(201);
    expect(
      (await as(token, 'POST', '/v1/admin/partners/ada-wms/sftp-users', { username: 'ada_sftp', password })).status,
    ).toBe(201);
    expect((await as(token, 'POST', '/v1/admin/partners/ada-wms/enabled', { enabled: false })).status).toBe(200);
    // A refused change is not an activity.
    expect((await as(token, 'PUT', '/v1/admin/partners/ada-wms', { nmae: 'typo' })).status).toBe(400);

    const page = await (await as(token, 'GET', '/v1/admin/activity?target=partner:ada-wms')).json();
    expect(page.items.map((e: { action: string }) => e.action)).toEqual([
      'partner.enable',
      'sftp-user.set',
      'webhook-secret.add',
      'api-key.issue',
      'partner.save',
    ]);
    expect(page.items.every((e: { actor: string }) => e.actor === 'operator:ada')).toBe(true);
    expect(page.items[0].summary).toBe('disabled ada-wms');
    expect(page.items[1].summary).toBe('set SFTP user ada_sftp: password');
    const text = JSON.stringify(await spine.app.get(DataSource).query(`SELECT * FROM operator_activity`));
    for (const hidden of [secret, password, key.key]) {
      expect(text).not.toContain(hidden);
    }
  });

  it('pages the activity log newest first', async () => {
    const { token } = await issue('pam', 'admin');
    for (const n of [1, 2, 3]) {
      await as(token, 'PUT', `/v1/admin/partners/pam-${n}`, { name: `Pam ${n}`, locationOrganisationId: DEMO.mainDc });
    }
    const first = await (await as(token, 'GET', '/v1/admin/activity?limit=2')).json();
    expect(first.items.map((e: { target: string }) => e.target)).toEqual(['partner:pam-3', 'partner:pam-2']);
    const second = await (await as(token, 'GET', `/v1/admin/activity?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.items[0].target).toBe('partner:pam-1');
    expect((await as(token, 'GET', '/v1/admin/activity?limit=0')).status).toBe(400);
  });
});
