import { DEMO, TestResponse } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

/**
 * A batch submit whose answer never came (a timeout) may still have made a platform job: the retry
 * looks for it among the organisation's jobs before submitting again, so 150 documents are written
 * by one job, not two.
 */
describe('batch submits whose outcome is unknown', () => {
  let spine: Spine;
  beforeAll(
    async () => (spine = await startSpine({ 'platform.timeoutMs': 1000, 'delivery.retryHorizonMs': 120_000 })),
    60_000,
  );
  afterAll(() => spine?.close());

  it('finds the job a timed-out submit made instead of making a second one', async () => {
    await spine.sandbox.reset();
    // The first submit makes its job, but is answered after 1.8 s: past the client's ~1 s timeout.
    await spine.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: {
        rules: [
          { method: 'POST', path: '/api/v2/organisations/*/document-jobs', status: 0, answerLatencyMs: 1800, count: 1 },
        ],
      },
    });
    const operations = Array.from({ length: 150 }, (_, i) => ({
      kind: 'document.upsert',
      organisationId: DEMO.mainDc,
      document: { id: `PO-SUB-${i}`, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
    }));
    const response: TestResponse = await fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/json' },
      body: JSON.stringify({ operations }),
    });
    const { messageId } = await response.json();
    expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed'], 60_000)).toBe('delivered');
    const jobs = await (await spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/document-jobs/`)).json();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ documentCount: 150 });
  }, 90_000);
});
