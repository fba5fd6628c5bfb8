import { MessageRepository, OperationRepository } from '@dockbridge/audit';
import type { CanonicalOperation } from '@dockbridge/mapping';
import { PlatformAccounts, PlatformCallError } from '@dockbridge/platform';
import { RetryPolicy } from '../retry-policy';
import { CallOutcome, callPlatform, summaryOf } from './platform-call';

export interface DeliveryTry {
  /** 1 for the first try. */
  attempt: number;
  /** No try follows this one whatever happens (the attempt budget is spent). */
  isLast: boolean;
}

/**
 * `deferred`: an older write to the same target is still on its way (or a newer one is in flight);
 * try again shortly. `superseded`: a newer write to the target was delivered first; nothing sent.
 */
export type DeliveryResult = 'delivered' | 'failed' | 'already-settled' | 'missing' | 'deferred' | 'superseded';

/**
 * Delivers one operation: calls the platform, records the attempt, settles the operation when the
 * outcome is final, and the message when its last operation settles. A retryable failure is thrown
 * back so the queue retries it with the one retry policy.
 */
export class DeliverOperation {
  constructor(
    private readonly messages: MessageRepository,
    private readonly operations: OperationRepository,
    private readonly accounts: PlatformAccounts,
    /** How long a claimed call may take before another write to its target may go (longer than the platform timeout). */
    private readonly leaseMs: number,
  ) {}

  async execute(operationId: string, attempt: DeliveryTry): Promise<DeliveryResult> {
    const [operation] = await this.operations.gate([operationId], this.leaseMs);
    switch (operation.verdict) {
      case 'missing':
        return 'missing';
      case 'settled':
        return 'already-settled';
      case 'wait':
        return 'deferred';
      case 'superseded':
        await this.settleMessage(operation.messageId);
        return 'superseded';
    }
    const payload = operation.payload as CanonicalOperation;
    const client = this.accounts.clientFor(payload.organisationId);
    const startedAt = new Date();
    let outcome: CallOutcome;
    try {
      if (!client) throw new PlatformCallError('auth', payload.kind, `no platform account is configured for organisation ${payload.organisationId}`);
      outcome = await callPlatform(client, payload);
    } catch (error) {
      const failure = unsafeToRepeat(payload, error instanceof PlatformCallError ? error : new PlatformCallError('retryable', payload.kind, (error as Error)?.message ?? String(error)));
      const final = !failure.retryable || attempt.isLast;
      await this.operations.recordAttempt(
        operationId,
        { startedAt, durationMs: Date.now() - startedAt.getTime(), httpStatus: failure.status ?? null, outcome: failure.errorClass, error: failure.reason, requestSummary: summaryOf(payload) },
        final ? { status: 'failed', lastError: failure.reason, errorClass: failure.errorClass } : undefined,
      );
      if (final) await this.settleMessage(operation.messageId);
      throw RetryPolicy.toJobError(failure);
    }
    // The platform call succeeded: a failure from here on is ours (the database), and a retry of the
    // job repeats an idempotent write; it is not recorded as a platform failure.
    if (payload.kind === 'booking.create') await this.operations.setTarget(operationId, outcome.result);
    await this.operations.recordAttempt(
      operationId,
      { startedAt, durationMs: Date.now() - startedAt.getTime(), httpStatus: outcome.httpStatus, outcome: 'success', requestSummary: outcome.summary },
      { status: 'delivered' },
    );
    await this.settleMessage(operation.messageId);
    return 'delivered';
  }

  /** Checked after the operation's own statement committed, so of two last operations settling at once the later check sees both. */
  private async settleMessage(messageId: string): Promise<void> {
    if (!(await this.operations.hasUnsettled(messageId))) await this.messages.settleMessage(messageId, 'worker');
  }
}

/** Failures after which the platform surely did nothing: refused connection, 429 and 503 (asked to come back). */
const SURELY_NOT_APPLIED = (failure: PlatformCallError) => failure.status === 429 || failure.status === 503 || /ECONNREFUSED/.test(failure.reason);

/**
 * createBooking has no idempotency key: after a timeout, a reset or a 502 the booking may exist,
 * and trying again could book twice. Such a failure ends the operation, saying so, instead of
 * retrying; every other operation is an idempotent write and retries as usual.
 */
function unsafeToRepeat(payload: CanonicalOperation, failure: PlatformCallError): PlatformCallError {
  if (payload.kind !== 'booking.create' || !failure.retryable || SURELY_NOT_APPLIED(failure)) return failure;
  return new PlatformCallError('permanent', failure.operation, `outcome unknown after ${failure.reason}: the booking may exist; check the platform before replaying`, failure.status);
}
