import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BoardAdapter } from '@bull-board/fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerOf, MessageQueues, OperatorAccess } from '@dockbridge/pipeline';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * The admin token from `Authorization: Bearer <token>`, or from Basic auth (any user name, the token
 * as password): a browser asks for the latter by itself.
 */
function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization ?? '';
  const bearer = bearerOf(header);
  if (bearer) {
    return bearer;
  }
  const basic = /^Basic\s+(\S+)$/i.exec(header)?.[1];
  if (!basic) {
    return undefined;
  }
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) || undefined;
}

/**
 * bull-board at /admin/queues: every queue's jobs (waiting, active, delayed, failed, completed) with
 * their data and errors, for any operator token (every role may read). Read-only: changes go through the admin API and
 * the CLI (replay), so the audit log stays the one record of what operators did.
 */
export async function mountQueueDashboard(app: NestFastifyApplication, operators: OperatorAccess): Promise<void> {
  const board = new BoardAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: app
      .get(MessageQueues)
      .all()
      .map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter: board,
  });
  await app
    .getHttpAdapter()
    .getInstance()
    .register(async (scope) => {
      scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        const access = await operators.identify(presentedToken(request));
        if ('identity' in access) {
          return;
        }
        if (access.refused === 'disabled') {
          return reply.status(503).send({
            statusCode: 503,
            error: 'Service Unavailable',
            details: ['the queue dashboard is disabled: set ADMIN_TOKEN (gateway.adminToken)'],
          });
        }
        return reply
          .status(401)
          .header('www-authenticate', 'Basic realm="dockbridge queues", charset="UTF-8"')
          .send({
            statusCode: 401,
            error: 'Unauthorized',
            details: ['missing or invalid admin token (Bearer, or Basic with the token as password)'],
          });
      });
      await scope.register(board.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
    });
}
