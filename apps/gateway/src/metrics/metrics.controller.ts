import { Controller, Get, Header } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Gauge, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { MessageQueues } from '@dockbridge/pipeline';

/**
 * Prometheus metrics, read at scrape time from the audit store and the queues, so every gateway
 * replica reports the same numbers whichever worker did the work.
 */
@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  private readonly registry = new Registry();

  constructor(dataSource: DataSource, queues: MessageQueues) {
    const count = (sql: string) => dataSource.query(sql) as Promise<{ label: string; n: string }[]>;
    new Gauge({
      name: 'dockbridge_messages',
      help: 'Messages by status',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await count('SELECT status AS label, count(*) AS n FROM message GROUP BY status')) this.set({ status: row.label }, Number(row.n));
      },
    });
    new Gauge({
      name: 'dockbridge_delivery_attempts',
      help: 'Delivery attempts by outcome class (success, retryable, permanent, auth)',
      labelNames: ['outcome'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await count('SELECT outcome AS label, count(*) AS n FROM attempt GROUP BY outcome')) this.set({ outcome: row.label }, Number(row.n));
      },
    });
    new Gauge({
      name: 'dockbridge_operations_failed',
      help: 'Failed operations by error class; auth > 0 needs a token or permission fixed',
      labelNames: ['class'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await count("SELECT error_class AS label, count(*) AS n FROM operation WHERE status = 'failed' GROUP BY error_class")) {
          this.set({ class: row.label ?? 'unknown' }, Number(row.n));
        }
      },
    });
    new Gauge({
      name: 'dockbridge_queue_jobs',
      help: 'Jobs per queue and state',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const [queue, states] of Object.entries(await queues.depths())) {
            for (const [state, n] of Object.entries(states)) this.set({ queue, state }, n);
          }
        } catch {
          // Redis down: the health check says so; the other metrics still answer.
        }
      },
    });
  }

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
