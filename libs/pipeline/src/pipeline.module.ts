import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { PartnerFileRepository } from '@dockbridge/partners';
import { RunExport } from './export/run-export';
import { AppConfig } from '@dockbridge/config';
import { PlatformAccounts } from '@dockbridge/platform';
import { MessageQueries } from './admin/message-queries';
import { OperatorAccess } from './admin/operator-access';
import { DryRuns } from './admin/dry-runs';
import { DashboardStats } from './admin/dashboard-stats';
import { AcceptMessage } from './ingress/accept-message';
import { ReceiveApiMessage } from './ingress/receive-api-message';
import { ReceiveUpload, type UploadOptions } from './ingress/receive-upload';
import { ReceiveWebhook } from './ingress/receive-webhook';
import { RefusalLog } from './ingress/refusal-log';
import { WebhookEndpoints } from './ingress/webhook-endpoints';
import { DeliverBatch } from './delivery/deliver-batch';
import { DeliverOperation } from './delivery/deliver-operation';
import { MessageQueues } from './message-queues';
import { BulkReplays } from './replay/bulk-replay';
import { ReplayMessage } from './replay/replay-message';
import { EndMessage } from './delivery/end-message';
import { PipelineJobHandlers } from './job-handlers';
import {
  ACKNOWLEDGMENT_OUTBOX,
  BATCH_OPTIONS,
  DELIVERY_OPTIONS,
  RETENTION_OPTIONS,
  SWEEP_OPTIONS,
  TRANSLATE_OPTIONS,
  UPLOAD_OPTIONS,
} from './pipeline.options';
import { RetryPolicy } from './retry-policy';
import { Schedules } from './schedules';
import { SweepStuck } from './sweep/sweep-stuck';
import { PurgeExpired } from './retention/purge-expired';
import { PipelineMetrics } from './pipeline-metrics';
import { MessagePayloads } from './translate/message-payloads';
import { outboundFolder } from './translate/acknowledgment-outbox';
import { TranslateMessage } from './translate/translate-message';
import { PayloadBudget } from './payload-budget';

/** Longest wait for one platform document job. */
const BATCH_MAX_WAIT_MS = 10 * 60_000;
/** A single call's lease on its target: its timeout with room for a retry of the connection and the bookkeeping around it. */
const deliveryLeaseMs = (timeoutMs: number) => 2 * timeoutMs + 5_000;

/** Closes the queue and platform connections when the application stops (after the last ingress commit). */
@Injectable()
class ConnectionsCloser implements OnApplicationShutdown {
  constructor(
    @Inject(MessageQueues) private readonly queues: MessageQueues,
    @Inject(PlatformAccounts) private readonly accounts: PlatformAccounts,
    @Inject(AcceptMessage) private readonly accept: AcceptMessage,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.accept.drain();
    await Promise.all([this.queues.close(), this.accounts.close()]);
  }
}

/** The use cases and services other modules inject: one list, so what is provided is also exported. */
const SERVICES = [
  PipelineMetrics,
  MessagePayloads,
  TranslateMessage,
  DeliverOperation,
  DeliverBatch,
  SweepStuck,
  PurgeExpired,
  ReplayMessage,
  BulkReplays,
  EndMessage,
  AcceptMessage,
  ReceiveUpload,
  WebhookEndpoints,
  RefusalLog,
  ReceiveWebhook,
  ReceiveApiMessage,
  MessageQueries,
  OperatorAccess,
  DryRuns,
  DashboardStats,
  RunExport,
  Schedules,
  PipelineJobHandlers,
];

/**
 * The pipeline's pieces, built from the one AppConfig: queues, the retry policy, platform
 * accounts and the use cases (translate, deliver, batch, sweep, replay). Needs AuditModule.
 */
@Global()
@Module({
  providers: [
    { provide: RetryPolicy, inject: [AppConfig], useFactory: (c: AppConfig) => new RetryPolicy(c.delivery) },
    {
      provide: MessageQueues,
      inject: [AppConfig, RetryPolicy],
      useFactory: (c: AppConfig, policy: RetryPolicy) =>
        new MessageQueues({ redis: c.redis, prefix: c.redis.prefix, policy }),
    },
    {
      provide: PlatformAccounts,
      inject: [AppConfig],
      useFactory: (c: AppConfig) =>
        new PlatformAccounts({
          baseUrl: c.platform.baseUrl,
          token: c.platform.token,
          timeoutMs: c.platform.timeoutMs,
          accounts: c.platform.accounts.map((a) => ({
            name: a.name,
            baseUrl: a.baseUrl,
            token: a.token,
            organisationIds: a.organisationIds,
          })),
        }),
    },
    {
      provide: TRANSLATE_OPTIONS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        batchThreshold: config.delivery.batchThreshold,
        batchSize: config.delivery.batchSize,
        batchMaxBytes: config.delivery.batchMaxBytes,
        largeFilesAtOnce: config.worker.largeFilesAtOnce,
      }),
    },
    {
      provide: PayloadBudget,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new PayloadBudget(config.worker.textBytesAtOnce),
    },
    { provide: ACKNOWLEDGMENT_OUTBOX, inject: [PartnerFileRepository], useFactory: outboundFolder },
    {
      provide: UPLOAD_OPTIONS,
      inject: [AppConfig],
      useFactory: ({ sftp }: AppConfig): UploadOptions => ({
        maxConcurrentUploads: sftp.maxConcurrentUploads,
        maxUploadsPerPartner: sftp.maxUploadsPerPartner,
        maxHeldBytes: sftp.maxHeldBytes,
      }),
    },
    {
      provide: DELIVERY_OPTIONS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        leaseMs: deliveryLeaseMs(config.platform.timeoutMs),
        breakerThreshold: config.delivery.breakerThreshold,
      }),
    },
    {
      provide: BATCH_OPTIONS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        pollMs: config.delivery.batchPollMs,
        maxWaitMs: BATCH_MAX_WAIT_MS,
        unknownOutcomeMs: 2 * config.platform.timeoutMs,
      }),
    },
    {
      provide: SWEEP_OPTIONS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({ staleMs: config.delivery.sweepStaleMs }),
    },
    { provide: RETENTION_OPTIONS, inject: [AppConfig], useFactory: (config: AppConfig) => config.audit },
    ...SERVICES,
    ConnectionsCloser,
  ],
  exports: [RetryPolicy, MessageQueues, PlatformAccounts, ...SERVICES],
})
export class PipelineModule {}
