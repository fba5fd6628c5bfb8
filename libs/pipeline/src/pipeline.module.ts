import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { InterchangeRepository, MessageRepository, OperationRepository, ReplayRunRepository } from '@dockbridge/audit';
import { PartnerFileRepository, PartnerMappingRepository, PartnerRepository, WebhookSecretRepository } from '@dockbridge/partners';
import { RunExport } from './export/run-export';
import { AppConfig } from '@dockbridge/config';
import { PlatformAccounts } from '@dockbridge/platform';
import { AcceptMessage } from './ingress/accept-message';
import { DeliverBatch } from './delivery/deliver-batch';
import { DeliverOperation } from './delivery/deliver-operation';
import { MessageQueues } from './message-queues';
import { BulkReplays } from './replay/bulk-replay';
import { ReplayMessage } from './replay/replay-message';
import { PipelineJobHandlers } from './job-handlers';
import { RetryPolicy } from './retry-policy';
import { Schedules } from './schedules';
import { SweepStuck } from './sweep/sweep-stuck';
import { PurgeExpired } from './retention/purge-expired';
import { AcknowledgmentOutbox, TranslateMessage } from './translate/translate-message';

/** Acknowledgments land in the partner's SFTP outbound folder (stored in Postgres, so any replica serves them). */
const outboundFolder = (files: PartnerFileRepository): AcknowledgmentOutbox => ({
  deliver: async (partnerId, messageId, ack) => {
    await files.put(partnerId, 'outbound', ack.name, Buffer.from(ack.content, 'utf8'), { messageId, kind: ack.kind });
  },
});

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
      useFactory: (c: AppConfig, policy: RetryPolicy) => new MessageQueues({ redis: c.redis, prefix: c.redis.prefix, policy }),
    },
    {
      provide: PlatformAccounts,
      inject: [AppConfig],
      useFactory: (c: AppConfig) =>
        new PlatformAccounts({
          baseUrl: c.platform.baseUrl,
          token: c.platform.token,
          timeoutMs: c.platform.timeoutMs,
          accounts: c.platform.accounts.map((a) => ({ name: a.name, baseUrl: a.baseUrl, token: a.token, organisationIds: a.organisationIds })),
        }),
    },
    {
      provide: TranslateMessage,
      inject: [MessageRepository, OperationRepository, InterchangeRepository, PartnerRepository, PartnerMappingRepository, PartnerFileRepository, MessageQueues, AppConfig],
      useFactory: (
        m: MessageRepository,
        o: OperationRepository,
        i: InterchangeRepository,
        p: PartnerRepository,
        pm: PartnerMappingRepository,
        f: PartnerFileRepository,
        q: MessageQueues,
        c: AppConfig,
      ) => new TranslateMessage(m, o, i, p, pm, q, outboundFolder(f), { batchThreshold: c.delivery.batchThreshold, batchSize: c.delivery.batchSize }),
    },
    {
      provide: DeliverOperation,
      inject: [MessageRepository, OperationRepository, PlatformAccounts, RetryPolicy, AppConfig],
      useFactory: (m: MessageRepository, o: OperationRepository, a: PlatformAccounts, p: RetryPolicy, c: AppConfig) =>
        new DeliverOperation(m, o, a, p, { leaseMs: deliveryLeaseMs(c.platform.timeoutMs), breakerThreshold: c.delivery.breakerThreshold }),
    },
    {
      provide: DeliverBatch,
      inject: [MessageRepository, OperationRepository, PlatformAccounts, MessageQueues, AppConfig],
      useFactory: (m: MessageRepository, o: OperationRepository, a: PlatformAccounts, q: MessageQueues, c: AppConfig) =>
        new DeliverBatch(m, o, a, q, { pollMs: c.delivery.batchPollMs, maxWaitMs: BATCH_MAX_WAIT_MS, unknownOutcomeMs: 2 * c.platform.timeoutMs }),
    },
    {
      provide: SweepStuck,
      inject: [MessageRepository, OperationRepository, MessageQueues, TranslateMessage, AppConfig, ReplayRunRepository],
      useFactory: (m: MessageRepository, o: OperationRepository, q: MessageQueues, t: TranslateMessage, c: AppConfig, r: ReplayRunRepository) =>
        new SweepStuck(m, o, q, t, { staleMs: c.delivery.sweepStaleMs }, r),
    },
    {
      provide: PurgeExpired,
      inject: [MessageRepository, InterchangeRepository, AppConfig],
      useFactory: (m: MessageRepository, i: InterchangeRepository, c: AppConfig) => new PurgeExpired(m, i, c.audit),
    },
    {
      provide: ReplayMessage,
      inject: [MessageRepository, OperationRepository, MessageQueues, PartnerRepository],
      useFactory: (m: MessageRepository, o: OperationRepository, q: MessageQueues, p: PartnerRepository) => new ReplayMessage(m, o, q, p),
    },
    {
      provide: BulkReplays,
      inject: [MessageRepository, ReplayRunRepository, ReplayMessage, MessageQueues],
      useFactory: (m: MessageRepository, r: ReplayRunRepository, rm: ReplayMessage, q: MessageQueues) => new BulkReplays(m, r, rm, q),
    },
    {
      provide: AcceptMessage,
      inject: [MessageRepository, MessageQueues],
      useFactory: (m: MessageRepository, q: MessageQueues) => new AcceptMessage(m, q),
    },
    {
      provide: RunExport,
      inject: [PartnerRepository, MessageRepository, PartnerFileRepository, WebhookSecretRepository, PlatformAccounts],
      useFactory: (p: PartnerRepository, m: MessageRepository, f: PartnerFileRepository, w: WebhookSecretRepository, a: PlatformAccounts) => new RunExport(p, m, f, w, a),
    },
    Schedules,
    PipelineJobHandlers,
    ConnectionsCloser,
  ],
  exports: [RunExport, AcceptMessage, RetryPolicy, MessageQueues, PlatformAccounts, TranslateMessage, DeliverOperation, DeliverBatch, SweepStuck, PurgeExpired, ReplayMessage, BulkReplays, Schedules, PipelineJobHandlers],
})
export class PipelineModule {}
