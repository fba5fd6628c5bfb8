import { Injectable } from '@nestjs/common';
import { DomainError, DomainErrorKind, MessageRepository, MessageStatus } from '@dockbridge/audit';
import { checkCanonicalMessageInTurns, organisationScopeProblems } from '@dockbridge/mapping';
import { organisationsOf, type PartnerProfile } from '@dockbridge/partners';
import { CANONICAL_CONTENT_TYPE } from '../translate/translators';
import { AcceptMessage } from './accept-message';

/** A canonical message not taken: invalid, outside the partner's organisations, or a reused idempotency key. */
export class ApiMessageRefused extends DomainError {
  constructor(
    readonly kind: DomainErrorKind,
    summary: string | undefined,
    details: string[],
  ) {
    super(details.join('; '));
    this.summary = summary;
    this.details = details;
  }
}

export interface ApiMessageReceived {
  messageId: string;
  status: MessageStatus;
  /** A repeat of an idempotency key with the same body: nothing new was recorded. */
  repeat?: true;
}

/** `POST /v1/messages`: a partner's list of operations, checked whole, recorded, then delivered. */
@Injectable()
export class ReceiveApiMessage {
  constructor(
    private readonly accept: AcceptMessage,
    private readonly messages: MessageRepository,
  ) {}

  /** `body` is the parsed JSON and `raw` its text as sent (what is stored); `key` the partner's Idempotency-Key. */
  /** `jsonValues`: the values of `raw` (inspectJson), when the body parser counted them. */
  async execute(
    partner: PartnerProfile,
    body: unknown,
    raw: string,
    key?: string,
    jsonValues?: number,
  ): Promise<ApiMessageReceived> {
    const check = await checkCanonicalMessageInTurns(body, undefined, raw);
    if (!check.ok) {
      throw new ApiMessageRefused('invalid', 'Invalid message', check.problems);
    }
    const allowed = organisationsOf(partner);
    const outside = organisationScopeProblems(check.operations, allowed);
    if (outside.length) {
      throw new ApiMessageRefused('invalid', 'Operations outside the organisations this partner may act on', [
        ...outside,
        `partner ${partner.id} may act on: ${[...allowed].join(', ')}`,
      ]);
    }
    const accepted = await this.accept.execute({
      partnerId: partner.id,
      channel: 'api',
      rawPayload: raw,
      contentType: CANONICAL_CONTENT_TYPE,
      metadata: {
        operations: check.operations.length,
        platformAccount: partner.platformAccount,
        ...(jsonValues !== undefined && { jsonValues }),
      },
      // Its own namespace: a partner's webhook ids (the same column) cannot collide with its API keys.
      idempotencyKey: key === undefined ? undefined : `api:${key}`,
    });
    if (!accepted.existing) {
      return { messageId: accepted.messageId, status: 'received' };
    }
    if (!accepted.samePayload) {
      throw new ApiMessageRefused('unprocessable', undefined, [
        `Idempotency-Key ${key} was used for a different body (message ${accepted.messageId}); use a new key for a new message`,
      ]);
    }
    const earlier = await this.messages.findById(accepted.messageId);
    return { messageId: accepted.messageId, status: earlier?.status ?? 'received', repeat: true };
  }
}
