import { networkInterfaces } from 'node:os';
import { startSpine, type Spine } from './support/spine';

/** An address of this machine that is not loopback, when it has one. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

// Without an address of its own besides loopback, this machine cannot call itself from "elsewhere".
(outside ? describe : describe.skip)('/metrics without a metrics token', () => {
  let spine: Spine;

  beforeAll(async () => {
    spine = await startSpine({}, { host: '0.0.0.0' });
  });

  afterAll(async () => {
    await spine?.close();
  });

  it('answers a scrape from this machine', async () => {
    const response = await fetch(`${spine.url}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('dockbridge_messages');
  });

  it('refuses a scrape from another address, saying how to allow one, and names no partner', async () => {
    const port = new URL(spine.url).port;
    const response = await fetch(`http://${outside}:${port}/metrics`);
    expect(response.status).toBe(403);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({
      statusCode: 403,
      details: [expect.stringContaining('set METRICS_TOKEN')],
    });
    expect(text).not.toContain('test-wms');
  });

  it('still takes partner traffic on that address', async () => {
    const port = new URL(spine.url).port;
    expect((await fetch(`http://${outside}:${port}/health`)).status).toBe(200);
  });
});
