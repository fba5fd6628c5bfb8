import { DataSource } from 'typeorm';
import { DEMO, TestResponse } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

/** `POST /v1/messages` with an Idempotency-Key: a client that retries after a lost answer records one message. */
describe('POST /v1/messages with Idempotency-Key', () => {
  let spine: Spine;
  const operations = (id: string) => ({
    operations: [
      {
        kind: 'document.upsert',
        organisationId: DEMO.mainDc,
        document: { id, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
      },
    ],
  });
  const post = (body: unknown, key?: string): Promise<TestResponse> =>
    fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': spine.partnerKey,
        'content-type': 'application/json',
        ...(key !== undefined && { 'idempotency-key': key }),
      },
      body: JSON.stringify(body),
    });
  /** Messages recorded whose payload names the document (whether or not translated yet). */
  const recorded = async (documentId: string): Promise<number> => {
    const [row] = await spine.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM message WHERE partner_id = 'test-wms' AND raw_payload LIKE $1`, [
        `%"${documentId}"%`,
      ]);
    return row.n;
  };

  beforeAll(async () => {
    spine = await startSpine();
  }, 60_000);
  afterAll(() => spine?.close());

  it('answers a repeat with the same body 200 and the original message, recording nothing more', async () => {
    const first = await post(operations('PO-IDEM-1'), 'order-1-v1');
    expect(first.status).toBe(202);
    const { messageId } = await first.json();
    await spine.waitForStatus(messageId, ['delivered']);

    const again = await post(operations('PO-IDEM-1'), 'order-1-v1');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ messageId, status: 'delivered', repeat: true });
    expect(await recorded('PO-IDEM-1')).toBe(1);
  });

  it('refuses the same key with a different body with 422, naming the key and the message', async () => {
    const first = await post(operations('PO-IDEM-2'), 'order-2');
    const { messageId } = await first.json();
    const reused = await post(operations('PO-IDEM-2-other'), 'order-2');
    expect(reused.status).toBe(422);
    expect(JSON.stringify(await reused.json())).toContain(
      `Idempotency-Key order-2 was used for a different body (message ${messageId})`,
    );
    expect(await recorded('PO-IDEM-2-other')).toBe(0);
  });

  it('records one message for many concurrent retries with one key', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(operations('PO-IDEM-3'), 'order-3')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    expect(new Set(await Promise.all(answers.map(async (a) => (await a.json()).messageId))).size).toBe(1);
    expect(await recorded('PO-IDEM-3')).toBe(1);
  });

  it('keeps requests without a key independent, and refuses a key HTTP cannot carry whole', async () => {
    expect((await post(operations('PO-IDEM-4'))).status).toBe(202);
    expect((await post(operations('PO-IDEM-4'))).status).toBe(202);
    expect(await recorded('PO-IDEM-4')).toBe(2);
    const tooLong = await post(operations('PO-IDEM-5'), 'k'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).details).toEqual([
      'Idempotency-Key must be one header of 1 to 255 visible ASCII characters',
    ]);
  });
});
