import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createSandboxApp } from '../../apps/sandbox/src/sandbox.app';
import { readSeed, Seed } from '../../apps/sandbox/src/state/seed';

/** Ids and tokens of config/sandbox.seed.json, named for tests. */
export const DEMO = {
  mainDc: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01',
  crossDock: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e02',
  fastFreight: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e10',
  blueLine: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e11',
  kettleFoods: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e20',
  harbourStores: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e21',
  dailyLayout: '1a400000-0000-4000-8000-000000000001',
  truck1: '7e400000-0000-4000-8000-000000000001',
  inboundDocks: 'a4ea0000-0000-4000-8000-000000000001',
  tokens: {
    location: 'sandbox-demo-location-token',
    carrier: 'sandbox-demo-carrier-token',
    readonly: 'sandbox-demo-readonly-token',
    expired: 'sandbox-demo-expired-token',
  },
} as const;

export const DEMO_SEED_PATH = join(__dirname, '../../config/sandbox.seed.json');

/** A fetch Response whose JSON body tests may read without casting. */
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface RunningSandbox {
  url: string;
  app: NestFastifyApplication;
  /** fetch against the sandbox with a bearer token (omit `token` for none) and a JSON body. */
  call(
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; raw?: string },
  ): Promise<TestResponse>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the sandbox on a free loopback port, with controls on and the demo seed unless told otherwise. */
export async function startSandbox(options: { seed?: Seed; controls?: boolean } = {}): Promise<RunningSandbox> {
  const app = await createSandboxApp({
    seed: options.seed ?? readSeed(DEMO_SEED_PATH),
    controls: options.controls ?? true,
    logger: false,
  });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  const call: RunningSandbox['call'] = (method, path, { token = DEMO.tokens.location, body, raw } = {}) =>
    fetch(url + path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
  return {
    url,
    app,
    call,
    reset: async () => {
      const response = await call('POST', '/__sandbox/reset', { token: null });
      if (response.status !== 200) {
        throw new Error(`sandbox reset failed: ${response.status}`);
      }
    },
    close: () => app.close(),
  };
}
