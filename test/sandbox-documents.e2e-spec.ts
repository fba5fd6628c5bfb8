import { DEMO, RunningSandbox, startSandbox } from './support/sandbox';

const docs = (orgId: string = DEMO.mainDc) => `/api/v2/organisations/${orgId}/documents`;

const purchaseOrder = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  direction: 'Inbound',
  occupant: { coreName: 'ACME', coreId: 'DC01' },
  offsite: { coreName: 'ACME', coreId: 'SUP-KETTLE' },
  carrier: { id: DEMO.fastFreight },
  loads: [{ name: 'Pallet', quantity: 12, loadTag: 'SKU-100' }],
  settings: { mode: 'Fixed', maxUses: 1 },
  validDates: { begin: '2026-12-01T00:00:00Z', end: '2026-12-02T00:00:00Z' },
  type: { name: 'PurchaseOrder' },
  status: { name: 'Original' },
  ...extra,
});

describe('sandbox REST documents', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => (sandbox = await startSandbox()));
  afterAll(() => sandbox.close());
  beforeEach(() => sandbox.reset());

  describe('authentication and permissions', () => {
    it('answers 401 for a missing, invalid or expired token, with the REST error body', async () => {
      for (const token of [null, 'not-a-token', DEMO.tokens.expired]) {
        const response = await sandbox.call('GET', docs(), { token });
        expect(response.status).toBe(401);
        const body = await response.json();
        expect(body).toEqual({ error: 'Unauthorized', details: [expect.any(String)] });
      }
    });

    it('answers 403 without the permission, or for an organisation the token does not act for', async () => {
      const write = await sandbox.call('PUT', `${docs()}/PO-1?upsert=true`, {
        token: DEMO.tokens.readonly,
        body: purchaseOrder('PO-1'),
      });
      expect(write.status).toBe(403);
      expect((await write.json()).details[0]).toMatch(/ManageDocuments/);
      const other = await sandbox.call('GET', docs(DEMO.crossDock), { token: DEMO.tokens.readonly });
      expect(other.status).toBe(403);
      expect((await other.json()).details[0]).toMatch(DEMO.crossDock);
    });
  });

  describe('single-document operations', () => {
    it('POST creates (201 with the resolved Document) and refuses an existing id with 409', async () => {
      const created = await sandbox.call('POST', docs(), { body: purchaseOrder('PO-1') });
      expect(created.status).toBe(201);
      const document = await created.json();
      expect(document).toMatchObject({
        id: 'PO-1',
        occupant: { id: DEMO.mainDc, name: 'Main DC', coreName: 'ACME', coreId: 'DC01' },
        offsite: { id: DEMO.kettleFoods, name: 'Kettle Foods', coreName: 'ACME', coreId: 'SUP-KETTLE' },
        carrier: { id: DEMO.fastFreight, name: 'Fast Freight', coreName: 'SCAC', coreId: 'FFRT' },
        loads: [{ name: 'Pallet', quantity: 12, loadTag: 'SKU-100' }],
      });
      expect(Date.parse(document.createDate)).not.toBeNaN();
      expect(document.updateDate).toBe(document.createDate);
      expect(document).not.toHaveProperty('uses');

      const again = await sandbox.call('POST', docs(), { body: purchaseOrder('PO-1') });
      expect(again.status).toBe(409);
    });

    it('GET returns the document, 404 for an unknown id', async () => {
      await sandbox.call('POST', docs(), { body: purchaseOrder('PO-2') });
      const found = await sandbox.call('GET', `${docs()}/PO-2`);
      expect(found.status).toBe(200);
      expect((await found.json()).id).toBe('PO-2');
      const missing = await sandbox.call('GET', `${docs()}/NOPE`);
      expect(missing.status).toBe(404);
      expect((await missing.json()).details[0]).toMatch(/NOPE/);
    });

    it('counts every write carried out in stats.documentWrites, a write whose answer the caller never got included', async () => {
      await sandbox.call('POST', '/__sandbox/faults', {
        token: null,
        body: {
          rules: [
            { method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 0, answerLatencyMs: 1000, count: 1 },
          ],
        },
      });
      // The caller gives up before the answer: the write was done all the same.
      await expect(
        fetch(`${sandbox.url}${docs()}/PO-W?upsert=true`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${DEMO.tokens.location}`, 'content-type': 'application/json' },
          body: JSON.stringify(purchaseOrder('PO-W')),
          signal: AbortSignal.timeout(200),
        }),
      ).rejects.toThrow();
      expect((await sandbox.call('PUT', `${docs()}/PO-W?upsert=true`, { body: purchaseOrder('PO-W') })).status).toBe(
        200,
      );
      expect((await sandbox.call('DELETE', `${docs()}/PO-W`)).status).toBe(200);
      expect((await sandbox.call('PUT', `${docs()}/PO-W`, { body: purchaseOrder('PO-W') })).status).toBe(404);
      const stats = await (await sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
      expect(stats.documentWrites).toEqual({ [DEMO.mainDc]: 3 });
      await sandbox.reset();
      expect((await (await sandbox.call('GET', '/__sandbox/stats', { token: null })).json()).documentWrites).toEqual(
        {},
      );
    });

    it('plain PUT updates (200) or answers 404; with upsert=true 201 created then 200 updated, no body', async () => {
      const missing = await sandbox.call('PUT', `${docs()}/PO-3`, { body: purchaseOrder('PO-3') });
      expect(missing.status).toBe(404);

      const created = await sandbox.call('PUT', `${docs()}/PO-3?upsert=true`, { body: purchaseOrder('PO-3') });
      expect(created.status).toBe(201);
      expect(await created.text()).toBe('');

      const updated = await sandbox.call('PUT', `${docs()}/PO-3`, {
        body: purchaseOrder('PO-3', { description: 'second' }),
      });
      expect(updated.status).toBe(200);
      const upserted = await sandbox.call('PUT', `${docs()}/PO-3?upsert=true`, {
        body: purchaseOrder('PO-3', { description: 'third' }),
      });
      expect(upserted.status).toBe(200);

      const document = await (await sandbox.call('GET', `${docs()}/PO-3`)).json();
      expect(document.description).toBe('third');
      expect(Date.parse(document.updateDate)).toBeGreaterThanOrEqual(Date.parse(document.createDate));
    });

    it('PUT refuses a body whose id differs from the path', async () => {
      const response = await sandbox.call('PUT', `${docs()}/PO-4?upsert=true`, { body: purchaseOrder('PO-5') });
      expect(response.status).toBe(400);
      expect((await response.json()).details).toEqual([expect.stringMatching(/^id: /)]);
    });

    it('DELETE removes (200) and answers 404 for an unknown id', async () => {
      await sandbox.call('POST', docs(), { body: purchaseOrder('PO-6') });
      expect((await sandbox.call('DELETE', `${docs()}/PO-6`)).status).toBe(200);
      expect((await sandbox.call('GET', `${docs()}/PO-6`)).status).toBe(404);
      expect((await sandbox.call('DELETE', `${docs()}/PO-6`)).status).toBe(404);
    });

    it('400 names every offending field of an invalid payload', async () => {
      const response = await sandbox.call('POST', docs(), {
        body: { ...purchaseOrder('PO-7'), direction: 'Up', loads: [{ name: 'Pallet' }], settings: { mode: 'Rigid' } },
      });
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.error).toBe('Invalid document');
      expect(body.details).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^direction /),
          expect.stringMatching(/^loads\[0\]\.quantity /),
          expect.stringMatching(/^settings\.mode /),
        ]),
      );
    });

    it('takes free-form attributes named like what every object inherits (it answered 500)', async () => {
      const attributes = JSON.parse('{"constructor":"x","valueOf":"y","toString":"z"}');
      const created = await sandbox.call('POST', docs(), { body: { ...purchaseOrder('PO-11'), attributes } });
      expect(created.status).toBe(201);
      expect((await (await sandbox.call('GET', `${docs()}/PO-11`)).json()).attributes).toEqual(attributes);
      const unknown = await sandbox.call('POST', docs(), {
        raw: JSON.stringify(purchaseOrder('PO-12')).replace('{', '{"valueOf":1,'),
      });
      expect(unknown.status).toBe(400);
      expect((await unknown.json()).details).toEqual(['valueOf: unknown field']);
    });

    it('400 for a document without any party, and for malformed JSON', async () => {
      const { occupant, offsite, carrier, ...noParty } = purchaseOrder('PO-8');
      const response = await sandbox.call('POST', docs(), { body: noParty });
      expect(response.status).toBe(400);
      expect((await response.json()).details[0]).toMatch(/at least one of occupant, offsite, carrier/);
      const malformed = await sandbox.call('POST', docs(), { raw: '{"id": ' });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({ error: expect.any(String), details: [expect.any(String)] });
    });

    it('400 on every document operation where documents are not enabled', async () => {
      const response = await sandbox.call('PUT', `${docs(DEMO.crossDock)}/PO-9?upsert=true`, {
        body: purchaseOrder('PO-9'),
      });
      expect(response.status).toBe(400);
      expect((await response.json()).details[0]).toMatch(/not enabled/);
      expect((await sandbox.call('GET', docs(DEMO.crossDock))).status).toBe(400);
    });
  });

  describe('OrgRef resolution', () => {
    it('refuses an unknown Core ID with 400 naming the field, unless enableBaseOrgs creates it', async () => {
      const body = purchaseOrder('PO-10', {
        offsite: { coreName: 'ACME', coreId: 'SUP-NEW' },
        carrier: { coreName: 'SCAC', coreId: 'NEWC' },
      });
      const refused = await sandbox.call('PUT', `${docs()}/PO-10?upsert=true`, { body });
      expect(refused.status).toBe(400);
      const details: string[] = (await refused.json()).details;
      expect(details).toEqual([
        expect.stringMatching(/^offsite: .*SUP-NEW/),
        expect.stringMatching(/^carrier: .*NEWC/),
      ]);

      const accepted = await sandbox.call('PUT', `${docs()}/PO-10?upsert=true&enableBaseOrgs=true`, { body });
      expect(accepted.status).toBe(201);
      const document = await (await sandbox.call('GET', `${docs()}/PO-10`)).json();
      expect(document.offsite).toMatchObject({
        coreName: 'ACME',
        coreId: 'SUP-NEW',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect(document.carrier).toMatchObject({ coreName: 'SCAC', coreId: 'NEWC' });

      // Created once: the next document resolves the same organisation without the flag.
      const again = await sandbox.call('PUT', `${docs()}/PO-11?upsert=true`, { body: { ...body, id: 'PO-11' } });
      expect(again.status).toBe(201);
      const second = await (await sandbox.call('GET', `${docs()}/PO-11`)).json();
      expect(second.offsite.id).toBe(document.offsite.id);
    });

    it('refuses an id reference to an organisation not connected to the location', async () => {
      const response = await sandbox.call('POST', docs(), {
        body: purchaseOrder('PO-12', { carrier: { id: '00000000-0000-4000-8000-000000000000' } }),
      });
      expect(response.status).toBe(400);
      expect((await response.json()).details[0]).toMatch(/^carrier\.id: .*not connected/);
    });

    it('matches the occupant by selfCoreId', async () => {
      const body = purchaseOrder('PO-13', { occupant: { coreName: 'GS1', coreId: '0614141000005' } });
      expect((await sandbox.call('POST', docs(), { body })).status).toBe(400);
      const response = await sandbox.call('POST', `${docs()}?selfCoreId=0614141000005`, { body });
      expect(response.status).toBe(201);
      expect((await response.json()).occupant.id).toBe(DEMO.mainDc);
    });
  });

  describe('list', () => {
    beforeEach(async () => {
      for (let i = 0; i < 25; i++) {
        const id = `PO-${String(i).padStart(3, '0')}`;
        await sandbox.call('PUT', `${docs()}/${id}?upsert=true`, { body: purchaseOrder(id) });
      }
    });

    it('pages from 1 in id order with start = (pageNumber-1)*pageSize', async () => {
      const page = await (await sandbox.call('GET', `${docs()}?pageNumber=2&pageSize=10`)).json();
      expect(page).toMatchObject({ start: 10, pageSize: 10, totalPages: 3, totalRecords: 25 });
      expect(page.data.map((d: { id: string }) => d.id)).toEqual(
        Array.from({ length: 10 }, (_, i) => `PO-${String(i + 10).padStart(3, '0')}`),
      );
      const defaults = await (await sandbox.call('GET', docs())).json();
      expect(defaults).toMatchObject({ start: 0, pageSize: 100, totalPages: 1, totalRecords: 25 });
    });

    it('answers a page past the last with 200 and empty data', async () => {
      const response = await sandbox.call('GET', `${docs()}?pageNumber=9&pageSize=10`);
      expect(response.status).toBe(200);
      expect((await response.json()).data).toEqual([]);
    });

    it('refuses pageSize over 1000 and pageNumber 0 with 400 naming the parameter', async () => {
      const big = await sandbox.call('GET', `${docs()}?pageSize=1001`);
      expect(big.status).toBe(400);
      expect((await big.json()).details[0]).toMatch(/^pageSize/);
      const zero = await sandbox.call('GET', `${docs()}?pageNumber=0`);
      expect(zero.status).toBe(400);
      expect((await zero.json()).details[0]).toMatch(/^pageNumber/);
    });
  });
});
