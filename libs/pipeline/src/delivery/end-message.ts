import { Injectable, Logger } from '@nestjs/common';
import {
  Actor,
  DomainError,
  DomainErrorKind,
  MessageRepository,
  MessageStatus,
  OperationRepository,
} from '@dockbridge/audit';

/** Why a message's delivery could not be ended. */
export class EndMessageError extends DomainError {
  readonly kind: DomainErrorKind;
  constructor(
    readonly code: 'not-found' | 'not-delivering' | 'in-flight',
    message: string,
    extra?: Record<string, unknown>,
  ) {
    super(message);
    this.kind = code === 'not-found' ? 'not-found' : 'conflict';
    this.extra = extra;
  }
}

export interface EndMessageRequest {
  actor: Actor;
  /** Why: recorded as each ended operation's error (`ended by <actor>: <reason>`). */
  reason: string;
}

export interface EndedMessage {
  messageId: string;
  status: MessageStatus;
  /** Operations ended (failed with the reason). */
  ended: number;
}

/**
 * An operator gives up on what a message still has to deliver: its unsettled operations end
 * `failed` with who and why, and the message settles (failed, or partially failed beside what was
 * delivered). An older write retrying for hours holds back the newer writes to its documents (newest
 * write wins); ending it lets them go, and the message can be replayed later like any failed one.
 * Refused while a call or a platform job holds any of them: the platform may still apply it.
 */
@Injectable()
export class EndMessage {
  private readonly logger = new Logger('EndMessage');

  constructor(
    private readonly messages: MessageRepository,
    private readonly operations: OperationRepository,
  ) {}

  async end(messageId: string, request: EndMessageRequest): Promise<EndedMessage> {
    const message = await this.messages.findById(messageId);
    if (!message) {
      throw new EndMessageError('not-found', `message ${messageId} does not exist`);
    }
    if (message.status !== 'delivering') {
      throw new EndMessageError(
        'not-delivering',
        message.status === 'received' || message.status === 'translating'
          ? `message ${messageId} is ${message.status}: it has no operations to end until it is translated (a translation that never finishes is ended by the sweeper)`
          : `message ${messageId} is ${message.status}: only a message being delivered has operations to end`,
        { status: message.status },
      );
    }
    const outcome = await this.operations.endUnsettled(messageId, `ended by ${request.actor}: ${request.reason}`);
    if (outcome.inFlight > 0) {
      throw new EndMessageError(
        'in-flight',
        `message ${messageId} has ${outcome.inFlight} operation(s) the platform may still apply (a call under way, or a batch job not answered yet${outcome.inFlightUntil ? `; held until ${outcome.inFlightUntil.toISOString()}` : ''}): nothing was ended; try again once they are answered`,
        { inFlight: outcome.inFlight, inFlightUntil: outcome.inFlightUntil?.toISOString() ?? null },
      );
    }
    const settled = await this.messages.settleMessage(messageId, request.actor);
    this.logger.log({ msg: 'delivery ended by an operator', messageId, actor: request.actor, ended: outcome.ended });
    return { messageId, status: settled.status, ended: outcome.ended };
  }
}
