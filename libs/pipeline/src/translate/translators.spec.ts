import type { Message } from '@dockbridge/audit';
import { TranslationContext, translateWebhook } from './translators';

/** A webhook message and a context whose current mapping is `expression` (version 3). */
const translate = (expression: string, body: unknown = { orders: [{ id: 'PO-1' }] }) =>
  translateWebhook(
    { partnerId: 'acme-wms', rawPayload: JSON.stringify(body), metadata: { mappingVersion: 3 } } as unknown as Message,
    {
      partner: null,
      mapping: async () => ({ version: 3, expression }),
      nextControlNumber: async () => 1,
      now: new Date(),
    } satisfies TranslationContext,
  );

describe('translateWebhook: partner mappings that do not end', () => {
  it('rejects runaway recursion with the reason, instead of exhausting the worker', async () => {
    const result = await translate('( $f := function($x) { $f($x) + 1 }; $f(1) )');
    expect(result.rejection).toMatch(/^mapping v3 failed: Stack overflow/);
  });

  it('rejects a mapping that runs past its time with the reason', async () => {
    const started = Date.now();
    const result = await translate('$sum([1..9000000].($ * 2))');
    expect(result.rejection).toMatch(/^mapping v3 failed: Evaluation timeout after 2000 milliseconds/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('still maps what a normal mapping produces', async () => {
    const result = await translate(
      `orders.{ "kind": "document.delete", "organisationId": "3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f", "documentId": id }`,
    );
    expect(result.rejection).toBeUndefined();
    expect(result.operations.map((o) => o.operation)).toEqual([
      { kind: 'document.delete', organisationId: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f', documentId: 'PO-1' },
    ]);
  });
});
