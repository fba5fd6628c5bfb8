import { Logger } from '@nestjs/common';
import type { Message, MessageRepository, MessageSearch, NewMessage, OperationRepository } from '@dockbridge/audit';
import type { PartnerRepository } from '@dockbridge/partners';
import type { MessageQueues, TranslateJob } from '../message-queues';
import { inspectJson } from '../json-in-turns';
import { CANONICAL_CONTENT_TYPE } from '../translate/translators';
import { BULK_REPLAY_LIMIT, MAX_REPLAY_WEIGHT, ReplayError, ReplayMessage, ReplayRequest } from './replay-message';

const PARTNER = 'partner-1';
const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const OTHER_ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e02';
const EDI = 'application/edi-x12';

const upsert = (organisationId: string, id = 'PO-1') => ({
  kind: 'document.upsert',
  organisationId,
  document: { id, direction: 'Inbound', occupant: { id: organisationId } },
});

function message(id: string, extra: Partial<Message> = {}): Message {
  return {
    id,
    partnerId: PARTNER,
    channel: 'sftp',
    rawPayload: 'ISA*00~',
    contentType: EDI,
    status: 'failed',
    statusReason: null,
    metadata: { fileName: 'po.edi', idempotencyKey: 'k-1', ingressJob: 'job-1' },
    ...extra,
  } as Message;
}

/** ReplayMessage over in-memory fakes: messages by id, failed operations by message, one partner. */
function replays(
  originals: Message[],
  options: {
    failed?: Record<string, object[]>;
    failedWeight?: number;
    latest?: Record<string, { id: string; status: string }>;
    partner?: { locationOrganisationId: string; settings: { organisations?: string[] } } | null;
    findById?: (id: string) => Promise<Message | null>;
  } = {},
) {
  const recorded: NewMessage[] = [];
  const enqueued: TranslateJob[][] = [];
  const asked: unknown[][] = [];
  const byId = new Map(originals.map((m) => [m.id, m]));
  const messages = {
    findById: options.findById ?? (async (id: string) => byId.get(id) ?? null),
    record: async (input: NewMessage) => {
      recorded.push(input);
      return { ...input, id: `replay-${recorded.length}` };
    },
    orderArrivalOf: async (id: string) => `arrival-of-${id}`,
    latestReplays: async (ids: readonly string[]) => {
      asked.push(['latestReplays', ids]);
      return new Map(ids.flatMap((id) => (options.latest?.[id] ? [[id, options.latest[id]]] : [])));
    },
    search: async ({ limit = 50, cursor, ...filter }: MessageSearch) => {
      asked.push(['search', { limit, cursor, ...filter }]);
      const start = cursor ? originals.findIndex((m) => m.id === cursor) + 1 : 0;
      const rows = originals.slice(start, start + limit + 1);
      const items = rows.slice(0, limit).map(({ id }) => ({ id }));
      return { items, nextCursor: rows.length > limit ? items[items.length - 1].id : null };
    },
  } as unknown as MessageRepository;
  const operations = {
    failedOperationsJson: async (id: string, maxWeight: number) => {
      const failed = options.failed?.[id] ?? [];
      if ((options.failedWeight ?? 0) > maxWeight) {
        return { over: true, failed: failed.length };
      }
      const retried = failed.filter((payload) => !('refused' in payload));
      return { json: JSON.stringify(retried), count: retried.length };
    },
  } as unknown as OperationRepository;
  const queues = {
    tryEnqueueTranslate: async (jobs: TranslateJob[]) => {
      enqueued.push(jobs);
      return true;
    },
  } as unknown as MessageQueues;
  const partner = options.partner === undefined ? { locationOrganisationId: ORG, settings: {} } : options.partner;
  const partners = { findById: async () => partner } as unknown as PartnerRepository;
  return { replay: new ReplayMessage(messages, operations, queues, partners), recorded, enqueued, asked };
}

const rerun: ReplayRequest = { mode: 'rerun', actor: 'operator:ann' };

const refusal = async (run: Promise<unknown>): Promise<ReplayError> => {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ReplayError);
  return error as ReplayError;
};

describe('ReplayMessage: what a replay resends', () => {
  it('reruns the raw payload as a new message linked to the original, with its own facts only, and queues it', async () => {
    const original = message('m-1', {
      metadata: {
        fileName: 'po.edi',
        idempotencyKey: 'k-1',
        ingressJob: 'job-1',
        interchanges: [{ sender: 'ACME', control: '1', refused: false }],
        orderArrival: '7',
        replay: { mode: 'rerun', edited: false, by: 'operator:bob', reason: null, mapping: 'original' },
        operationCounts: { byStatus: { failed: 1 }, attempts: 3 },
        // How its own translation went: a replay is translated (and verified) anew.
        translationRun: 'run-1',
        translationRequeues: 2,
        deliveredWhileTranslating: true,
        operationsThrough: 40_000,
        abandoning: true,
      },
    });
    const { replay, recorded, enqueued } = replays([original]);
    const made = await replay.replay('m-1', rerun);
    expect(made.id).toBe('replay-1');
    expect(recorded).toEqual([
      {
        partnerId: PARTNER,
        channel: 'replay',
        rawPayload: 'ISA*00~',
        contentType: EDI,
        replayOf: 'm-1',
        metadata: {
          fileName: 'po.edi',
          orderArrival: 'arrival-of-m-1',
          replay: { mode: 'rerun', edited: false, by: 'operator:ann', reason: null, mapping: 'original' },
        },
        actor: 'operator:ann',
      },
    ]);
    expect(enqueued).toEqual([[{ jobId: 'replay-1', messageIds: ['replay-1'] }]]);
  });

  it("records the operator's choices: today's mapping, forced to the end of the order, the reason", async () => {
    const { replay, recorded } = replays([message('m-1')]);
    await replay.replay('m-1', { ...rerun, mapping: 'current', force: true, reason: 'mapping fixed' });
    expect(recorded[0].metadata).toEqual({
      fileName: 'po.edi',
      mappingVersion: 'current',
      replay: {
        mode: 'rerun',
        edited: false,
        by: 'operator:ann',
        reason: 'mapping fixed',
        mapping: 'current',
        force: true,
      },
    });
    await replay.replay('m-1', { ...rerun, mapping: 'original', force: false });
    expect(recorded[1].metadata).toEqual({
      fileName: 'po.edi',
      orderArrival: 'arrival-of-m-1',
      replay: { mode: 'rerun', edited: false, by: 'operator:ann', reason: null, mapping: 'original' },
    });
  });

  it('resends only the failed operations, as a canonical message, leaving out refused EDI sets', async () => {
    const failed = [upsert(ORG, 'PO-1'), { refused: true, reason: 'bad set' }, upsert(ORG, 'PO-3')];
    const { replay, recorded } = replays([message('m-1', { metadata: { jsonValues: 9_999 } })], {
      failed: { 'm-1': failed },
    });
    await replay.replay('m-1', { mode: 'failed-only', actor: 'operator:ann' });
    expect(recorded[0]).toMatchObject({ contentType: CANONICAL_CONTENT_TYPE, replayOf: 'm-1' });
    expect(JSON.parse(recorded[0].rawPayload)).toEqual({ operations: [upsert(ORG, 'PO-1'), upsert(ORG, 'PO-3')] });
    expect(recorded[0].metadata?.replay).toMatchObject({ mode: 'failed-only', edited: false });
    // A payload of its own, counted as such (not the original's count).
    expect(recorded[0].metadata?.jsonValues).toBe((await inspectJson(recorded[0].rawPayload)).values);
  });

  it('refuses failed operations weighing more than one replay may carry, saying to rerun', async () => {
    const { replay, recorded } = replays([message('m-1')], {
      failed: { 'm-1': [upsert(ORG, 'PO-1'), upsert(ORG, 'PO-2')] },
      failedWeight: 2 * MAX_REPLAY_WEIGHT,
    });
    const refused = await refusal(replay.replay('m-1', { mode: 'failed-only', actor: 'operator:ann' }));
    expect(refused.code).toBe('not-replayable');
    expect(refused.message).toBe(
      'message m-1 has 2 failed operations, more than one replay may carry (over 31.5 MiB of payload): ' +
        'rerun it (mode rerun), or replay an edited payload of some of them',
    );
    expect(recorded).toEqual([]);
  });

  it('refuses a failed-only replay with nothing failed, saying how to rerun refused EDI sets', async () => {
    const { replay, recorded } = replays(
      [message('m-edi'), message('m-json', { contentType: CANONICAL_CONTENT_TYPE })],
      { failed: { 'm-edi': [{ refused: true }] } },
    );
    const edi = await refusal(replay.replay('m-edi', { mode: 'failed-only', actor: 'operator:ann' }));
    expect(edi).toMatchObject({
      code: 'nothing-to-retry',
      kind: 'unprocessable',
      message: 'message m-edi has no failed operations to retry (refused EDI sets are replayed with mode rerun)',
    });
    const json = await refusal(replay.replay('m-json', { mode: 'failed-only', actor: 'operator:ann' }));
    expect(json.message).toBe('message m-json has no failed operations to retry');
    expect(recorded).toEqual([]);
  });

  it('refuses what cannot be replayed: a missing message, one refused at ingress, an export', async () => {
    const { replay, recorded, enqueued } = replays([
      message('m-refused', { metadata: { refusedAtIngress: true }, statusReason: 'bad signature' }),
      message('m-unverified', { metadata: { refusedAtIngress: true } }),
      message('m-export', { channel: 'export' }),
    ]);
    expect(await refusal(replay.replay('m-gone', rerun))).toMatchObject({
      code: 'not-found',
      kind: 'not-found',
      message: 'message m-gone does not exist',
    });
    expect(await refusal(replay.replay('m-refused', rerun))).toMatchObject({
      code: 'not-replayable',
      kind: 'unprocessable',
      message:
        'message m-refused was refused at ingress (bad signature): it was never accepted, so it cannot be replayed',
    });
    expect((await refusal(replay.replay('m-unverified', rerun))).message).toMatch(/at ingress \(not verified\)/);
    expect(await refusal(replay.replay('m-export', rerun))).toMatchObject({
      code: 'not-replayable',
      message:
        'message m-export is a bookings export (a file dockbridge wrote, not one a partner sent): run the export again instead',
    });
    expect([recorded, enqueued]).toEqual([[], []]);
  });
});

describe('ReplayMessage: edit and replay', () => {
  const canonical = (operations: object[]) => JSON.stringify({ operations });
  const original = message('m-1', { contentType: CANONICAL_CONTENT_TYPE, rawPayload: canonical([upsert(ORG)]) });

  it('sends an edited payload in place of the original, marked edited', async () => {
    const { replay, recorded } = replays([original]);
    const payload = canonical([upsert(ORG, 'PO-9')]);
    await replay.replay('m-1', { ...rerun, payload });
    expect(recorded[0]).toMatchObject({ rawPayload: payload, contentType: CANONICAL_CONTENT_TYPE });
    expect(recorded[0].metadata?.replay).toMatchObject({ edited: true });
    // An EDI original's edit is EDI: translation checks it, as it checks any file.
    const edi = replays([message('m-2')]);
    await edi.replay.replay('m-2', { ...rerun, payload: 'not even EDI' });
    expect(edi.recorded[0]).toMatchObject({ rawPayload: 'not even EDI', contentType: EDI });
  });

  it('refuses an edited canonical payload that is not JSON, or not a valid message, with what is wrong', async () => {
    const { replay, recorded } = replays([original]);
    const notJson = await refusal(replay.replay('m-1', { ...rerun, payload: '{"operations":' }));
    expect(notJson).toMatchObject({
      code: 'invalid-payload',
      kind: 'invalid',
      message: 'the edited payload is not JSON',
      summary: 'the edited payload is not JSON',
      details: [expect.stringMatching(/JSON/)],
    });
    const invalid = await refusal(
      replay.replay('m-1', { ...rerun, payload: canonical([{ kind: 'document.upsert' }]) }),
    );
    expect(invalid).toMatchObject({ code: 'invalid-payload', message: 'the edited payload is not a valid message' });
    expect(invalid.details.length).toBeGreaterThan(0);
    expect(recorded).toEqual([]);
  });

  it('holds an edited JSON payload to the limits of any JSON body, and weighs it anew', async () => {
    const counted = message('m-1', {
      contentType: CANONICAL_CONTENT_TYPE,
      rawPayload: canonical([upsert(ORG)]),
      metadata: { jsonValues: 14 },
    });
    const { replay, recorded } = replays([counted]);
    const deep = canonical([
      { ...upsert(ORG), document: { id: 'PO-1', x: JSON.parse('{"a":'.repeat(70) + '0' + '}'.repeat(70)) } },
    ]);
    expect(await refusal(replay.replay('m-1', { ...rerun, payload: deep }))).toMatchObject({
      code: 'invalid-payload',
      message: 'the edited payload is refused',
      details: [expect.stringMatching(/^the JSON body nests deeper than 64 levels/)],
    });
    expect(recorded).toEqual([]);
    // Resent as it was, it keeps its count; edited, it is counted anew (the original's would be wrong).
    await replay.replay('m-1', rerun);
    const payload = canonical([upsert(ORG, 'PO-9'), upsert(ORG, 'PO-10')]);
    await replay.replay('m-1', { ...rerun, payload });
    expect(recorded.map((m) => m.metadata?.jsonValues)).toEqual([14, (await inspectJson(payload)).values]);
  });

  it("refuses an edit acting outside the partner's organisations unless overridden, which is recorded and logged", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { replay, recorded } = replays([original], {
        partner: { locationOrganisationId: ORG, settings: { organisations: [] } },
      });
      const payload = canonical([upsert(OTHER_ORG)]);
      const outside = await refusal(replay.replay('m-1', { ...rerun, payload }));
      expect(outside).toMatchObject({
        code: 'invalid-payload',
        message: `the edited payload acts outside the organisations partner ${PARTNER} may act on (overrideOrganisations: true delivers it anyway, recorded)`,
      });
      expect(outside.details).toEqual([expect.stringContaining(OTHER_ORG)]);
      expect(recorded).toEqual([]);
      expect(warn).not.toHaveBeenCalled();
      await replay.replay('m-1', { ...rerun, payload, overrideOrganisations: true, reason: 'moved' });
      expect(recorded[0].metadata?.replay).toEqual({
        mode: 'rerun',
        edited: true,
        by: 'operator:ann',
        reason: 'moved',
        mapping: 'original',
        organisationOverride: true,
      });
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({ messageId: 'replay-1', replayOf: 'm-1', partnerId: PARTNER, reason: 'moved' }),
      );
    } finally {
      warn.mockRestore();
    }
  });

  it("accepts an edit within the partner's other organisations, and refuses one for a partner that is gone", async () => {
    const payload = canonical([upsert(OTHER_ORG)]);
    const { replay, recorded } = replays([original], {
      partner: { locationOrganisationId: ORG, settings: { organisations: [OTHER_ORG.toUpperCase()] } },
    });
    await replay.replay('m-1', { ...rerun, payload });
    expect(recorded).toHaveLength(1);
    const gone = replays([original], { partner: null });
    expect(await refusal(gone.replay.replay('m-1', { ...rerun, payload }))).toMatchObject({
      code: 'invalid-payload',
      details: [`partner ${PARTNER} does not exist`],
    });
  });
});

describe('ReplayMessage: bulk selection', () => {
  it('replays each message, skipping those whose latest replay was delivered, and those it cannot replay', async () => {
    const { replay, recorded, asked } = replays(
      [message('m-1'), message('m-2'), message('m-3', { channel: 'export' })],
      {
        latest: { 'm-1': { id: 'r-1', status: 'delivered' }, 'm-2': { id: 'r-2', status: 'failed' } },
      },
    );
    const outcomes = await replay.replayEach(
      [{ id: 'm-1' }, { id: 'm-2' }, { id: 'm-3' }, { id: 'm-4' }],
      { mode: 'rerun', actor: 'operator:ann' },
      { runId: 'run-1' },
    );
    expect(outcomes).toEqual([
      {
        id: 'm-1',
        skipped: 'already replayed: replay r-1 was delivered (includeReplayed: true replays it again)',
      },
      { id: 'm-2', replayId: 'replay-1' },
      { id: 'm-3', skipped: expect.stringMatching(/^message m-3 is a bookings export/) },
      { id: 'm-4', skipped: 'message m-4 no longer exists (retention removed it)' },
    ]);
    expect(asked).toEqual([['latestReplays', ['m-1', 'm-2', 'm-3', 'm-4']]]);
    expect(recorded.map((r) => [r.replayOf, r.metadata?.replay?.run])).toEqual([['m-2', 'run-1']]);
  });

  it('replays again what was replayed when asked to include it', async () => {
    const { replay, recorded, asked } = replays([message('m-1')], {
      latest: { 'm-1': { id: 'r-1', status: 'delivered' } },
    });
    const outcomes = await replay.replayEach([{ id: 'm-1' }], { ...rerun, includeReplayed: true });
    expect(outcomes).toEqual([{ id: 'm-1', replayId: 'replay-1' }]);
    expect(asked).toEqual([]);
    expect(recorded[0].metadata?.replay).not.toHaveProperty('run');
  });

  it('decides a dry run as the real run does, recording nothing', async () => {
    const { replay, recorded, enqueued } = replays([message('m-1'), message('m-2')], {
      failed: { 'm-1': [upsert(ORG)] },
    });
    const outcomes = await replay.replayEach(
      [{ id: 'm-1' }, { id: 'm-2' }],
      { mode: 'failed-only', actor: 'operator:ann' },
      {
        dryRun: true,
      },
    );
    expect(outcomes).toEqual([
      { id: 'm-1', replayId: 'm-1' },
      {
        id: 'm-2',
        skipped: 'message m-2 has no failed operations to retry (refused EDI sets are replayed with mode rerun)',
      },
    ]);
    expect([recorded, enqueued]).toEqual([[], []]);
  });

  it('lets a failure that is not a refusal through (the database away, say)', async () => {
    const { replay } = replays([message('m-1')], {
      findById: async () => {
        throw new Error('connection lost');
      },
    });
    await expect(replay.replayEach([{ id: 'm-1' }], rerun)).rejects.toThrow('connection lost');
  });

  it('dry-runs every matching message, page by page, up to the limit', async () => {
    const originals = Array.from({ length: 1200 }, (_, i) =>
      message(`m-${String(i).padStart(5, '0')}`, i % 3 === 0 ? { channel: 'export' } : {}),
    );
    const { replay, asked } = replays(originals);
    const result = await replay.dryRun({ partnerId: PARTNER }, rerun);
    expect(result.replayable).toHaveLength(800);
    expect(result.skipped).toHaveLength(400);
    expect(result.skipped[0]).toEqual({ id: 'm-00000', reason: expect.stringMatching(/bookings export/) });
    expect(result.limitReached).toBe(false);
    expect(asked.filter((a) => a[0] === 'search')).toEqual([
      ['search', { partnerId: PARTNER, limit: 500, cursor: null, oldestFirst: true }],
      ['search', { partnerId: PARTNER, limit: 500, cursor: 'm-00499', oldestFirst: true }],
      ['search', { partnerId: PARTNER, limit: 500, cursor: 'm-00999', oldestFirst: true }],
    ]);
  });

  it('says when more messages match than one bulk replay looks at', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => message(`m-${String(i).padStart(6, '0')}`));
    const over = await replays(many(BULK_REPLAY_LIMIT + 1)).replay.dryRun({}, rerun);
    expect([over.replayable.length, over.limitReached]).toEqual([BULK_REPLAY_LIMIT, true]);
    const exact = await replays(many(BULK_REPLAY_LIMIT)).replay.dryRun({}, rerun);
    expect([exact.replayable.length, exact.limitReached]).toEqual([BULK_REPLAY_LIMIT, false]);
  });
});
