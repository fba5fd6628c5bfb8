import { Injectable } from '@nestjs/common';
import { MessageRepository } from '@dockbridge/audit';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Seconds: a platform call takes tens of ms to a timeout of 30 s; a translation up to minutes for a large file. */
const CALL_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const TRANSLATE_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300];

/**
 * What this process did, counted as it happens (not read back from the database at scrape time):
 * messages received and settled, webhooks refused, platform calls with their outcome class and duration,
 * translations with their outcome and duration, and Node's own process metrics. Every process
 * (gateway, worker, one-machine) has one; Prometheus sums the replicas.
 */
@Injectable()
export class PipelineMetrics {
  readonly registry = new Registry();

  readonly received = new Counter({
    name: 'dockbridge_messages_received_total',
    help: 'Messages recorded at ingress, by partner and channel (api, sftp, http-edi, webhook)',
    labelNames: ['partner', 'channel'] as const,
    registers: [this.registry],
  });

  readonly refused = new Counter({
    name: 'dockbridge_webhooks_refused_total',
    help: 'Webhooks refused at ingress, by partner and kind (verification failed, too large, not utf-8)',
    labelNames: ['partner', 'kind'] as const,
    registers: [this.registry],
  });

  readonly calls = new Histogram({
    name: 'dockbridge_delivery_call_seconds',
    help: 'Platform calls (one operation, or one batch job) by operation kind and outcome class (success, retryable, permanent, auth)',
    labelNames: ['kind', 'outcome'] as const,
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });

  readonly translations = new Histogram({
    name: 'dockbridge_translate_seconds',
    help: 'Translations of one message by content type and outcome (queued, rejected, duplicate, failed)',
    labelNames: ['content_type', 'outcome'] as const,
    buckets: TRANSLATE_BUCKETS,
    registers: [this.registry],
  });

  readonly settled = new Counter({
    name: 'dockbridge_messages_settled_total',
    help: 'Messages that reached a final status in this process, by partner, channel and outcome (delivered, partially_failed, failed, rejected, duplicate, superseded)',
    labelNames: ['partner', 'channel', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(messages: MessageRepository) {
    collectDefaultMetrics({ register: this.registry, prefix: 'dockbridge_' });
    messages.onSettled((message) =>
      this.settled.inc({ partner: message.partnerId, channel: message.channel, outcome: message.status }),
    );
  }
}
