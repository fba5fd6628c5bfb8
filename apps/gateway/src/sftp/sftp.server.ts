import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { AddressInfo, createServer, Server as TcpServer, Socket } from 'node:net';
import { AuthContext, ClientInfo, Connection, Server } from 'ssh2';
import { AppConfig } from '@dockbridge/config';
import { PartnerFileRepository, PartnerProfile, SftpCredentialRepository } from '@dockbridge/partners';
import { ReceiveUpload } from '@dockbridge/pipeline';
import { loadOrCreateHostKey } from './host-key';
import { LoginThrottle } from './login-throttle';
import { SftpSession } from './sftp-session';

/** Failed login attempts one connection may make before it is dropped. */
export const MAX_AUTH_FAILURES = 6;
/** How long shutdown waits for uploads being recorded. */
const DRAIN_TIMEOUT_MS = 15_000;
/** SSH sessions (channels) one connection may open, as OpenSSH's MaxSessions: each may hold 64 handles. */
export const MAX_SESSIONS_PER_CONNECTION = 10;
/** A refused connection is logged at most this often per reason (a flood would fill the log), with the count. */
const REFUSAL_LOG_EVERY_MS = 10_000;
/** How long a connection ended by the server may take to close its side before it is cut. */
const END_GRACE_MS = 1_000;

/** A TCP connection of the SFTP port, from its accept to its close: what it counts against the limits. */
interface Accepted {
  socket: Socket;
  ip: string;
  client: Connection | null;
  loggedIn: boolean;
  partnerId: string | null;
}

/**
 * The partners' SFTP server (ssh2), on `sftp.host`:`sftp.port` when `sftp.enabled`. Each partner
 * logs in with its own account (password and/or public key, `SftpCredentialRepository`) and sees
 * a virtual tree of two folders backed by Postgres (`SftpSession`), so any replica serves anyone.
 */
@Injectable()
export class SftpServer implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Sftp');
  private server: TcpServer | null = null;
  /** Every open connection, counted from its TCP accept (a client that never says a word included), by its socket. */
  private readonly accepted = new Map<Socket, Accepted>();
  /** Connections not logged in yet, by address; logged-in connections, by partner. */
  private readonly unauthenticated = new Map<string, number>();
  private readonly byPartner = new Map<string, number>();
  private readonly refusalsLogged = new Map<string, { at: number; since: number }>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly throttle: LoginThrottle;
  private boundPort: number | null = null;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(PartnerFileRepository) private readonly files: PartnerFileRepository,
    @Inject(SftpCredentialRepository) private readonly credentials: SftpCredentialRepository,
    @Inject(ReceiveUpload) private readonly ingest: ReceiveUpload,
  ) {
    this.throttle = new LoginThrottle({ maxFailures: config.sftp.maxLoginFailures, lockoutMs: config.sftp.lockoutMs });
  }

  /** The port the server listens on (the real one when configured as 0), or null when not listening. */
  get port(): number | null {
    return this.boundPort;
  }

  /** Connections open now, and of those not logged in yet. */
  get connectionCounts(): { open: number; unauthenticated: number } {
    let unauthenticated = 0;
    for (const n of this.unauthenticated.values()) {
      unauthenticated += n;
    }
    return { open: this.accepted.size, unauthenticated };
  }

  /** The host key's `SHA256:` fingerprint once started. */
  hostKeyFingerprint: string | null = null;

  async onApplicationBootstrap(): Promise<void> {
    const { enabled, host, port, hostKeyPath, generateHostKey } = this.config.sftp;
    if (!enabled) {
      return;
    }
    const hostKey = loadOrCreateHostKey(hostKeyPath, generateHostKey);
    if (hostKey.generated) {
      this.logger.warn({ msg: 'generated a new SFTP host key', path: hostKeyPath, fingerprint: hostKey.fingerprint });
    }
    this.hostKeyFingerprint = hostKey.fingerprint;
    // ssh2 sees a connection only once the client sends its banner: the limits and the login
    // timeout start at the TCP accept, and each socket is handed to ssh2 from there.
    const ssh = new Server({ hostKeys: [hostKey.privateKey], ident: 'dockbridge' }, (client, info) =>
      this.onConnection(client, info),
    );
    ssh.on('error', (error: Error) => this.logger.error({ msg: 'sftp server error', error: error.message }));
    const server = createServer((socket) => this.accept(socket, ssh));
    server.on('error', (error: Error) => this.logger.error({ msg: 'sftp server error', error: error.message }));
    await new Promise<void>((resolve, reject) => {
      const fail = (error: Error) =>
        reject(new Error(`SFTP server cannot listen on ${host}:${port}: ${error.message}`));
      server.once('error', fail);
      server.listen(port, host, () => {
        server.off('error', fail);
        resolve();
      });
    });
    this.server = server;
    this.boundPort = (server.address() as AddressInfo).port;
    this.logger.log({
      msg: 'SFTP server listening',
      host,
      port: this.boundPort,
      hostKeyType: hostKey.type,
      hostKeyFingerprint: hostKey.fingerprint,
    });
  }

  /** Stops taking connections and lets uploads being recorded finish (their CLOSE is answered). */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.server) {
      return;
    }
    this.server.close();
    if (this.inFlight.size) {
      await Promise.race([
        Promise.allSettled([...this.inFlight]),
        new Promise((resolve) => setTimeout(resolve, DRAIN_TIMEOUT_MS).unref()),
      ]);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.server) {
      return;
    }
    const server = this.server;
    this.server = null;
    this.boundPort = null;
    for (const connection of this.accepted.values()) {
      connection.client?.end();
    }
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Clients that do not answer the disconnect are cut after a moment.
      setTimeout(() => {
        for (const connection of this.accepted.values()) {
          connection.socket.destroy();
        }
        resolve();
      }, 2000).unref();
    });
  }

  private track = <T>(work: Promise<T>): Promise<T> => {
    this.inFlight.add(work);
    const done = () => this.inFlight.delete(work);
    work.then(done, done);
    return work;
  };

  /** A new TCP connection: counted, or dropped at once past a limit; cut if not logged in within sftp.loginTimeoutMs. */
  private accept(socket: Socket, ssh: Server): void {
    socket.on('error', () => undefined); // ssh2 reports a connection's errors once it has it
    const ip = socket.remoteAddress ?? '';
    const { maxConnections, maxUnauthenticatedPerAddress, loginTimeoutMs } = this.config.sftp;
    if (this.accepted.size >= maxConnections || (this.unauthenticated.get(ip) ?? 0) >= maxUnauthenticatedPerAddress) {
      this.logRefusal(
        this.accepted.size >= maxConnections
          ? `sftp connection refused: ${maxConnections} connections open (sftp.maxConnections)`
          : `sftp connection refused: ${maxUnauthenticatedPerAddress} connections from this address not logged in yet (sftp.maxUnauthenticatedPerAddress)`,
        ip,
      );
      socket.destroy();
      return;
    }
    const connection: Accepted = { socket, ip, client: null, loggedIn: false, partnerId: null };
    this.accepted.set(socket, connection);
    count(this.unauthenticated, ip, +1);
    // Destroyed, not ended: a client that never closes its side would keep its slot.
    const loginTimer = setTimeout(() => connection.loggedIn || socket.destroy(), loginTimeoutMs).unref();
    socket.once('close', () => {
      clearTimeout(loginTimer);
      this.accepted.delete(socket);
      if (!connection.loggedIn) {
        count(this.unauthenticated, ip, -1);
      }
      if (connection.partnerId) {
        count(this.byPartner, connection.partnerId, -1);
      }
    });
    ssh.injectSocket(socket);
  }

  /** Ends a connection, and cuts it should the client not close its side. */
  private drop(connection: Accepted): void {
    connection.client?.end();
    setTimeout(() => connection.socket.destroy(), END_GRACE_MS).unref();
  }

  private onConnection(client: Connection, info: ClientInfo): void {
    const ip = info.ip;
    let partner: PartnerProfile | null = null;
    client.on('error', (error: Error) =>
      this.logger.debug({ msg: 'sftp connection error', ip, partnerId: partner?.id, error: error.message }),
    );
    const socket = socketOf(client);
    const connection = socket && this.accepted.get(socket);
    if (!connection) {
      socket?.destroy(); // closed meanwhile
      return;
    }
    connection.client = client;
    let username = '';
    let failures = 0;

    client.on('authentication', (ctx: AuthContext) => {
      // Cut to 64 characters for the log and the throttle's keys: a client chooses its length.
      const name = ctx.username.slice(0, 64);
      const refuse = () => {
        if (++failures >= MAX_AUTH_FAILURES) {
          return this.drop(connection);
        }
        ctx.reject(['publickey', 'password']);
      };
      const lockedUntil = this.throttle.lockedUntil(name, ip);
      if (lockedUntil && ctx.method !== 'none') {
        this.logger.warn({
          msg: 'sftp login refused: locked out after repeated failures',
          username: name,
          method: ctx.method,
          ip,
          lockedUntil: lockedUntil.toISOString(),
        });
        return refuse();
      }
      this.authenticate(ctx).then(
        (result) => {
          if (result === 'probe-ok') {
            return ctx.accept();
          }
          if (result) {
            partner = result;
            username = ctx.username;
            this.throttle.succeed(name);
            this.logger.log({
              msg: 'sftp login',
              partnerId: result.id,
              username: ctx.username,
              method: ctx.method,
              ip,
            });
            return ctx.accept();
          }
          // A key the account does not hold, offered without a signature, is a client trying its keys: not a guess.
          if (ctx.method === 'none' || (ctx.method === 'publickey' && !ctx.signature)) {
            return ctx.reject(['publickey', 'password']);
          }
          const { delayMs, locked } = this.throttle.fail(name, ip);
          this.logger.warn({
            msg: 'sftp login refused',
            username: name,
            method: ctx.method,
            ip,
            ...(locked.length && { lockedOut: locked, forMs: this.config.sftp.lockoutMs }),
          });
          setTimeout(refuse, delayMs).unref();
        },
        (error: Error) => {
          this.logger.error({
            msg: 'sftp authentication failed with an error',
            method: ctx.method,
            ip,
            error: error.message,
          });
          ctx.reject(['publickey', 'password']);
        },
      );
    });

    client.on('ready', () => {
      const profile = partner;
      if (!profile) {
        return this.drop(connection);
      }
      connection.loggedIn = true;
      count(this.unauthenticated, ip, -1);
      const { maxConnectionsPerPartner } = this.config.sftp;
      if ((this.byPartner.get(profile.id) ?? 0) >= maxConnectionsPerPartner) {
        this.logRefusal(
          `sftp connection ended at login: ${maxConnectionsPerPartner} connections of this partner open (sftp.maxConnectionsPerPartner)`,
          ip,
          profile.id,
        );
        return this.drop(connection);
      }
      connection.partnerId = profile.id;
      count(this.byPartner, profile.id, +1);
      let sessions = 0;
      client.on('session', (accept, reject) => {
        if (sessions >= MAX_SESSIONS_PER_CONNECTION) {
          return reject();
        }
        // Freed when its SFTP channel closes: ssh2 keeps a session closed before any subsystem.
        sessions++;
        const session = accept();
        session.on('sftp', (acceptSftp) => {
          const channel = acceptSftp();
          channel.once('close', () => sessions--);
          new SftpSession(channel, {
            partnerId: profile.id,
            username,
            files: this.files,
            ingest: this.ingest,
            maxFileBytes: this.config.sftp.maxFileBytes,
            track: this.track,
            stillAllowed: () => this.credentials.stillAllowed(username, profile.id),
            disconnect: () => this.drop(connection),
          });
        });
        // No shell, exec, pty or forwarding: without listeners ssh2 refuses them.
      });
    });
  }

  /** Logs a refused connection, at most once per REFUSAL_LOG_EVERY_MS per reason, with how many since. */
  private logRefusal(reason: string, ip: string, partnerId?: string): void {
    const now = Date.now();
    const last = this.refusalsLogged.get(reason);
    if (last && now - last.at < REFUSAL_LOG_EVERY_MS) {
      last.since++;
      return;
    }
    this.refusalsLogged.set(reason, { at: now, since: 0 });
    this.logger.warn({
      msg: reason,
      ip,
      ...(partnerId && { partnerId }),
      ...(last?.since && { refusedSince: last.since }),
    });
  }

  /** The partner for a valid login; 'probe-ok' for a public-key query ssh2 answers with PK_OK; null otherwise. */
  private async authenticate(ctx: AuthContext): Promise<PartnerProfile | 'probe-ok' | null> {
    switch (ctx.method) {
      case 'password':
        return this.credentials.verifyPassword(ctx.username, ctx.password);
      case 'publickey':
        if (!ctx.signature || !ctx.blob) {
          return (await this.credentials.acceptsPublicKey(ctx.username, ctx.key)) ? 'probe-ok' : null;
        }
        return this.credentials.verifyPublicKey(ctx.username, ctx.key, {
          blob: ctx.blob,
          signature: ctx.signature,
          hashAlgo: ctx.hashAlgo,
        });
      default:
        return null;
    }
  }
}

/** Adds `by` to a count kept by key, dropping the key at 0 (the maps hold only what is open). */
function count(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) {
    counts.set(key, n);
  } else {
    counts.delete(key);
  }
}

/** The socket ssh2 reads a connection from (its own property: the one link from a Connection to its accept). */
const socketOf = (client: Connection) => (client as unknown as { _sock?: Socket })._sock;
