import { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FaultInjector } from './controls/faults';
import { RequestStats } from './controls/request-stats';
import { SandboxModule, SandboxOptions } from './sandbox.module';

export interface SandboxAppOptions extends SandboxOptions {
  bodyLimitBytes?: number;
  logger?: false | LogLevel[];
}

const CONTROLS_PREFIX = '/__sandbox';

/** Builds the sandbox application (not yet listening): the platform's interface plus, optionally, its controls. */
export async function createSandboxApp(options: SandboxAppOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimitBytes ?? 64 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  });
  const app = await NestFactory.create<NestFastifyApplication>(SandboxModule.forRoot(options), adapter, {
    logger: options.logger ?? ['error', 'warn'],
  });
  const faults = app.get(FaultInjector);
  const stats = app.get(RequestStats);
  const fastify = app.getHttpAdapter().getInstance();
  const answerLate = new WeakMap<FastifyRequest, number>();

  // Faults act like a failing proxy in front of the platform: before authentication and routing.
  fastify.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    if (path.startsWith(CONTROLS_PREFIX)) {
      return;
    }
    const fault = faults.decide(request.method, path, graphqlOperationOf(request.body));
    if (!fault) {
      return;
    }
    if (fault.latencyMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, fault.latencyMs).unref());
    }
    if (fault.status === 0) {
      if (fault.answerLatencyMs > 0) {
        answerLate.set(request, fault.answerLatencyMs);
      }
      return;
    }
    if (fault.status === 429) {
      void reply.header('retry-after', '1');
    }
    return reply.status(fault.status).send({
      error: 'Injected fault',
      details: [`a sandbox fault rule answered ${fault.status} for ${request.method} ${path}`],
    });
  });
  // The work is done; only the answer is late (a caller that times out does not know it was done).
  fastify.addHook('onSend', async (request: FastifyRequest) => {
    const late = answerLate.get(request);
    if (late) {
      await new Promise((resolve) => setTimeout(resolve, late).unref());
    }
  });
  fastify.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url ?? '(no route)';
    if (!route.startsWith(CONTROLS_PREFIX)) {
      stats.record(`${request.method} ${route}`, reply.statusCode);
    }
  });
  return app;
}

/** The first field of a GraphQL request's operation (`createBooking`, `booking`, ...), if the body is one. */
function graphqlOperationOf(body: unknown): string | undefined {
  const query = (body as { query?: unknown } | undefined)?.query;
  if (typeof query !== 'string') {
    return undefined;
  }
  return /\{\s*(?:\w+\s*:\s*)?(\w+)/.exec(query)?.[1];
}
