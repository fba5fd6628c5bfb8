import { DataSource } from 'typeorm';
import { CANONICAL_CONTENT_TYPE, MessageQueues, translateJobOf } from '@dockbridge/pipeline';
import { DEMO, TestResponse } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

/**
 * For each document the platform ends with the write of the message that arrived last: v1 then v2
 * of many documents under 502s, a batch in flight overtaken by a single write, and replays of old
 * messages (superseded unless forced).
 */
describe('newest write wins per document', () => {
  let spine: Spine;
  const final = ['delivered', 'failed', 'partially_failed', 'rejected', 'duplicate', 'superseded'];
  const write = (id: string, version: string) => ({
    kind: 'document.upsert',
    organisationId: DEMO.mainDc,
    document: { id, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' }, attributes: { version } },
  });
  const post = async (operations: unknown[]): Promise<string> => {
    const response: TestResponse = await fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/json' },
      body: JSON.stringify({ operations }),
    });
    expect(response.status).toBe(202);
    return (await response.json()).messageId;
  };
  const versionAt = async (id: string): Promise<string | null> => {
    const response = await spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/${id}`);
    return response.status === 200 ? ((await response.json()).attributes?.version ?? null) : null;
  };
  const faults = (rules: unknown[]) =>
    spine.sandbox.call('POST', '/__sandbox/faults', { token: null, body: { rules } });
  const operationsOf = (messageId: string): Promise<{ status: string; superseded_by: string | null }[]> =>
    spine.app
      .get(DataSource)
      .query(`SELECT status, superseded_by FROM operation WHERE message_id = $1 ORDER BY seq`, [messageId]);

  beforeAll(async () => {
    spine = await startSpine({ 'delivery.attempts': 30 });
  }, 60_000);
  afterAll(() => spine?.close());
  beforeEach(() => spine.sandbox.reset());

  it('ends every document on v2 when v1 and v2 are sent one after the other, under 30% 502s', async () => {
    await faults([{ method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 502, rate: 0.3 }]);
    const ids = Array.from({ length: 120 }, (_, i) => `PO-NW-${i}`);
    const pairs: [string, string][] = [];
    for (let i = 0; i < ids.length; i += 20) {
      pairs.push(
        ...(await Promise.all(
          ids
            .slice(i, i + 20)
            .map(async (id) => [await post([write(id, 'v1')]), await post([write(id, 'v2')])] as [string, string]),
        )),
      );
    }
    for (const [v1, v2] of pairs) {
      expect(await spine.waitForStatus(v2, final, 60_000)).toBe('delivered');
      expect(['delivered', 'superseded']).toContain(await spine.waitForStatus(v1, final, 60_000));
    }
    const versions = await Promise.all(ids.map(versionAt));
    expect(versions.filter((v) => v !== 'v2')).toEqual([]);
    for (const [v1] of pairs) {
      for (const op of await operationsOf(v1)) {
        expect(op.status === 'delivered' || (op.status === 'superseded' && op.superseded_by !== null)).toBe(true);
      }
    }
  }, 120_000);

  it('holds a single write back behind an older batch still in flight for the same document', async () => {
    await spine.sandbox.call('POST', '/__sandbox/jobs', { token: null, body: { paused: true } });
    try {
      const ids = Array.from({ length: 110 }, (_, i) => `PO-NWB-${i}`);
      const batch = await post(ids.map((id) => write(id, 'v1')));
      // The batch job is submitted and held Queued at the platform; v2 of one of its documents arrives.
      await waitUntil(async () => {
        const ops = await operationsOf(batch);
        return ops.length === ids.length && ops.every((op) => op.status === 'delivering');
      });
      const single = await post([write(ids[7], 'v2')]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await spine.messages.findById(single))!.status).toBe('delivering');
      expect(await versionAt(ids[7])).toBeNull();
      await spine.sandbox.call('POST', '/__sandbox/jobs', { token: null, body: { paused: false } });
      expect(await spine.waitForStatus(batch, final, 60_000)).toBe('delivered');
      expect(await spine.waitForStatus(single, final, 60_000)).toBe('delivered');
      expect(await versionAt(ids[7])).toBe('v2');
      expect(await versionAt(ids[8])).toBe('v1');
    } finally {
      await spine.sandbox.call('POST', '/__sandbox/jobs', { token: null, body: { paused: false } });
    }
  }, 120_000);

  it('holds single and batch writes back until a message the partner sent before them is translated', async () => {
    // Recorded and not yet translated (its translation slow, or queued behind others): it may write the same documents.
    const older = await spine.messages.record({
      partnerId: 'test-wms',
      channel: 'api',
      rawPayload: JSON.stringify({ operations: [write('PO-NWT-0', 'v0')] }),
      contentType: CANONICAL_CONTENT_TYPE,
    });
    const ids = Array.from({ length: 110 }, (_, i) => `PO-NWT-${i}`);
    const single = await post([write(ids[0], 'v1')]);
    const batch = await post(ids.slice(1).map((id) => write(id, 'v1')));
    await waitUntil(async () => (await operationsOf(batch)).length === ids.length - 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await spine.messages.findById(single))!.status).toBe('delivering');
    expect((await spine.messages.findById(batch))!.status).toBe('delivering');
    expect(await Promise.all([versionAt(ids[0]), versionAt(ids[1])])).toEqual([null, null]);

    await spine.app.get(MessageQueues).enqueueTranslate([translateJobOf(older.id)]);
    expect(await spine.waitForStatus(older.id, final, 60_000)).toBe('delivered');
    expect(await spine.waitForStatus(single, final, 60_000)).toBe('delivered');
    expect(await spine.waitForStatus(batch, final, 60_000)).toBe('delivered');
    expect(await versionAt(ids[0])).toBe('v1');
    expect(await versionAt(ids[109])).toBe('v1');
    // The batch waited whole and went as a platform job, not document by document.
    const calls: { request_summary: string }[] = await spine.app
      .get(DataSource)
      .query(
        `SELECT a.request_summary FROM attempt a JOIN operation o ON o.id = a.operation_id WHERE o.message_id = $1`,
        [batch],
      );
    expect(calls).toHaveLength(ids.length - 1);
    expect(calls.filter((call) => !call.request_summary.startsWith('batch document.upsert job '))).toEqual([]);
  }, 120_000);

  it('supersedes a replay of an old message by the newer data, unless the operator forces it', async () => {
    const v1 = await post([write('PO-NWR', 'v1')]);
    expect(await spine.waitForStatus(v1, final)).toBe('delivered');
    const v2 = await post([write('PO-NWR', 'v2')]);
    expect(await spine.waitForStatus(v2, final)).toBe('delivered');

    const replay = await spine.call('POST', `/v1/admin/messages/${v1}/replay`, {
      auth: 'admin',
      body: { mode: 'rerun' },
    });
    const replayId = (await replay.json()).messageId;
    expect(await spine.waitForStatus(replayId, final)).toBe('superseded');
    expect(await versionAt('PO-NWR')).toBe('v2');

    const forced = await spine.call('POST', `/v1/admin/messages/${v1}/replay`, {
      auth: 'admin',
      body: { mode: 'rerun', force: true, reason: 'v2 was wrong' },
    });
    expect(await spine.waitForStatus((await forced.json()).messageId, final)).toBe('delivered');
    expect(await versionAt('PO-NWR')).toBe('v1');
  });

  it('lets an operator end an old write that keeps failing, so the newer one it holds back goes', async () => {
    await faults([{ method: 'PUT', path: '/api/v2/organisations/*/documents/PO-NWE', status: 502, rate: 1 }]);
    const v1 = await post([write('PO-NWE', 'v1')]);
    const attempts = async (id: string): Promise<number> =>
      (
        await spine.app
          .get(DataSource)
          .query(`SELECT coalesce(sum(attempt_count), 0)::int AS n FROM operation WHERE message_id = $1`, [id])
      )[0].n;
    await waitUntil(async () => (await attempts(v1)) > 0);
    const v2 = await post([write('PO-NWE', 'v2')]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await spine.messages.findById(v2))!.status).toBe('delivering'); // held behind v1
    expect(await attempts(v2)).toBe(0);

    const end = (id: string, body: unknown) =>
      spine.call('POST', `/v1/admin/messages/${id}/end`, { auth: 'admin', body });
    expect((await end(v1, {})).status).toBe(400); // a reason is required
    expect((await end('0190a0b0-0000-7000-8000-00000000dead', { reason: 'x' })).status).toBe(404);
    // A retry may be under way at that moment: refused then (409, nothing ended), answered once it is.
    let ended: TestResponse;
    for (;;) {
      ended = await end(v1, { reason: 'the carrier withdrew it', operator: 'jo' });
      if (ended.status !== 409) {
        break;
      }
      expect((await ended.json()).inFlight).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ended.status).toBe(200);
    expect(await ended.json()).toEqual({ messageId: v1, status: 'failed', ended: 1 });
    const [op]: { status: string; last_error: string }[] = await spine.app
      .get(DataSource)
      .query(`SELECT status, last_error FROM operation WHERE message_id = $1`, [v1]);
    expect(op).toEqual({ status: 'failed', last_error: 'ended by operator:jo: the carrier withdrew it' });
    expect((await spine.messages.findById(v1))!.statusReason).toContain('the carrier withdrew it');

    await faults([]);
    expect(await spine.waitForStatus(v2, final)).toBe('delivered');
    expect(await versionAt('PO-NWE')).toBe('v2');
    const again = await end(v1, { reason: 'twice' });
    expect(again.status).toBe(409);
    expect((await again.json()).status).toBe('failed');
    const activity = await (
      await spine.call('GET', `/v1/admin/activity?target=message:${v1}`, { auth: 'admin' })
    ).json();
    expect(activity.items).toEqual([
      expect.objectContaining({
        action: 'message.end',
        summary: 'ended 1 operation(s), now failed: the carrier withdrew it',
      }),
    ]);
  });

  it('refuses to end a message while a platform job holds its operations', async () => {
    await spine.sandbox.call('POST', '/__sandbox/jobs', { token: null, body: { paused: true } });
    try {
      const ids = Array.from({ length: 110 }, (_, i) => `PO-NWEB-${i}`);
      const batch = await post(ids.map((id) => write(id, 'v1')));
      await waitUntil(async () => {
        const ops = await operationsOf(batch);
        return ops.length === ids.length && ops.every((op) => op.status === 'delivering');
      });
      const refused = await spine.call('POST', `/v1/admin/messages/${batch}/end`, {
        auth: 'admin',
        body: { reason: 'too late' },
      });
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ inFlight: ids.length, inFlightUntil: expect.any(String) });
      expect((await operationsOf(batch)).every((op) => op.status === 'delivering')).toBe(true);
      await spine.sandbox.call('POST', '/__sandbox/jobs', { token: null, body: { paused: false } });
      expect(await spine.waitForStatus(batch, final, 60_000)).toBe('delivered');
    } finally {
      await spine.sandbox.call('POST', '/__sandbox/jobs', { token: null, body: { paused: false } });
    }
  }, 120_000);

  it('leaves each document on its newest message after a forced bulk replay of them all', async () => {
    const v1 = await post([write('PO-NWBR', 'v1')]);
    expect(await spine.waitForStatus(v1, final)).toBe('delivered');
    const v2 = await post([write('PO-NWBR', 'v2')]);
    expect(await spine.waitForStatus(v2, final)).toBe('delivered');

    // Forced replays order as new messages, in the order the run records them: oldest original first.
    const started = await spine.call('POST', '/v1/admin/messages/replay', {
      auth: 'admin',
      body: { documentId: 'PO-NWBR', dryRun: false, force: true, reason: 'resend the document' },
    });
    expect(started.status).toBe(202);
    const { runId } = await started.json();
    await waitUntil(
      async () =>
        (await (await spine.call('GET', `/v1/admin/replays/${runId}`, { auth: 'admin' })).json()).status ===
        'completed',
    );
    const replays: { id: string; replay_of: string }[] = await spine.app
      .get(DataSource)
      .query(`SELECT id, replay_of FROM message WHERE replay_of = ANY($1::uuid[]) ORDER BY arrival`, [[v1, v2]]);
    expect(replays.map((r) => r.replay_of)).toEqual([v1, v2]);
    for (const { id } of replays) {
      expect(await spine.waitForStatus(id, final)).toBe('delivered');
    }
    expect(await versionAt('PO-NWBR')).toBe('v2');
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`not true after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
