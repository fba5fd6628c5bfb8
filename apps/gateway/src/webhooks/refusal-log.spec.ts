import type { MessageRepository, NewMessage } from '@dockbridge/audit';
import { AppConfig } from '@dockbridge/config';
import { RefusalLog } from './refusal-log';

/** The log over a repository that only collects what it is asked to record. */
function refusalLog(perMinute: number) {
  const recorded: NewMessage[] = [];
  const messages = { record: async (m: NewMessage) => void recorded.push(m) } as unknown as MessageRepository;
  const config = new AppConfig();
  config.gateway.refusalsPerMinute = perMinute;
  return { log: new RefusalLog(messages, config), recorded };
}

const refusal = (partnerId: string, kind = 'verification failed') => ({ partnerId, kind, reason: `${kind}: no`, rawPayload: '{}', metadata: {} });

describe('RefusalLog', () => {
  it('records the first refusals of a minute one by one, then one summary when the minute is over', async () => {
    const { log, recorded } = refusalLog(2);
    const t0 = Date.parse('2026-11-22T05:00:00Z');
    for (let i = 0; i < 4; i++) await log.record(refusal('p1'), t0 + i);
    await log.record(refusal('p1', 'too large'), t0 + 10);
    expect(recorded.map((m) => m.statusReason)).toEqual(['verification failed: no', 'verification failed: no']);

    // The next minute's first refusal closes the last minute: summary, then itself.
    await log.record(refusal('p1'), t0 + 60_000);
    expect(recorded).toHaveLength(4);
    expect(recorded[2]).toMatchObject({
      partnerId: 'p1',
      status: 'rejected',
      rawPayload: '',
      statusReason: '3 more webhooks refused in the minute from 2026-11-22T05:00:00.000Z (2 verification failed, 1 too large), counted, not recorded one by one',
      metadata: { refusedAtIngress: true, suppressed: 3, suppressedByKind: { 'verification failed': 2, 'too large': 1 } },
    });
    expect(recorded[3]).toMatchObject({ statusReason: 'verification failed: no', metadata: { refusedAtIngress: true } });
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
    expect(recorded.map((m) => [m.partnerId, m.metadata?.suppressed])).toEqual([['a', undefined], ['b', undefined], ['a', 1]]);
  });
});
