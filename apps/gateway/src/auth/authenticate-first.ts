import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UnauthorizedException } from '@nestjs/common';
import type { PartnerRepository } from '@dockbridge/partners';
import { BearerToken } from './admin-token.guard';
import { partnerOf } from './partner-api-key.guard';

const PARTNER_ROUTES = /^\/v1\/(messages|edi)(\/|\?|$)/;
const ADMIN_ROUTES = /^\/v1\/admin(\/|\?|$)/;

/**
 * Credentials are checked from the headers, before a byte of the body is read: an unauthenticated
 * request to the partner API or the admin API is answered 401 at once (and its connection closed),
 * so nobody without a key can make the gateway read and parse megabytes. The route guards run
 * again on what this found (the partner is kept on the request).
 */
export function authenticateFirst(fastify: FastifyInstance, partners: PartnerRepository, adminToken: string | undefined): void {
  const admin = new BearerToken(adminToken);
  fastify.addHook('onRequest', async (request: FastifyRequest & { partner?: unknown }, reply: FastifyReply) => {
    if (PARTNER_ROUTES.test(request.url)) {
      try {
        request.partner = await partnerOf(request.headers, partners);
      } catch (error) {
        if (!(error instanceof UnauthorizedException)) throw error;
        return refuse(reply, error.message);
      }
    } else if (ADMIN_ROUTES.test(request.url) && admin.enabled) {
      if (!admin.matches(/^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1])) return refuse(reply, 'missing or invalid admin token');
    }
  });
}

function refuse(reply: FastifyReply, reason: string): FastifyReply {
  // The unread body is never consumed: the connection goes with the answer.
  return reply.header('connection', 'close').status(401).send({ statusCode: 401, error: 'Unauthorized', details: [reason] });
}
