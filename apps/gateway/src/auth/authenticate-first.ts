import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UnauthorizedException } from '@nestjs/common';
import type { PartnerRepository } from '@dockbridge/partners';
import { bearerOf, type OperatorAccess } from '@dockbridge/pipeline';
import type { OperatorRequest } from './operator-role.guard';
import { partnerOf } from './partner-api-key.guard';

/** The credential a route takes from the headers: a partner API key, an admin or operator token, or none (webhooks verify their body; health, metrics, docs). */
export type RouteCredential = 'partner' | 'admin' | null;

/**
 * Which credential the route `pattern` (Fastify's route URL, e.g. `/v1/admin/messages/:id`)
 * needs. By route, not by the request's URL: `/v1/%6Dessages` reaches the same route.
 */
export function credentialOf(pattern: string | undefined): RouteCredential {
  if (!pattern) {
    return null;
  }
  if (/^\/v1\/(messages|edi)(\/|$)/.test(pattern)) {
    return 'partner';
  }
  if (/^\/v1\/admin(\/|$)/.test(pattern)) {
    return 'admin';
  }
  return null;
}

/**
 * Credentials are checked from the headers, before a byte of the body is read: an unauthenticated
 * request to the partner API or the admin API is answered 401 at once (and its connection closed),
 * so nobody without a key can make the gateway read and parse megabytes. The route guards run
 * again on what this found (the partner is kept on the request).
 */
export function authenticateFirst(
  fastify: FastifyInstance,
  partners: PartnerRepository,
  operators: OperatorAccess,
): void {
  fastify.addHook(
    'onRequest',
    async (request: FastifyRequest & { partner?: unknown } & OperatorRequest, reply: FastifyReply) => {
      const credential = credentialOf(request.routeOptions.url);
      if (credential === 'partner') {
        try {
          request.partner = await partnerOf(request.headers, partners);
        } catch (error) {
          if (!(error instanceof UnauthorizedException)) {
            throw error;
          }
          return refuse(reply, 401, error.message);
        }
      } else if (credential === 'admin') {
        const access = await operators.identify(bearerOf(request.headers.authorization));
        if ('identity' in access) {
          request.operator = access.identity;
        } else if (access.refused === 'disabled') {
          return refuse(reply, 503, 'the admin API is disabled: set ADMIN_TOKEN (gateway.adminToken)');
        } else {
          return refuse(reply, 401, 'missing or invalid admin token');
        }
      }
    },
  );
}

/**
 * A request for no route is answered 404 before its body is read: Fastify's not-found handler
 * would otherwise read (and parse) up to the body limit first. Requests without a body keep Nest's 404.
 */
export function refuseUnknownRoutesFirst(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    if (!request.is404 || !announcesBody(request)) {
      return;
    }
    return refuse(reply, 404, `Cannot ${request.method} ${request.url.split('?')[0]}`);
  });
}

const announcesBody = (request: FastifyRequest): boolean =>
  request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

const ERRORS: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found', 503: 'Service Unavailable' };

function refuse(reply: FastifyReply, statusCode: 401 | 404 | 503, reason: string): FastifyReply {
  // The unread body is never consumed: the connection goes with the answer.
  return reply
    .header('connection', 'close')
    .status(statusCode)
    .send({ statusCode, error: ERRORS[statusCode], details: [reason] });
}
