import type { Server, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { credentialOf } from './auth/authenticate-first';

/**
 * A request must arrive whole within `ms` of its first byte: a client that trickles its body is
 * answered 408 and cut off (Node's own requestTimeout stops counting once a handler reads the body).
 */
export function limitRequestTime(fastify: FastifyInstance, ms: number): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (!raw.complete) {
      const timer = setTimeout(() => {
        if (raw.complete) {
          return;
        }
        if (!reply.sent) {
          void reply
            .header('connection', 'close')
            .status(408)
            .send({
              statusCode: 408,
              error: 'Request Timeout',
              details: [`the request did not arrive whole within ${ms} ms`],
            });
        }
        // Answered, the request is no longer the server's to end: a handler still reading it (an upload
        // stored as it arrives) would wait for ever, so it ends, cut off, when its connection goes.
        raw.socket.once('close', () => raw.destroy());
        raw.socket.destroySoon();
      }, ms).unref();
      raw.once('end', () => clearTimeout(timer));
      raw.once('close', () => clearTimeout(timer));
    }
    done();
  });
}

/**
 * At most `perAddress` open connections from one address (0: no cap); more are closed as they
 * come. Behind a proxy every client shares its address: raise or turn off the cap there.
 */
export function capConnectionsPerAddress(server: Server, perAddress: number): void {
  if (perAddress <= 0) {
    return;
  }
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > perAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) {
        open.set(address, left);
      } else {
        open.delete(address);
      }
    });
  });
}

/**
 * The body limit by who is asking: routes whose credential is checked from the headers first
 * (the partner and admin APIs) take up to `authenticated` bytes; every other route keeps the
 * server's small default unless it sets its own (webhooks: their partner's limit).
 */
export function limitBodiesByCredential(fastify: FastifyInstance, authenticated: number): void {
  fastify.addHook('onRoute', (route) => {
    if (route.bodyLimit === undefined && credentialOf(route.url) !== null) {
      route.bodyLimit = authenticated;
    }
  });
}

/**
 * An answer sent before its request's body arrived whole (a 413 as an upload crosses its limit, a
 * 503 before it is read) closes the connection: keeping it open would mean reading the rest first.
 */
export function closeWhenBodyUnread(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && !reply.hasHeader('connection')) {
      void reply.header('connection', 'close');
    }
    done(null, payload);
  });
}
