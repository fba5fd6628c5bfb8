import { DataSource } from 'typeorm';
import {
  createAuditDataSource,
  InterchangeRepository,
  MessageRepository,
  OperationRepository,
  runMigrations,
} from '@dockbridge/audit';
import {
  PARTNER_ENTITIES,
  PARTNER_MIGRATIONS,
  PartnerFileRepository,
  PartnerMappingRepository,
  PartnerRepository,
} from '@dockbridge/partners';
import { MessagePayloads, PayloadBudget, TEXT_BYTES_AT_ONCE, TranslateMessage } from '@dockbridge/pipeline';
import type {
  AcknowledgmentOutbox,
  MessageQueues,
  QueueName,
  TranslateJob,
  TranslateOptions,
} from '@dockbridge/pipeline';
import { createTestDatabase, TestDatabase } from './database';

/** A database of its own with the audit and partner tables, for a medium spec (one use case on real Postgres). */
export async function startMediumDatabase(): Promise<{ dataSource: DataSource; close(): Promise<void> }> {
  const db: TestDatabase = await createTestDatabase();
  const dataSource = await createAuditDataSource({
    url: db.url,
    dataDir: '',
    migrationsRun: false,
    extraEntities: PARTNER_ENTITIES,
    extraMigrations: PARTNER_MIGRATIONS,
  }).initialize();
  await runMigrations(dataSource);
  return {
    dataSource,
    close: async () => {
      await dataSource.destroy();
      await db.drop();
    },
  };
}

/**
 * A TranslateMessage on `dataSource` wired as the worker wires it; a spec passes the parts it
 * watches or makes fail (queues always, the rest when it has its own), and its own batch sizes.
 */
export function mediumTranslator(
  dataSource: DataSource,
  parts: {
    queues: MessageQueues;
    messages?: MessageRepository;
    operations?: OperationRepository;
    outbox?: AcknowledgmentOutbox | null;
    options?: TranslateOptions;
  },
): TranslateMessage {
  const messages = parts.messages ?? new MessageRepository(dataSource);
  return new TranslateMessage(
    messages,
    parts.operations ?? new OperationRepository(dataSource),
    new InterchangeRepository(dataSource),
    new PartnerRepository(dataSource),
    new PartnerMappingRepository(dataSource),
    parts.queues,
    parts.outbox ?? null,
    parts.options ?? { batchThreshold: 1_000, batchSize: 100 },
    new MessagePayloads(new PartnerFileRepository(dataSource), messages),
    new PayloadBudget(TEXT_BYTES_AT_ONCE),
  );
}

/** An API message of partner `kettle`, to hang operations on. */
export const recordApiMessage = (dataSource: DataSource) =>
  new MessageRepository(dataSource).record({
    partnerId: 'kettle',
    channel: 'api',
    rawPayload: '{}',
    contentType: 'application/json',
  });

/**
 * The queues as a medium spec sees them (no Redis): what was enqueued or removed is recorded, and
 * the jobs a spec marks `live` or `finished` are reported so by `jobStates`.
 */
export class RecordingQueues {
  readonly translated: string[] = [];
  readonly delivered: string[] = [];
  readonly batches: string[][] = [];
  readonly replayRuns: string[] = [];
  readonly removed: string[] = [];
  readonly live = new Set<string>();
  readonly finished = new Set<string>();

  asQueues(): MessageQueues {
    return this as unknown as MessageQueues;
  }

  async enqueueTranslate(jobs: readonly TranslateJob[]): Promise<void> {
    this.translated.push(...jobs.flatMap((job) => job.messageIds));
    await Promise.resolve();
  }
  async tryEnqueueTranslate(jobs: readonly TranslateJob[]): Promise<boolean> {
    await this.enqueueTranslate(jobs);
    return true;
  }
  async enqueueDeliveries(operationIds: string[]): Promise<void> {
    this.delivered.push(...operationIds);
    await Promise.resolve();
  }
  async enqueueBatch(data: { operationIds: string[] }): Promise<void> {
    this.batches.push(data.operationIds);
    await Promise.resolve();
  }
  async enqueueReplayRuns(runIds: readonly string[]): Promise<void> {
    this.replayRuns.push(...runIds);
    await Promise.resolve();
  }
  async removeFinishedMany(_queue: QueueName, jobIds: readonly string[]): Promise<void> {
    this.removed.push(...jobIds);
    await Promise.resolve();
  }
  async jobStates(_queue: QueueName, jobIds: readonly string[]): Promise<{ live: Set<string>; finished: Set<string> }> {
    await Promise.resolve();
    return {
      live: new Set(jobIds.filter((id) => this.live.has(id))),
      finished: new Set(jobIds.filter((id) => this.finished.has(id))),
    };
  }
}
