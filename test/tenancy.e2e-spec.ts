import { PartnerMappingRepository, PartnerRepository, WebhookSecretRepository } from '@dockbridge/partners';
import { DEMO, TestResponse } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

/**
 * A partner acts only on the organisations its profile names (its location by default): partner B,
 * located at Cross Dock, must not touch partner A's documents at Main DC through `POST
 * /v1/messages`, a webhook mapping, or a replay — unless an operator overrides it, on the record.
 */
describe('tenancy: partners confined to their organisations', () => {
  let spine: Spine;
  let keyB: string;
  const final = ['delivered', 'failed', 'partially_failed', 'rejected', 'duplicate'];
  const WEBHOOK_KEY = 'partner-b-webhook-key-0123456789';

  const upsert = (organisationId: string, id: string) => ({
    kind: 'document.upsert',
    organisationId,
    document: { id, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
  });
  const remove = (organisationId: string, documentId: string) => ({
    kind: 'document.delete',
    organisationId,
    documentId,
  });
  const postAs = (key: string, operations: unknown[]): Promise<TestResponse> =>
    fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ operations }),
    });
  const documentAt = (organisationId: string, id: string) =>
    spine.sandbox.call('GET', `/api/v2/organisations/${organisationId}/documents/${id}`);
  const partnersOf = () => spine.app.get(PartnerRepository);
  const setOrganisationsOfB = async (organisations: string[] | undefined) => {
    const b = (await partnersOf().findById('partner-b'))!;
    await partnersOf().upsert({ ...b, settings: { ...b.settings, organisations } }, 'api');
  };

  beforeAll(async () => {
    spine = await startSpine();
    await partnersOf().upsert(
      {
        id: 'partner-b',
        name: 'Partner B',
        locationOrganisationId: DEMO.crossDock,
        settings: { webhook: { verification: 'api-key', apiKeyHeader: 'x-hook-key' } },
      },
      'api',
    );
    keyB = (await partnersOf().issueApiKey('partner-b', { label: 'tests' })).key;
    await spine.app.get(WebhookSecretRepository).add('partner-b', { label: 'tests', secret: WEBHOOK_KEY });
    // The mapping puts the document wherever the body says: the profile, not the mapping, decides what B may touch.
    await spine.app
      .get(PartnerMappingRepository)
      .publish('partner-b', '{ "kind": "document.delete", "organisationId": org, "documentId": doc }');
  }, 60_000);
  afterAll(() => spine?.close());
  beforeEach(async () => {
    await spine.sandbox.reset();
    await setOrganisationsOfB(undefined);
  });

  /** A's document PO-A1 at Main DC, delivered. */
  const documentOfA = async () => {
    const response = await postAs(spine.partnerKey, [upsert(DEMO.mainDc, 'PO-A1')]);
    expect(response.status).toBe(202);
    expect(await spine.waitForStatus((await response.json()).messageId, final)).toBe('delivered');
    expect((await documentAt(DEMO.mainDc, 'PO-A1')).status).toBe(200);
  };

  it("refuses at ingress an operation on another partner's organisation, naming the operation and the organisation", async () => {
    await documentOfA();
    const before = await spine.messages.countBy({ partnerId: 'partner-b' });
    const response = await postAs(keyB, [upsert(DEMO.crossDock, 'PO-B1'), remove(DEMO.mainDc, 'PO-A1')]);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toMatch(/outside the organisations this partner may act on/);
    expect(body.details[0]).toBe(
      `operations[1] (document.delete) acts on organisation ${DEMO.mainDc}, which this partner may not act on`,
    );
    expect(body.details).toContain(`partner partner-b may act on: ${DEMO.crossDock}`);
    expect(await spine.messages.countBy({ partnerId: 'partner-b' })).toBe(before);
    expect((await documentAt(DEMO.mainDc, 'PO-A1')).status).toBe(200);

    for (const operation of [
      {
        kind: 'booking.status',
        organisationId: DEMO.mainDc,
        bookingId: 'MDB-1',
        statusId: '5a1e0000-0000-4000-8000-000000000002',
      },
      {
        kind: 'vehicle.update',
        organisationId: DEMO.mainDc.toUpperCase(),
        vehicleId: DEMO.truck1,
        vehicle: { name: 'x' },
      },
    ]) {
      const refused = await postAs(keyB, [operation]);
      expect(refused.status).toBe(400);
      expect((await refused.json()).details[0]).toContain(
        `(${operation.kind}) acts on organisation ${operation.organisationId}`,
      );
    }
  });

  it('accepts operations on organisations the profile names besides the location', async () => {
    await setOrganisationsOfB([DEMO.mainDc]);
    const response = await postAs(keyB, [upsert(DEMO.mainDc, 'PO-B2')]);
    expect(response.status).toBe(202);
    expect(await spine.waitForStatus((await response.json()).messageId, final)).toBe('delivered');
    expect((await documentAt(DEMO.mainDc, 'PO-B2')).status).toBe(200);
  });

  it("rejects a mapped webhook whose operations reach another partner's organisation, with the reason", async () => {
    await documentOfA();
    const response: TestResponse = await fetch(`${spine.url}/v1/webhooks/partner-b`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hook-key': WEBHOOK_KEY },
      body: JSON.stringify({ org: DEMO.mainDc, doc: 'PO-A1' }),
    });
    expect(response.status).toBe(202);
    const { messageId } = await response.json();
    expect(await spine.waitForStatus(messageId, final)).toBe('rejected');
    expect((await spine.messages.findById(messageId))!.statusReason).toBe(
      `operations outside the organisations partner partner-b may act on: operations[0] (document.delete) acts on organisation ${DEMO.mainDc}, which this partner may not act on`,
    );
    expect((await documentAt(DEMO.mainDc, 'PO-A1')).status).toBe(200);
  });

  it("refuses an edit-and-replay onto another partner's organisation unless the operator overrides it, on the record", async () => {
    await documentOfA();
    const sent = await postAs(keyB, [upsert(DEMO.crossDock, 'PO-B3')]);
    const original = (await sent.json()).messageId;
    await spine.waitForStatus(original, final); // the sandbox's token does not reach Cross Dock: failed, which does not matter here
    const edited = { operations: [remove(DEMO.mainDc, 'PO-A1')] };

    const refused = await spine.call('POST', `/v1/admin/messages/${original}/replay`, {
      auth: 'admin',
      body: { payload: edited },
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).details).toEqual([
      `operations[0] (document.delete) acts on organisation ${DEMO.mainDc}, which this partner may not act on`,
    ]);
    expect(await spine.messages.countBy({ partnerId: 'partner-b', channel: 'replay' })).toBe(0);

    const invalid = await spine.call('POST', `/v1/admin/messages/${original}/replay`, {
      auth: 'admin',
      body: { payload: { operations: [{ kind: 'document.delete' }] } },
    });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).details.join(' ')).toMatch(/organisationId/);

    const overridden = await spine.call('POST', `/v1/admin/messages/${original}/replay`, {
      auth: 'admin',
      body: { payload: edited, overrideOrganisations: true, operator: 'dana', reason: 'B took over the PO' },
    });
    expect(overridden.status).toBe(202);
    const replayId = (await overridden.json()).messageId;
    expect(await spine.waitForStatus(replayId, final)).toBe('delivered');
    expect((await documentAt(DEMO.mainDc, 'PO-A1')).status).toBe(404);
    const detail = (await (await spine.call('GET', `/v1/admin/messages/${replayId}`, { auth: 'admin' })).json()) as {
      message: { metadata: { replay: Record<string, unknown> } };
      events: { reason: string | null }[];
    };
    expect(detail.message.metadata.replay).toMatchObject({
      by: 'operator:dana',
      reason: 'B took over the PO',
      organisationOverride: true,
    });
    expect(detail.events.map((e) => e.reason).join('\n')).toContain(
      `organisation scope of partner partner-b overridden by operator:dana: operations[0] (document.delete) acts on organisation ${DEMO.mainDc}`,
    );
  });

  it('rejects a plain replay whose operations left the profile since, and the override does not carry over to a replay of the replay', async () => {
    await setOrganisationsOfB([DEMO.mainDc]);
    const sent = await postAs(keyB, [upsert(DEMO.mainDc, 'PO-B4')]);
    const original = (await sent.json()).messageId;
    expect(await spine.waitForStatus(original, final)).toBe('delivered');
    await setOrganisationsOfB(undefined);

    const rerun = await spine.call('POST', `/v1/admin/messages/${original}/replay`, {
      auth: 'admin',
      body: { mode: 'rerun' },
    });
    expect(rerun.status).toBe(202);
    const rerunId = (await rerun.json()).messageId;
    expect(await spine.waitForStatus(rerunId, final)).toBe('rejected');
    expect((await spine.messages.findById(rerunId))!.statusReason).toMatch(
      /^operations outside the organisations partner partner-b may act on: operations\[0\] \(document.upsert\)/,
    );

    const forced = await spine.call('POST', `/v1/admin/messages/${original}/replay`, {
      auth: 'admin',
      body: { mode: 'rerun', overrideOrganisations: true },
    });
    const forcedId = (await forced.json()).messageId;
    expect(await spine.waitForStatus(forcedId, final)).toBe('delivered');
    const again = await spine.call('POST', `/v1/admin/messages/${forcedId}/replay`, {
      auth: 'admin',
      body: { mode: 'rerun' },
    });
    expect(await spine.waitForStatus((await again.json()).messageId, final)).toBe('rejected');
  });
});
