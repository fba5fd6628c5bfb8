import { MessageRepository, OperationRepository } from '@dockbridge/audit';
import type { CanonicalOperation } from '@dockbridge/mapping';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { PlatformAccounts, PlatformCallError, PlatformClient } from '@dockbridge/platform';
import { RetryPolicy, TimedRetry } from '../retry-policy';
import { CircuitBreakers } from './circuit-breaker';
import { CallOutcome, callPlatform, summaryOf } from './platform-call';
import { DELIVERY_OPTIONS } from '../pipeline.options';
import { PipelineMetrics } from '../pipeline-metrics';
import { PayloadBudget } from '../payload-budget';

export interface DeliveryOptions {
  /** How long a claimed call may take before another write to its target may go (longer than the platform timeout). */
  leaseMs: number;
  /** Retryable failures in a row to one account that pause its deliveries. */
  breakerThreshold: number;
}

export interface DeliveryTry {
  /** 1 for the first try. */
  attempt: number;
  /** No try follows this one whatever happens (the retry horizon is reached). */
  isLast: boolean;
  /** When its job was queued (epoch ms; absent: now): a write held back asks again less often as it waits. */
  queuedAt?: number;
}

/**
 * `superseded`: a newer write to the target was delivered first; nothing sent. `{deferMs}`: not
 * now, and no try spent — an older write to the same target is still on its way (or a newer one is
 * in flight), or deliveries to this platform account are paused while it fails (circuit breaker).
 */
export type DeliveryResult =
  'delivered' | 'failed' | 'already-settled' | 'missing' | 'superseded' | { deferMs: number };

const seconds = (since: Date) => (Date.now() - since.getTime()) / 1000;

/** How long a write waits for an older one to the same target before asking again, at first. */
const ORDER_WAIT_MS = 200;
/** The longest it waits between two asks: a write held behind a large file's translation asked 5 times a second. */
const ORDER_WAIT_MAX_MS = 5_000;

/** How long a held write waits before asking the gate again: a quarter of its time queued, within 0.2–5 s. */
export const orderWaitMs = (attempt: DeliveryTry, now = Date.now()): number =>
  Math.round(Math.min(ORDER_WAIT_MAX_MS, Math.max(ORDER_WAIT_MS, (now - (attempt.queuedAt ?? now)) / 4)));

/**
 * Delivers one operation: calls the platform, records the attempt, settles the operation when the
 * outcome is final, and the message when its last operation settles. A retryable failure is thrown
 * back so the queue retries it with the one retry policy.
 */
@Injectable()
export class DeliverOperation {
  private readonly logger = new Logger('Delivery');
  private readonly breakers: CircuitBreakers<PlatformClient>;

  constructor(
    private readonly messages: MessageRepository,
    private readonly operations: OperationRepository,
    private readonly accounts: PlatformAccounts,
    private readonly policy: RetryPolicy,
    @Inject(DELIVERY_OPTIONS) private readonly options: DeliveryOptions,
    private readonly budget: PayloadBudget,
    @Optional() private readonly metrics?: PipelineMetrics,
  ) {
    this.breakers = new CircuitBreakers(options.breakerThreshold);
  }

  async execute(operationId: string, attempt: DeliveryTry): Promise<DeliveryResult> {
    // Within the worker's payload budget, by the weight measured when the payload was stored, taken
    // before the claim: a waiting delivery holds neither its target nor its payload's text. One stored
    // before weights were measured goes alone.
    const weight = await this.operations.payloadWeightOf(operationId);
    const release = await this.budget.take(weight ?? this.budget.size);
    try {
      return await this.deliver(operationId, attempt);
    } finally {
      release();
    }
  }

  private async deliver(operationId: string, attempt: DeliveryTry): Promise<DeliveryResult> {
    const [operation] = await this.operations.gate([operationId], this.options.leaseMs);
    switch (operation.verdict) {
      case 'missing':
        return 'missing';
      case 'settled':
        // Its job ran again after it settled (a redrive, a stalled job): the message may be waiting on nothing.
        await this.settleMessage(operation.messageId);
        return 'already-settled';
      case 'wait':
        return { deferMs: orderWaitMs(attempt) };
      case 'superseded':
        await this.settleMessage(operation.messageId);
        return 'superseded';
      case 'go':
        break;
    }
    const payload = operation.payload as CanonicalOperation;
    const client = this.accounts.clientFor(payload.organisationId);
    const breaker = client && this.breakers.for(client);
    const pausedFor = breaker?.admit() ?? 0;
    if (pausedFor > 0) {
      // Spread out, so the account is not met by every paused delivery at once when it comes back.
      const deferMs = pausedFor + Math.round(Math.random() * 1000);
      await this.operations.releaseClaim(operationId, {
        at: new Date(Date.now() + deferMs),
        reason: `deliveries to this platform account are paused while it fails (${breaker!.lastFailure ?? 'retryable errors'}); probing`,
      });
      return { deferMs };
    }
    const startedAt = new Date();
    let outcome: CallOutcome;
    try {
      if (!client) {
        throw new PlatformCallError(
          'auth',
          payload.kind,
          `no platform account is configured for organisation ${payload.organisationId}`,
        );
      }
      outcome = await callPlatform(client, payload);
    } catch (error) {
      const failure = unsafeToRepeat(
        payload,
        error instanceof PlatformCallError
          ? error
          : new PlatformCallError('retryable', payload.kind, (error as Error)?.message ?? String(error)),
      );
      this.trip(breaker, failure.retryable ? 'retryable' : 'answered', payload.organisationId, failure.reason);
      this.metrics?.calls.observe({ kind: payload.kind, outcome: failure.errorClass }, seconds(startedAt));
      const final = !failure.retryable || attempt.isLast;
      const retryInMs = final ? undefined : this.policy.nextDelay(attempt.attempt, failure);
      await this.operations.recordAttempt(
        operationId,
        {
          startedAt,
          durationMs: Date.now() - startedAt.getTime(),
          httpStatus: failure.status ?? null,
          outcome: failure.errorClass,
          error: failure.reason,
          requestSummary: summaryOf(payload),
        },
        final ? { status: 'failed', lastError: failure.reason, errorClass: failure.errorClass } : undefined,
        retryInMs === undefined ? undefined : { at: new Date(Date.now() + retryInMs), error: failure.reason },
      );
      if (final) {
        await this.settleMessage(operation.messageId);
      }
      // The queue waits what the attempt row says.
      throw Object.assign(RetryPolicy.toJobError(failure, final), { retryInMs } satisfies TimedRetry);
    }
    this.trip(breaker, 'success', payload.organisationId);
    this.metrics?.calls.observe({ kind: payload.kind, outcome: 'success' }, seconds(startedAt));
    // The platform call succeeded: a failure from here on is ours (the database), and a retry of the
    // job repeats an idempotent write; it is not recorded as a platform failure.
    if (payload.kind === 'booking.create') {
      await this.operations.setTarget(operationId, outcome.result);
    }
    await this.operations.recordAttempt(
      operationId,
      {
        startedAt,
        durationMs: Date.now() - startedAt.getTime(),
        httpStatus: outcome.httpStatus,
        outcome: 'success',
        requestSummary: outcome.summary,
      },
      { status: 'delivered' },
    );
    await this.settleMessage(operation.messageId);
    return 'delivered';
  }

  private trip(
    breaker: ReturnType<CircuitBreakers<PlatformClient>['for']> | undefined,
    outcome: 'success' | 'retryable' | 'answered',
    organisationId: string,
    reason?: string,
  ): void {
    const change = breaker?.record(outcome, reason);
    if (change === 'opened') {
      this.logger.warn({ msg: 'platform failing: deliveries to its account paused, probing', organisationId });
    }
    if (change === 'closed') {
      this.logger.log({ msg: 'platform answering again: deliveries to its account resumed', organisationId });
    }
  }

  /** Checked after the operation's own statement committed, so of two last operations settling at once the later check sees both. */
  private async settleMessage(messageId: string): Promise<void> {
    if (!(await this.operations.hasUnsettled(messageId))) {
      await this.messages.settleMessage(messageId, 'worker');
    }
  }
}

/** Failures after which the platform surely did nothing: refused connection, 429 and 503 (asked to come back). */
const SURELY_NOT_APPLIED = (failure: PlatformCallError) =>
  failure.status === 429 || failure.status === 503 || /ECONNREFUSED/.test(failure.reason);

/**
 * createBooking has no idempotency key: after a timeout, a reset or a 502 the booking may exist,
 * and trying again could book twice. Such a failure ends the operation, saying so, instead of
 * retrying; every other operation is an idempotent write and retries as usual.
 */
function unsafeToRepeat(payload: CanonicalOperation, failure: PlatformCallError): PlatformCallError {
  if (payload.kind !== 'booking.create' || !failure.retryable || SURELY_NOT_APPLIED(failure)) {
    return failure;
  }
  return new PlatformCallError(
    'permanent',
    failure.operation,
    `outcome unknown after ${failure.reason}: the booking may exist; check the platform before replaying`,
    failure.status,
  );
}
