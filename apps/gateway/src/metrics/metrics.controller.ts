import { Controller, ForbiddenException, Get, Headers, Req, Res, UnauthorizedException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Gauge, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { AppConfig } from '@dockbridge/config';
import { BearerToken, MessageQueues, PipelineMetrics, type QueueState } from '@dockbridge/pipeline';
import { ApiErrors } from '../openapi/error.schemas';

type Counts = { label: string | null; n: string }[];

interface Snapshot {
  messages: Counts;
  attempts: Counts;
  failed: Counts;
  queues: Record<string, Record<string, number>> | null;
  queueStates: QueueState[] | null;
}

/**
 * Prometheus metrics, read from the audit store and the queues, so every gateway replica reports
 * the same numbers whichever worker did the work. Those reads are whole-table counts: they run at
 * most once per `gateway.metricsCacheMs` whatever the scrape rate (concurrent scrapes share one
 * refresh), so scraping cannot load the database that deliveries need. With `gateway.metricsToken`
 * set, a scrape needs it as a bearer token; without one, only this machine may scrape (the series
 * name every partner and its volumes, and the gateway's port is the one partners reach).
 */
@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  private readonly registry = new Registry();
  private readonly token: BearerToken;
  private snapshot: { at: number; value: Promise<Snapshot> } | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: MessageQueues,
    private readonly config: AppConfig,
    private readonly pipeline: PipelineMetrics,
  ) {
    this.token = new BearerToken(config.gateway.metricsToken);
    const read = () => this.read();
    const countsBy = (name: string, help: string, label: string, pick: (s: Snapshot) => Counts) =>
      new Gauge({
        name,
        help,
        labelNames: [label],
        registers: [this.registry],
        async collect() {
          const rows = pick(await read());
          this.reset();
          for (const row of rows) {
            this.set({ [label]: row.label ?? 'unknown' }, Number(row.n));
          }
        },
      });
    countsBy('dockbridge_messages', 'Messages by status', 'status', (s) => s.messages);
    countsBy(
      'dockbridge_delivery_attempts',
      'Delivery attempts by outcome class (success, retryable, permanent, auth)',
      'outcome',
      (s) => s.attempts,
    );
    countsBy(
      'dockbridge_operations_failed',
      'Failed operations by error class; auth > 0 needs a token or permission fixed',
      'class',
      (s) => s.failed,
    );
    new Gauge({
      name: 'dockbridge_queue_jobs',
      help: 'Jobs per queue and state',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        const depths = (await read()).queues;
        this.reset();
        // Redis down: no queue series; the health check says so, the other metrics still answer.
        for (const [queue, states] of Object.entries(depths ?? {})) {
          for (const [state, n] of Object.entries(states)) {
            this.set({ queue, state }, n);
          }
        }
      },
    });
    new Gauge({
      name: 'dockbridge_queue_oldest_waiting_seconds',
      help: 'Age of the oldest job waiting in each queue (0: none waits); a growing age means the workers do not keep up',
      labelNames: ['queue'],
      registers: [this.registry],
      async collect() {
        const states = (await read()).queueStates;
        this.reset();
        for (const queue of states ?? []) {
          this.set({ queue: queue.name }, queue.oldestWaitingSeconds ?? 0);
        }
      },
    });
  }

  @Get()
  @ApiOperation({ summary: 'Prometheus metrics: what this process counted, then the store and queue counts' })
  @ApiBearerAuth()
  @ApiOkResponse({
    description: 'Prometheus text exposition format',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiErrors(
    [401, 'gateway.metricsToken is set and the bearer token is missing or wrong'],
    [403, 'gateway.metricsToken is not set and the scrape comes from another machine'],
  )
  async metrics(
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (this.token.enabled && !this.token.matches(/^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1])) {
      throw new UnauthorizedException('missing or invalid metrics token');
    }
    if (!this.token.enabled && !isLoopback(request.socket.remoteAddress)) {
      throw new ForbiddenException(
        'metrics name partners and their volumes: set METRICS_TOKEN (gateway.metricsToken) to scrape from another machine',
      );
    }
    // What this process counted (ingress; deliveries and translations when it runs the worker too), then the store's counts.
    const text = `${await this.pipeline.registry.metrics()}\n${await this.registry.metrics()}`;
    void reply.header('content-type', this.registry.contentType);
    return text;
  }

  /** The counts, refreshed when older than the cache period (one refresh at a time; a failed one is retried next scrape). */
  private read(): Promise<Snapshot> {
    const now = Date.now();
    if (!this.snapshot || now - this.snapshot.at >= this.config.gateway.metricsCacheMs) {
      const value = this.query();
      this.snapshot = { at: now, value };
      value.catch(() => {
        if (this.snapshot?.value === value) {
          this.snapshot = null;
        }
      });
    }
    return this.snapshot.value;
  }

  private async query(): Promise<Snapshot> {
    const counts = (sql: string): Promise<Counts> => this.dataSource.query(sql);
    const [messages, attempts, failed, queues, queueStates] = await Promise.all([
      counts('SELECT status AS label, count(*) AS n FROM message GROUP BY status'),
      counts('SELECT outcome AS label, count(*) AS n FROM attempt GROUP BY outcome'),
      counts("SELECT error_class AS label, count(*) AS n FROM operation WHERE status = 'failed' GROUP BY error_class"),
      this.queues.depths().catch(() => null),
      this.queues.states().catch(() => null),
    ]);
    return { messages, attempts, failed, queues, queueStates };
  }
}

/** A connection from this machine: 127.0.0.0/8, ::1, or IPv4 loopback as IPv6 sees it. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) {
    return false;
  }
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}
