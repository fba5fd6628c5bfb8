import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { ConfigError, loadConfig } from '@dockbridge/config';
import { CoreModule, WorkerRunner } from '@dockbridge/pipeline';

/** The worker role alone: queue processors and the sweeper, no HTTP. Run as many as the load needs. */
async function main(): Promise<void> {
  const config = loadConfig();

  @Module({ imports: [CoreModule.forRoot(config)], providers: [WorkerRunner] })
  class WorkerModule {}

  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  // Only these: hooking every signal Nest knows (SIGILL, SIGTRAP among them) turns a V8 fatal error into a spin instead of an exit.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  app.get(Logger).log(`worker started (concurrency ${config.delivery.concurrency} deliveries)`, 'Worker');
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
