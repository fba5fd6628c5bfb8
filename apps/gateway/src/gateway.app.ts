import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { RawServerDefault } from 'fastify';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger, PinoLogger } from 'nestjs-pino';
import { AppConfig } from '@dockbridge/config';
import { PartnerRepository } from '@dockbridge/partners';
import { CoreModule, OperatorAccess, WorkerRunner } from '@dockbridge/pipeline';

import { parseX12Body, X12_BODY_TYPES } from './edi/x12-body';
import { jsonBodyParser } from './json-body';
import { GatewayModule } from './gateway.module';
import { mountQueueDashboard } from './admin/queue-dashboard';
import { mountConsole } from './console/console-static';
import { authenticateFirst, refuseUnknownRoutesFirst } from './auth/authenticate-first';
import {
  capConnectionsPerAddress,
  closeWhenBodyUnread,
  limitBodiesByCredential,
  limitRequestTime,
} from './http-limits';
import { logRequests } from './request-log';
import { applyWebhookBodyLimits, WEBHOOK_ROUTE } from './webhooks/webhook-body-limit';

export interface GatewayAppOptions {
  config: AppConfig;
  /** Also run the queue workers in this process (one-machine mode and tests). */
  withWorker?: boolean;
  /** Nest's own start-up logs (route maps); off by default. */
  bufferLogs?: boolean;
}

@Module({})
class GatewayRootModule {
  static forRoot(options: GatewayAppOptions): DynamicModule {
    const extra: ModuleMetadata['providers'] = options.withWorker ? [WorkerRunner] : [];
    return {
      module: GatewayRootModule,
      imports: [CoreModule.forRoot(options.config), GatewayModule],
      providers: extra,
    };
  }
}

/** Builds the gateway application (not yet listening), with OpenAPI at /docs. */
export async function createGatewayApp(options: GatewayAppOptions): Promise<NestFastifyApplication> {
  const { gateway } = options.config;
  const adapter = new FastifyAdapter({
    // Small unless a route says otherwise: the partner and admin APIs, authenticated before their body, get bodyLimitBytes.
    bodyLimit: gateway.unauthenticatedBodyLimitBytes,
    requestTimeout: gateway.requestTimeoutMs,
    connectionTimeout: gateway.connectionTimeoutMs,
    routerOptions: { ignoreTrailingSlash: true },
  });
  const app = await NestFactory.create<NestFastifyApplication>(GatewayRootModule.forRoot(options), adapter, {
    rawBody: true,
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  // X12 bodies are taken as sent: the upload's as the request stream, stored as it arrives; others as text.
  fastify.addContentTypeParser(X12_BODY_TYPES, parseX12Body);
  // JSON as Fastify parses it, except a webhook's body, which is not parsed here: its exact bytes are
  // verified first (parsing a forged 1 MiB body cost ~30 MB and up to 113 ms of the loop, for nothing),
  // then held to the same limits and recorded; translation rejects one that is not JSON, saying why.
  const parseJson = jsonBodyParser(fastify);
  app.useBodyParser<RawServerDefault>('application/json', {}, (request, body, done) =>
    request.routeOptions.url === WEBHOOK_ROUTE ? done(null, undefined) : parseJson(request, body, done),
  );
  logRequests(fastify, PinoLogger.root);
  limitRequestTime(fastify, gateway.requestTimeoutMs);
  refuseUnknownRoutesFirst(fastify);
  authenticateFirst(fastify, app.get(PartnerRepository), app.get(OperatorAccess));
  limitBodiesByCredential(fastify, gateway.bodyLimitBytes);
  closeWhenBodyUnread(fastify);
  capConnectionsPerAddress(app.getHttpServer(), gateway.maxConnectionsPerAddress);
  applyWebhookBodyLimits(app, options.config.gateway.bodyLimitBytes);
  await mountQueueDashboard(app, app.get(OperatorAccess));
  await mountConsole(app);
  // Only these: hooking every signal Nest knows (SIGILL, SIGTRAP among them) turns a V8 fatal error into a spin instead of an exit.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('dockbridge')
      .setDescription('Integration gateway for the dock booking platform: ingress, admin API, operations')
      .setVersion('1')
      .addBearerAuth()
      .addApiKey({ type: 'apiKey', name: 'X-API-Key', in: 'header' }, 'partner-key')
      .build(),
  );
  SwaggerModule.setup('docs', app, document);
  return app;
}
