import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatformAccounts } from './platform-accounts';
import { PlatformCallError } from './platform-error';
import type { PlatformClient } from './platform.client';

/** Which base URL path and token each call came with. */
let server: Server;
let base: string;
let calls: string[];

beforeAll(async () => {
  server = createServer((req, res) => {
    calls.push(`${req.url!.split('/api/')[0]} ${req.headers.authorization}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  calls = [];
});

/** The base URL path and token a client calls with. */
async function callerOf(client: PlatformClient | undefined): Promise<string | undefined> {
  if (!client) {
    return undefined;
  }
  await client.getJob('org', 'job');
  return calls.pop();
}

// The calls' timeout is not what is tested: 2 s was once too short for a loaded CI machine's first call.
describe('PlatformAccounts: which token acts for which organisation', () => {
  const accounts = () =>
    new PlatformAccounts({
      baseUrl: `${base}/default`,
      token: 'default-token',
      timeoutMs: 30_000,
      accounts: [
        { name: 'north', token: 'north-token', organisationIds: ['org-n1', 'org-n2'] },
        { name: 'south', baseUrl: `${base}/south`, token: 'south-token', organisationIds: ['org-s1'] },
        { name: 'unset', organisationIds: ['org-u1'] },
      ],
    });

  it("uses the account that lists the organisation, at the account's base URL or the default one", async () => {
    const platform = accounts();
    try {
      expect(await callerOf(platform.clientFor('org-n1'))).toBe('/default Bearer north-token');
      expect(platform.clientFor('org-n2')).toBe(platform.clientFor('org-n1'));
      expect(await callerOf(platform.clientFor('org-s1'))).toBe('/south Bearer south-token');
      // An organisation's own account wins over the account named for it.
      expect(platform.clientFor('org-s1', 'north')).toBe(platform.clientFor('org-s1'));
    } finally {
      await platform.close();
    }
  });

  it('uses the named account for an organisation no account lists, else the default token', async () => {
    const platform = accounts();
    try {
      expect(await callerOf(platform.clientFor('org-new', 'south'))).toBe('/south Bearer south-token');
      expect(await callerOf(platform.clientFor('org-new'))).toBe('/default Bearer default-token');
      expect(await callerOf(platform.clientFor('org-new', null))).toBe('/default Bearer default-token');
      expect(await callerOf(platform.clientFor('org-new', 'unknown'))).toBe('/default Bearer default-token');
      // An account without a token acts for no one: its organisations fall to the default.
      expect(await callerOf(platform.clientFor('org-u1', 'unset'))).toBe('/default Bearer default-token');
      expect(await callerOf(platform.any())).toBe('/default Bearer default-token');
    } finally {
      await platform.close();
    }
  });

  it('has no client for an organisation when nothing is configured for it', async () => {
    const platform = new PlatformAccounts({
      baseUrl: base,
      timeoutMs: 30_000,
      accounts: [{ name: 'north', token: 'north-token', organisationIds: ['org-n1'] }],
    });
    try {
      expect(platform.clientFor('org-new')).toBeUndefined();
      expect(platform.clientFor('org-new', 'north')).toBe(platform.clientFor('org-n1'));
      expect(await callerOf(platform.any())).toBe(' Bearer north-token');
      expect(new PlatformAccounts({ baseUrl: base, timeoutMs: 30_000, accounts: [] }).any()).toBeUndefined();
    } finally {
      await platform.close();
    }
  });

  it('closes every client it made, so no call goes out after', async () => {
    const platform = accounts();
    const clients = ['org-n1', 'org-s1', 'org-new'].map((org) => platform.clientFor(org)!);
    await platform.close();
    for (const client of clients) {
      await expect(client.getJob('org', 'job')).rejects.toBeInstanceOf(PlatformCallError);
    }
    expect(calls).toEqual([]);
  });
});
