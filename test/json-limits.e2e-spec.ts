import { DEMO } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

/**
 * What a JSON body a partner sends may hold besides its bytes (JSON_BODY_LIMITS): values, nesting,
 * an object's width, and where its bulk sits. Each is answered with a named 4xx before the body is
 * checked against the schema, never a 500, a stall or a message a worker cannot hold.
 */
describe('JSON bodies bounded by their shape, not only their bytes', () => {
  let spine: Spine;

  beforeAll(async () => {
    spine = await startSpine();
  }, 60_000);
  afterAll(() => spine?.close());

  /** A booking.create whose free-form `booking` holds `extra`: valid but for what `extra` is. */
  const booking = (extra: unknown) => ({
    kind: 'booking.create',
    organisationId: DEMO.mainDc,
    booking: { tasks: [], extra },
  });
  const post = async (body: string) => {
    const response = await fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, body: (await response.json()) as { details?: string[]; messageId?: string } };
  };
  const nested = (levels: number): unknown => (levels === 0 ? 0 : { a: nested(levels - 1) });

  it('takes nesting up to 64 levels and refuses deeper, naming it (20,000 levels was a 500)', async () => {
    const taken = await post(JSON.stringify({ operations: [booking(nested(50))] }));
    expect(taken.status).toBe(202);
    // Its values are recorded: a worker admits it by them as well as by its bytes.
    // The body, operations, the operation, kind, organisationId, booking, tasks, and extra's 50 objects and 0.
    expect((await spine.messages.findById(taken.body.messageId!))?.metadata?.jsonValues).toBe(7 + 51);
    for (const levels of [70, 20_000]) {
      const text = `{"operations":[${JSON.stringify(booking(0)).replace('"extra":0', `"extra":${'{"a":'.repeat(levels)}0${'}'.repeat(levels)}`)}]}`;
      const answer = await post(text);
      expect(answer.status).toBe(400);
      expect(answer.body.details).toEqual([
        expect.stringMatching(/^the JSON body nests deeper than 64 levels \(at position \d+\)$/),
      ]);
    }
  });

  it('refuses more values than a worker holds (a valid 3 MB message of 1.5 million zeros was taken)', async () => {
    const answer = await post(JSON.stringify({ operations: [booking(new Array(1_500_001).fill(0))] }));
    expect(answer.status).toBe(413);
    expect(answer.body.details).toEqual([
      'the JSON body holds more than 1500000 values: send them in several messages',
    ]);
  });

  it('refuses one operation of more than 150,000 values, which a worker parses whole to deliver (16 at once)', async () => {
    const heavy = booking(new Array(150_000).fill({}));
    const answer = await post(JSON.stringify({ operations: [booking(0), heavy] }));
    expect(answer.status).toBe(400);
    expect(answer.body.details).toEqual(['operations[1] holds more than 150000 JSON values: split it']);
    // Many operations each under it are a message as any other (up to the body's 1,500,000).
    const many = await post(
      JSON.stringify({ operations: Array.from({ length: 10 }, () => booking(new Array(100_000).fill(0))) }),
    );
    expect(many.status).toBe(202);
  });

  it('refuses an object wider than 1,000 members before the schema check, whose key handling is quadratic', async () => {
    const attributes = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
    const started = performance.now();
    const answer = await post(
      JSON.stringify({
        operations: [
          {
            kind: 'document.upsert',
            organisationId: DEMO.mainDc,
            unknownField: 1,
            document: { id: 'W-1', attributes },
          },
        ],
      }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.details).toEqual([
      expect.stringMatching(/^an object in the JSON body has more than 1000 members \(at position \d+\)$/),
    ]);
    expect(performance.now() - started).toBeLessThan(1000); // the schema check took ~1 s for these keys alone
  });

  it('refuses a large list nested deeper than 8 levels, which would be parsed in one piece', async () => {
    const answer = await post(
      JSON.stringify({ operations: [booking(nested(6))] }).replace(
        '"a":0',
        `"a":[${new Array(200_000).fill('1').join(',')}]`,
      ),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.details).toEqual([
      expect.stringMatching(/^an array or object of over 262144 characters is nested deeper than 8 levels/),
    ]);
  });

  it('lists at most 100 problems, and stops checking past them', async () => {
    const operations = Array.from({ length: 500 }, (_, i) => ({
      kind: 'document.upsert',
      organisationId: DEMO.mainDc,
      document: { id: `P-${i}` },
      first: 1,
      second: 2,
    }));
    const answer = await post(JSON.stringify({ operations }));
    expect(answer.status).toBe(400);
    expect(answer.body.details).toHaveLength(101);
    expect(answer.body.details![0]).toMatch(/^operations\[0\]/);
    expect(answer.body.details![100]).toMatch(/^…and more problems, not checked past operations\[\d+\]$/);
    const few = await post(JSON.stringify({ operations: operations.slice(0, 80) }));
    expect(few.body.details).toHaveLength(101);
    expect(few.body.details![100]).toMatch(/^…and \d+ more problems$/);
  });

  it.each([
    [
      '{"constructor":{}} as a document id (it was a 500)',
      '"id":{"constructor":{}}',
      /^operations\[0\]\.document\.id: /,
    ],
    [
      'a field named valueOf (it was taken and sent on)',
      '"valueOf":1,"id":"PO-1"',
      /^operations\[0\]\.document\.valueOf: unknown field$/,
    ],
  ])('refuses %s with a 400 naming the path', async (_what, fields, detail) => {
    const body = `{"operations":[{"kind":"document.upsert","organisationId":"${DEMO.mainDc}","document":{${fields},"direction":"Inbound","occupant":{"id":"${DEMO.mainDc}"}}}]}`;
    const response = await fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { details: string[] }).details).toEqual([expect.stringMatching(detail)]);
  });
});
