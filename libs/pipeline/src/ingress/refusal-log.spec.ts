import type { MessageRepository, NewMessage } from '@dockbridge/audit';
import { AppConfig } from '@dockbridge/config';
import { diagnosis, REFUSAL_EXCERPT_BYTES, RefusalLog } from './refusal-log';

/** The log over a repository that only collects what it is asked to record. */
function refusalLog(perMinute: number, bytesPerMinute = 64 * 1024) {
  const recorded: NewMessage[] = [];
  const messages = { record: async (m: NewMessage) => void recorded.push(m) } as unknown as MessageRepository;
  const config = new AppConfig();
  config.gateway.refusalsPerMinute = perMinute;
  config.gateway.refusalBytesPerMinute = bytesPerMinute;
  return { log: new RefusalLog(messages, config), recorded };
}

const refusal = (partnerId: string, kind = 'verification failed', body = Buffer.from('{}')) => ({
  partnerId,
  kind,
  reason: `${kind}: no`,
  body,
  metadata: {},
});

describe('RefusalLog', () => {
  it('records the first refusals of a minute one by one, then one summary when the minute is over', async () => {
    const { log, recorded } = refusalLog(2);
    const t0 = Date.parse('2026-11-22T05:00:00Z');
    for (let i = 0; i < 4; i++) {
      await log.record(refusal('p1'), t0 + i);
    }
    await log.record(refusal('p1', 'too large'), t0 + 10);
    expect(recorded.map((m) => m.statusReason)).toEqual(['verification failed: no', 'verification failed: no']);

    // The next minute's first refusal closes the last minute: summary, then itself.
    await log.record(refusal('p1'), t0 + 60_000);
    expect(recorded).toHaveLength(4);
    expect(recorded[2]).toMatchObject({
      partnerId: 'p1',
      status: 'rejected',
      rawPayload: '',
      statusReason:
        '3 more webhooks refused in the minute from 2026-11-22T05:00:00.000Z (2 verification failed, 1 too large), counted, not recorded one by one',
      metadata: {
        refusedAtIngress: true,
        suppressed: 3,
        suppressedByKind: { 'verification failed': 2, 'too large': 1 },
      },
    });
    expect(recorded[3]).toMatchObject({
      statusReason: 'verification failed: no',
      rawPayload: '{}',
      metadata: { refusedAtIngress: true, size: 2 },
    });
    await log.flush();
  });

  it('counts each partner on its own, and a flush writes only windows that suppressed something', async () => {
    const { log, recorded } = refusalLog(1);
    const now = Date.now();
    await log.record(refusal('a'), now);
    await log.record(refusal('a'), now);
    await log.record(refusal('b'), now);
    expect(recorded.map((m) => m.partnerId)).toEqual(['a', 'b']);
    await log.flush();
    expect(recorded.map((m) => [m.partnerId, m.metadata?.suppressed])).toEqual([
      ['a', undefined],
      ['b', undefined],
      ['a', 1],
    ]);
  });

  it('keeps a diagnosis of a refused body, never the whole of it: excerpt, size, hash, safe headers', () => {
    const body = Buffer.concat([Buffer.from('{"big":"'), Buffer.alloc(1024 * 1024, 'x'), Buffer.from('"}')]);
    const { rawPayload, metadata } = diagnosis(body, {
      'content-type': 'application/json',
      'x-api-key': 'dbk_secret',
      authorization: 'Bearer t',
      'webhook-id': 'msg_1',
    });
    expect(rawPayload).toHaveLength(REFUSAL_EXCERPT_BYTES);
    expect(metadata).toEqual({
      size: body.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      excerptBytes: REFUSAL_EXCERPT_BYTES,
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
    });
  });

  it("stops recording one by one when the minute's byte budget is spent, counting the rest", async () => {
    const { log, recorded } = refusalLog(100, 8 * 1024);
    const now = Date.now();
    const big = Buffer.alloc(100_000, 'a');
    for (let i = 0; i < 20; i++) {
      await log.record(refusal('p', 'verification failed', big), now);
    }
    expect(recorded.length).toBeGreaterThanOrEqual(5);
    expect(recorded.length).toBeLessThanOrEqual(8);
    expect(recorded.reduce((sum, m) => sum + m.rawPayload.length, 0)).toBeLessThanOrEqual(8 * 1024);
    await log.flush();
    expect(recorded.at(-1)?.metadata).toMatchObject({ suppressed: 20 - (recorded.length - 1) });
  });

  it("never keeps a partner's secret-bearing header, even one named like an allowlisted header", () => {
    const { metadata } = diagnosis(null, { 'x-request-id': 'the-api-key', 'user-agent': 'tms/1' }, [
      'x-request-id',
      undefined,
    ]);
    expect(metadata).toEqual({ headers: { 'user-agent': 'tms/1' } });
  });

  it('counts the budget in bytes as stored: an excerpt of bytes that are not UTF-8 costs three bytes a byte', async () => {
    const { log, recorded } = refusalLog(100, 8 * 1024);
    const notUtf8 = Buffer.alloc(100_000, 0xff);
    for (let i = 0; i < 10; i++) {
      await log.record(refusal('p', 'verification failed', notUtf8), Date.now());
    }
    const stored = recorded.reduce(
      (sum, m) =>
        sum +
        Buffer.byteLength(m.rawPayload) +
        Buffer.byteLength(JSON.stringify(m.metadata)) +
        Buffer.byteLength(m.statusReason ?? ''),
      0,
    );
    expect(recorded.length).toBeGreaterThan(0);
    expect(stored).toBeLessThanOrEqual(8 * 1024);
    await log.flush();
  });
});
