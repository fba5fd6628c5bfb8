import { connect as tcpConnect, Socket } from 'node:net';
import { Client, SFTPWrapper } from 'ssh2';
import { PartnerRepository, SftpCredentialRepository } from '@dockbridge/partners';
import { SftpServer } from '../apps/gateway/src/sftp/sftp.server';
import { DEMO } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

const PASSWORD = 'sftp-connections-password-0123';

/**
 * What a partner, or anyone who can reach the port, may hold of the SFTP server at once: connections
 * that never log in, logged-in connections per partner, connections in all, sessions per
 * connection. Past each, the next is closed as it opens (or ends at login) and the server goes on.
 */
describe('SFTP connections a gateway holds at once', () => {
  let spine: Spine;
  let server: SftpServer;
  const open: (Client | Socket)[] = [];

  /** A logged-in connection and its SFTP channel; rejects when the server closes it first. */
  const login = (username: string) =>
    new Promise<{ connection: Client; sftp: SFTPWrapper }>((resolve, reject) => {
      const c = new Client();
      open.push(c);
      c.on('ready', () => c.sftp((error, sftp) => (error ? reject(error) : resolve({ connection: c, sftp }))));
      c.on('error', reject);
      c.on('close', () => reject(new Error('connection closed')));
      c.connect({ host: '127.0.0.1', port: server.port!, username, password: PASSWORD, readyTimeout: 5_000 });
    });
  /** A raw connection that says it speaks SSH (`speaks`), or nothing at all, and never logs in. */
  const banner = (speaks = true): Socket => {
    const socket = tcpConnect(server.port!, '127.0.0.1');
    open.push(socket);
    socket.on('error', () => undefined);
    if (speaks) {
      socket.write('SSH-2.0-lurker\r\n');
    }
    return socket;
  };
  /** banner()'s connection, once the server counts it. */
  const lurker = async (speaks = true): Promise<Socket> => {
    const before = server.connectionCounts.unauthenticated;
    const socket = banner(speaks);
    await until(() => server.connectionCounts.unauthenticated > before || socket.destroyed);
    return socket;
  };
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 100 && !check(); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  /** Whether the server closes `socket` within `ms` (refusals: well within the 1.5 s login timeout). */
  const closedByServer = (socket: Socket, ms = 500) =>
    new Promise<boolean>((resolve) => {
      if (socket.destroyed) {
        return resolve(true);
      }
      socket.once('close', () => resolve(true));
      socket.resume(); // read on, or its end is never seen
      setTimeout(() => resolve(false), ms).unref();
    });
  const healthy = async () => expect((await fetch(`${spine.url}/health`)).status).toBe(200);

  beforeAll(async () => {
    spine = await startSpine({
      'sftp.maxConnections': 5,
      'sftp.maxUnauthenticatedPerAddress': 3,
      'sftp.maxConnectionsPerPartner': 2,
      'sftp.loginTimeoutMs': 1500,
    });
    server = spine.app.get(SftpServer);
    await spine.app
      .get(PartnerRepository)
      .upsert({ id: 'second-wms', name: 'Second WMS', locationOrganisationId: DEMO.mainDc }, 'api');
    const credentials = spine.app.get(SftpCredentialRepository);
    await credentials.setPassword('test-wms', 'first', PASSWORD);
    await credentials.setPassword('second-wms', 'second', PASSWORD);
  }, 60_000);
  afterEach(async () => {
    for (const c of open.splice(0)) {
      if (c instanceof Socket) {
        c.destroy();
      } else {
        c.end();
      }
    }
    await until(() => server.connectionCounts.open === 0);
  });
  afterAll(() => spine?.close());

  it('closes connections from one address that never log in past sftp.maxUnauthenticatedPerAddress', async () => {
    const lurkers = [await lurker(), await lurker(), await lurker()];
    expect(server.connectionCounts).toEqual({ open: 3, unauthenticated: 3 });
    expect(await closedByServer(banner())).toBe(true);
    await expect(login('first')).rejects.toThrow();
    await healthy();
    // Once they go, the address logs in again.
    lurkers.forEach((s) => s.destroy());
    await until(() => server.connectionCounts.unauthenticated === 0);
    const { connection } = await login('first');
    expect(server.connectionCounts).toEqual({ open: 1, unauthenticated: 0 });
    connection.end();
  });

  // ssh2 sees a connection only once it sends its banner: counted from there, silent ones held a socket each for ever.
  it('counts connections that never say a word, and cuts any not logged in after sftp.loginTimeoutMs', async () => {
    const silent = [await lurker(false), await lurker(false), await lurker(false)];
    expect(server.connectionCounts).toEqual({ open: 3, unauthenticated: 3 });
    await expect(login('first')).rejects.toThrow();
    expect((await Promise.all(silent.map((s) => closedByServer(s, 3_000)))).every(Boolean)).toBe(true);
    await until(() => server.connectionCounts.open === 0);
    expect(server.connectionCounts).toEqual({ open: 0, unauthenticated: 0 });
    const { connection } = await login('first');
    connection.end();
  });

  it("ends a partner's connection at login past sftp.maxConnectionsPerPartner, not another partner's", async () => {
    await login('first');
    await login('first');
    await expect(login('first')).rejects.toThrow();
    const { sftp } = await login('second');
    const names = await new Promise<string[]>((resolve, reject) =>
      sftp.readdir('/', (error, list) => (error ? reject(error) : resolve(list.map((e) => e.filename)))),
    );
    expect(names).toEqual(['inbound', 'outbound']);
    await healthy();
  });

  it('closes a connection past sftp.maxConnections as it opens', async () => {
    await login('first');
    await login('first');
    await login('second');
    await login('second');
    await lurker();
    expect(server.connectionCounts).toEqual({ open: 5, unauthenticated: 1 });
    expect(await closedByServer(banner())).toBe(true);
    expect(server.connectionCounts.open).toBe(5);
    await healthy();
  });

  it('refuses an eleventh session open at once on one connection (each may hold 64 handles)', async () => {
    const { connection } = await login('first');
    const channel = () =>
      new Promise<SFTPWrapper>((resolve, reject) =>
        connection.sftp((error, sftp) => (error ? reject(error) : resolve(sftp))),
      );
    const channels: SFTPWrapper[] = [];
    for (let i = 1; i < 10; i++) {
      channels.push(await channel());
    }
    await expect(channel()).rejects.toThrow();
    // Sessions open at once, as OpenSSH's MaxSessions: one closed makes room for the next.
    await new Promise((resolve) => {
      channels[0].once('close', resolve);
      channels[0].end();
    });
    await channel();
    await healthy();
  });

  // ssh2 keeps a session closed before it starts a subsystem: such sessions stay counted.
  it('counts sessions that never start SFTP for the life of the connection', async () => {
    const { connection } = await login('second'); // one SFTP session, then nine refused an exec and closed
    for (let i = 1; i < 10; i++) {
      await expect(
        new Promise((resolve, reject) =>
          connection.exec('ls', (error, stream) => (error ? reject(error) : resolve(stream))),
        ),
      ).rejects.toThrow();
    }
    await expect(
      new Promise((resolve, reject) => connection.sftp((error, sftp) => (error ? reject(error) : resolve(sftp)))),
    ).rejects.toThrow();
    await healthy();
  });
});
