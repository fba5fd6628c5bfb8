import 'reflect-metadata';
import { createServer } from 'node:http';
import { getHeapStatistics } from 'node:v8';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppConfig, ConfigError, loadConfig } from '@dockbridge/config';
import {
  CoreModule,
  PipelineMetrics,
  QueueHealth,
  WorkerRunner,
  heapLimitGiven,
  workerHeapAdvice,
} from '@dockbridge/pipeline';

/** The worker role alone: queue processors and the sweeper, no HTTP but its own /health and /metrics. Run as many as the load needs. */
async function main(): Promise<void> {
  const config = loadConfig();

  @Module({ imports: [CoreModule.forRoot(config)], providers: [WorkerRunner, QueueHealth] })
  class WorkerModule {}

  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  // Only these: hooking every signal Nest knows (SIGILL, SIGTRAP among them) turns a V8 fatal error into a spin instead of an exit.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  if (config.worker.healthPort > 0) {
    serveHealth(app.get(QueueHealth), app.get(PipelineMetrics), app.get(AppConfig));
  }
  const logger = app.get(Logger);
  logger.log(`worker started (concurrency ${config.delivery.concurrency} deliveries)`, 'Worker');
  const advice = workerHeapAdvice(
    { ...config.worker, bodyLimitBytes: config.gateway.bodyLimitBytes },
    getHeapStatistics().heap_size_limit,
    heapLimitGiven(process.execArgv, process.env.NODE_OPTIONS),
  );
  if (advice) {
    logger.warn(advice, 'Worker');
  }
}

/**
 * GET /health: 200 while the worker can reach its queues, 503 with the reason when it cannot (for an
 * orchestrator's probe). GET /metrics: what this worker did (deliveries, translations), for Prometheus.
 */
function serveHealth(health: QueueHealth, metrics: PipelineMetrics, config: AppConfig): void {
  const server = createServer((request, response) => {
    if (request.url === '/metrics') {
      void metrics.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
      return;
    }
    const state = health.state;
    const status = request.url === '/health' ? (state.up ? 200 : 503) : 404;
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(
        JSON.stringify(
          status === 404 ? { message: 'not found' } : { status: state.up ? 'ok' : 'error', queues: state },
        ),
      );
  });
  server.listen(config.worker.healthPort, config.worker.healthHost).unref();
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
