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
    /** A gauge of counts by one label, from a `SELECT <label> AS label, count(*) AS n ... GROUP BY` at scrape time. */
    const countsBy = (name: string, help: string, label: string, sql: string) =>
      new Gauge({
        name,
        help,
        labelNames: [label],
        registers: [this.registry],
        async collect() {
          this.reset();
          const rows: { label: string | null; n: string }[] = await dataSource.query(sql);
          for (const row of rows) this.set({ [label]: row.label ?? 'unknown' }, Number(row.n));
        },
      });
    countsBy('dockbridge_messages', 'Messages by status', 'status', 'SELECT status AS label, count(*) AS n FROM message GROUP BY status');
    countsBy('dockbridge_delivery_attempts', 'Delivery attempts by outcome class (success, retryable, permanent, auth)', 'outcome', 'SELECT outcome AS label, count(*) AS n FROM attempt GROUP BY outcome');
    countsBy(
      'dockbridge_operations_failed',
      'Failed operations by error class; auth > 0 needs a token or permission fixed',
      'class',
      "SELECT error_class AS label, count(*) AS n FROM operation WHERE status = 'failed' GROUP BY error_class",
    );
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
