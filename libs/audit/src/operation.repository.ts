import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, In, QueryDeepPartialEntity } from 'typeorm';
import { AuditRecordNotFoundError, isUuid } from './audit.errors';
import {
  AttemptOutcome,
  DeliveryErrorClass,
  JsonObject,
  OPERATION_STATUSES,
  OperationKind,
  OperationStatus,
} from './audit.types';
import { DeliveryAttempt, DocumentOperation, Message } from './entities';
import { excerpt } from './excerpt';

export interface NewOperation {
  kind: OperationKind;
  organisationId?: string | null;
  targetId?: string | null;
  payload: JsonObject;
  /** An operation translation already refused (an EDI set that failed mapping) is stored failed, with its reason. */
  failed?: { lastError: string };
}

export interface OperationSettlement {
  status: 'delivered' | 'failed' | 'skipped';
  /** Kept to 2,000 characters; cleared when the status is not `failed`. */
  lastError?: string | null;
  errorClass?: DeliveryErrorClass | null;
}

export interface NewDeliveryAttempt {
  startedAt: Date;
  durationMs: number;
  httpStatus?: number | null;
  outcome: AttemptOutcome;
  /** Kept to 2,000 characters. */
  error?: string | null;
  /** Method, path, document count: never headers or tokens. Kept to 2,000 characters. */
  requestSummary?: string | null;
}

export type OperationStatusCounts = Record<OperationStatus, number>;

/** Rows per INSERT: 8 parameters a row stays far below Postgres' 65,535 per statement. */
const INSERT_CHUNK = 1000;

/** The operations a message translates to and every delivery attempt made for them. */
export class OperationRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores a message's operations, numbered from 1 in the order given, in one transaction.
   * A message's operations are written once: when it already has some (a retried translation),
   * nothing is inserted and the stored ones are returned.
   */
  async addMany(messageId: string, operations: readonly NewOperation[]): Promise<DocumentOperation[]> {
    return this.dataSource.transaction(async (manager) => {
      const locked = isUuid(messageId)
        ? await manager.findOne(Message, {
            select: { id: true },
            where: { id: messageId },
            lock: { mode: 'pessimistic_write' },
          })
        : null;
      if (!locked) throw new AuditRecordNotFoundError('message', messageId);
      const existing = await this.listWith(manager, messageId);
      if (existing.length > 0) return existing;

      const rows = operations.map((op, i) => ({
        id: randomUUID(),
        messageId,
        seq: i + 1,
        kind: op.kind,
        organisationId: op.organisationId ?? null,
        targetId: op.targetId ?? null,
        payload: op.payload,
        status: op.failed ? ('failed' as const) : ('pending' as const),
        lastError: op.failed ? excerpt(op.failed.lastError) : null,
        errorClass: op.failed ? ('permanent' as const) : null,
      }));
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        await manager.insert(DocumentOperation, rows.slice(i, i + INSERT_CHUNK));
      }
      return this.listWith(manager, messageId);
    });
  }

  async findById(id: string): Promise<DocumentOperation | null> {
    if (!isUuid(id)) return null;
    return this.dataSource.manager.findOneBy(DocumentOperation, { id });
  }

  /** A message's operations in order. */
  async listByMessage(messageId: string): Promise<DocumentOperation[]> {
    if (!isUuid(messageId)) return [];
    return this.listWith(this.dataSource.manager, messageId);
  }

  async findFailedByMessage(messageId: string): Promise<DocumentOperation[]> {
    if (!isUuid(messageId)) return [];
    return this.dataSource.manager.find(DocumentOperation, {
      where: { messageId, status: 'failed' },
      order: { seq: 'ASC' },
    });
  }

  /** The operation is being sent to the platform (first time, retry or replay). */
  async markDelivering(id: string): Promise<DocumentOperation> {
    return this.update(id, { status: 'delivering' });
  }

  /** The operation's final outcome. */
  async settle(id: string, settlement: OperationSettlement): Promise<DocumentOperation> {
    const failed = settlement.status === 'failed';
    return this.update(id, {
      status: settlement.status,
      lastError: failed ? excerpt(settlement.lastError) : null,
      errorClass: failed ? (settlement.errorClass ?? null) : null,
    });
  }

  /** Appends an attempt and counts it on the operation, in one transaction. */
  async recordAttempt(operationId: string, attempt: NewDeliveryAttempt): Promise<DeliveryAttempt> {
    return this.dataSource.transaction(async (manager) => {
      const operation = isUuid(operationId)
        ? await manager.findOne(DocumentOperation, {
            select: { id: true },
            where: { id: operationId },
            lock: { mode: 'pessimistic_write' },
          })
        : null;
      if (!operation) throw new AuditRecordNotFoundError('operation', operationId);
      const row = {
        id: randomUUID(),
        operationId,
        startedAt: attempt.startedAt,
        durationMs: Math.round(attempt.durationMs),
        httpStatus: attempt.httpStatus ?? null,
        outcome: attempt.outcome,
        errorExcerpt: excerpt(attempt.error),
        requestSummary: excerpt(attempt.requestSummary),
      };
      await manager.insert(DeliveryAttempt, row);
      await manager.increment(DocumentOperation, { id: operationId }, 'attemptCount', 1);
      return manager.findOneByOrFail(DeliveryAttempt, { id: row.id });
    });
  }

  /** What the platform created for an operation (a new booking's id), so searches by id find it. */
  async setTarget(id: string, targetId: string): Promise<void> {
    if (isUuid(id)) await this.dataSource.manager.update(DocumentOperation, { id }, { targetId });
  }

  async findByIds(ids: readonly string[]): Promise<DocumentOperation[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return [];
    return this.dataSource.manager.find(DocumentOperation, { where: { id: In(valid) }, order: { seq: 'ASC' } });
  }

  async markManyDelivering(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      await this.dataSource.manager.update(DocumentOperation, { id: In(ids.slice(i, i + INSERT_CHUNK)) }, { status: 'delivering' });
    }
  }

  /** The same outcome for many operations at once (batch jobs): one UPDATE per chunk. */
  async settleMany(ids: readonly string[], settlement: OperationSettlement): Promise<void> {
    const failed = settlement.status === 'failed';
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      await this.dataSource.manager.update(DocumentOperation, { id: In(ids.slice(i, i + INSERT_CHUNK)) }, {
        status: settlement.status,
        lastError: failed ? excerpt(settlement.lastError) : null,
        errorClass: failed ? (settlement.errorClass ?? null) : null,
      });
    }
  }

  /** Appends one attempt to each of many operations and counts it, in one transaction (batch jobs). */
  async recordAttempts(attempts: readonly (NewDeliveryAttempt & { operationId: string })[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.dataSource.transaction(async (manager) => {
      for (let i = 0; i < attempts.length; i += INSERT_CHUNK) {
        const chunk = attempts.slice(i, i + INSERT_CHUNK);
        await manager.insert(
          DeliveryAttempt,
          chunk.map((attempt) => ({
            id: randomUUID(),
            operationId: attempt.operationId,
            startedAt: attempt.startedAt,
            durationMs: Math.round(attempt.durationMs),
            httpStatus: attempt.httpStatus ?? null,
            outcome: attempt.outcome,
            errorExcerpt: excerpt(attempt.error),
            requestSummary: excerpt(attempt.requestSummary),
          })),
        );
        await manager.increment(DocumentOperation, { id: In(chunk.map((a) => a.operationId)) }, 'attemptCount', 1);
      }
    });
  }

  /** Whether any of the message's operations is still to be delivered (cheap check before settling the message). */
  async hasUnsettled(messageId: string): Promise<boolean> {
    if (!isUuid(messageId)) return false;
    return this.dataSource.manager.exists(DocumentOperation, { where: { messageId, status: In(['pending', 'delivering']) } });
  }

  /** How many of the message's operations are in each status (every status present, 0 when none). */
  async statusCounts(messageId: string): Promise<OperationStatusCounts> {
    const counts = Object.fromEntries(OPERATION_STATUSES.map((s) => [s, 0])) as OperationStatusCounts;
    if (!isUuid(messageId)) return counts;
    const rows: { status: OperationStatus; count: number }[] = await this.dataSource.manager
      .createQueryBuilder(DocumentOperation, 'o')
      .select('o.status', 'status')
      .addSelect('count(*)::int', 'count')
      .where('o.message_id = :messageId', { messageId })
      .groupBy('o.status')
      .getRawMany();
    for (const row of rows) counts[row.status] = Number(row.count);
    return counts;
  }

  private listWith(manager: EntityManager, messageId: string): Promise<DocumentOperation[]> {
    return manager.find(DocumentOperation, { where: { messageId }, order: { seq: 'ASC' } });
  }

  private async update(id: string, changes: QueryDeepPartialEntity<DocumentOperation>): Promise<DocumentOperation> {
    if (isUuid(id)) {
      await this.dataSource.manager.update(DocumentOperation, { id }, changes);
      const operation = await this.dataSource.manager.findOneBy(DocumentOperation, { id });
      if (operation) return operation;
    }
    throw new AuditRecordNotFoundError('operation', id);
  }
}
