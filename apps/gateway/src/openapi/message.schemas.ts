import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ATTEMPT_OUTCOMES,
  DELIVERY_ERROR_CLASSES,
  MESSAGE_CHANNELS,
  MESSAGE_STATUSES,
  OPERATION_KINDS,
  OPERATION_STATUSES,
  REPLAY_RUN_STATUSES,
  type MessageStatus,
} from '@dockbridge/audit';
import type {
  AsJson,
  AttemptView,
  BulkReplayDryRunView,
  BulkReplayStartedView,
  EndedMessageView,
  MessageDetailView,
  MessageEventView,
  MessageFileView,
  MessagePageView,
  MessageSummaryView,
  OperationView,
  PartnerMessageStatusView,
  ReplayLinkView,
  ReplayResultView,
  ReplayRunView,
  SkippedMessage,
} from '@dockbridge/pipeline';

/*
 * Response schemas of the message, replay and ingress endpoints. Each implements the JSON form of its
 * view (libs/pipeline/src/admin/views.ts), so a view that changes fails to compile here until its
 * schema follows.
 */

const FREE_FORM = { type: 'object', additionalProperties: true } as const;
const DATE = { type: String, format: 'date-time' } as const;
const NULLABLE_DATE = { ...DATE, nullable: true } as const;
const UUID = { type: String, format: 'uuid' } as const;
const RETRYING_STATUSES = [...MESSAGE_STATUSES, 'retrying'];

type Summary = AsJson<MessageSummaryView>;
type Detail = AsJson<MessageDetailView>;
type Operation = AsJson<OperationView>;
type PartnerStatus = AsJson<PartnerMessageStatusView>;
type Run = AsJson<ReplayRunView>;
type DetailMessage = Detail['message'];
type Counts = Detail['operationCounts'];

export class MessageSummarySchema implements Summary {
  @ApiProperty(UUID) id!: string;
  @ApiProperty({ example: 'acme-wms' }) partnerId!: string;
  @ApiProperty({ enum: MESSAGE_CHANNELS, description: 'Where it came in' }) channel!: Summary['channel'];
  @ApiProperty({ example: 'application/json' }) contentType!: string;
  @ApiProperty({ description: 'Hex SHA-256 of the payload' }) sha256!: string;
  @ApiProperty({ enum: MESSAGE_STATUSES }) status!: Summary['status'];
  @ApiProperty({ type: String, nullable: true, description: 'Why it is rejected, failed, ...' })
  statusReason!: string | null;
  @ApiProperty({ ...UUID, nullable: true, description: 'The message this one replays' }) replayOf!: string | null;
  @ApiProperty(DATE) receivedAt!: string;
  @ApiProperty(DATE) updatedAt!: string;
  @ApiProperty({
    ...FREE_FORM,
    description:
      'Searchable facts: size, fileName, via, interchanges (ISA13; the first 100, with interchangeCount when there are more), webhookId, replay, mappingVersion, ...',
  })
  metadata!: Summary['metadata'];
}

export class MessagePageSchema implements AsJson<MessagePageView> {
  @ApiProperty({ type: () => [MessageSummarySchema], description: 'Newest first' }) items!: Summary[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last' })
  nextCursor!: string | null;
}

export class MessageWithPayloadSchema extends MessageSummarySchema implements DetailMessage {
  @ApiProperty({ description: 'The first 256 KiB of the payload, as text (the whole at /payload)' })
  rawPayload!: string;
  @ApiProperty({ description: "The payload's size in bytes" }) payloadBytes!: number;
  @ApiProperty({ description: '`rawPayload` is its beginning only' }) payloadTruncated!: boolean;
}

export class OperationCountsSchema implements Counts {
  @ApiProperty({ description: 'Operations of the message' }) total!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: `Operations by status (${OPERATION_STATUSES.join(', ')}); a status none has is left out`,
    example: { delivered: 3, failed: 1 },
  })
  byStatus!: Detail['operationCounts']['byStatus'];
  @ApiProperty({ description: 'Delivery attempts of all its operations' }) attempts!: number;
}

export class AttemptSchema implements AsJson<AttemptView> {
  @ApiProperty(UUID) id!: string;
  @ApiProperty(DATE) startedAt!: string;
  @ApiProperty() durationMs!: number;
  @ApiProperty({ type: Number, nullable: true, description: "The platform's HTTP status; null without an answer" })
  httpStatus!: number | null;
  @ApiProperty({ enum: ATTEMPT_OUTCOMES }) outcome!: AttemptView['outcome'];
  @ApiProperty({ type: String, nullable: true }) errorExcerpt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'What was sent, summarised (never headers)' })
  requestSummary!: string | null;
}

export class OperationSchema implements Operation {
  @ApiProperty(UUID) id!: string;
  @ApiProperty({ description: 'Its place in the message, from 0' }) seq!: number;
  @ApiProperty({ enum: OPERATION_KINDS }) kind!: Operation['kind'];
  @ApiProperty({ ...UUID, nullable: true }) organisationId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The document, vehicle or booking it writes' })
  targetId!: string | null;
  @ApiProperty({ ...FREE_FORM, description: 'The canonical operation' }) payload!: Operation['payload'];
  @ApiProperty({ enum: OPERATION_STATUSES }) status!: Operation['status'];
  @ApiProperty({ type: String, nullable: true }) lastError!: string | null;
  @ApiProperty({ enum: DELIVERY_ERROR_CLASSES, nullable: true }) errorClass!: Operation['errorClass'];
  @ApiProperty() attemptCount!: number;
  @ApiProperty({ ...NULLABLE_DATE, description: 'While a retryable failure waits: when the next try is due' })
  nextAttemptAt!: string | null;
  @ApiProperty({ ...NULLABLE_DATE, description: 'A try is under way until then' }) inFlightUntil!: string | null;
  @ApiProperty({ ...UUID, nullable: true, description: 'The newer write that made it moot (superseded)' })
  supersededBy!: string | null;
  @ApiProperty(DATE) createdAt!: string;
  @ApiProperty(DATE) updatedAt!: string;
  @ApiProperty({ type: () => [AttemptSchema] }) attempts!: AsJson<AttemptView>[];
}

export class MessageEventSchema implements AsJson<MessageEventView> {
  @ApiProperty(DATE) at!: string;
  @ApiProperty({ enum: MESSAGE_STATUSES, nullable: true }) fromStatus!: MessageEventView['fromStatus'];
  @ApiProperty({ enum: MESSAGE_STATUSES }) toStatus!: MessageEventView['toStatus'];
  @ApiProperty({ type: String, description: 'gateway, worker, sweeper or operator:<name>', example: 'operator:ana' })
  actor!: MessageEventView['actor'];
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
}

export class MessageFileSchema implements AsJson<MessageFileView> {
  @ApiProperty(UUID) id!: string;
  @ApiProperty({ example: 'outbound' }) folder!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true, description: '997, TA1, export, ...; null for uploads' })
  kind!: string | null;
  @ApiProperty() size!: number;
  @ApiProperty() sha256!: string;
  @ApiProperty(DATE) createdAt!: string;
  @ApiProperty({ ...NULLABLE_DATE, description: 'The partner removed it, or a newer file replaced it' })
  removedAt!: string | null;
  @ApiProperty({ ...NULLABLE_DATE, description: 'The partner first read it over SFTP' }) fetchedAt!: string | null;
}

export class ReplayLinkSchema implements AsJson<ReplayLinkView> {
  @ApiProperty(UUID) id!: string;
  @ApiProperty({ enum: MESSAGE_STATUSES }) status!: ReplayLinkView['status'];
  @ApiProperty(DATE) receivedAt!: string;
  @ApiProperty({ type: String, nullable: true }) statusReason!: string | null;
}

export class MessageDetailSchema implements Detail {
  @ApiProperty({ type: () => MessageWithPayloadSchema }) message!: Detail['message'];
  @ApiProperty({ type: () => OperationCountsSchema, description: 'Every operation counted, whatever page is shown' })
  operationCounts!: Detail['operationCounts'];
  @ApiProperty({ type: () => [OperationSchema], description: 'One page, in order, with their attempts' })
  operations!: Operation[];
  @ApiProperty({ type: Number, nullable: true, description: 'Pass as `operationsAfter` for the next page' })
  nextOperationsAfter!: number | null;
  @ApiProperty({ type: () => [MessageEventSchema] }) events!: Detail['events'];
  @ApiProperty({
    type: () => [MessageFileSchema],
    description: 'The upload it came from, the 997/TA1s written for it: the first 100, oldest first',
  })
  files!: Detail['files'];
  @ApiProperty({ description: 'Its files, all counted (a file of many interchanges has a 997 for each)' })
  fileCount!: number;
  @ApiProperty({ type: () => [ReplayLinkSchema], description: 'Its replays, oldest first' })
  replays!: Detail['replays'];
}

export class ReplayResultSchema implements AsJson<ReplayResultView> {
  @ApiProperty({ ...UUID, description: 'The new message (the replay)' }) messageId!: string;
  @ApiProperty(UUID) replayOf!: string;
  @ApiProperty({ enum: MESSAGE_STATUSES }) status!: ReplayResultView['status'];
}

export class EndedMessageSchema implements AsJson<EndedMessageView> {
  @ApiProperty(UUID) messageId!: string;
  @ApiProperty({
    enum: MESSAGE_STATUSES,
    description: 'Settled: failed, or partially_failed beside what was delivered',
  })
  status!: EndedMessageView['status'];
  @ApiProperty({ description: 'Operations ended (failed with the reason)' }) ended!: number;
}

export class SkippedMessageSchema implements SkippedMessage {
  @ApiProperty(UUID) id!: string;
  @ApiProperty({ example: 'its latest replay was delivered' }) reason!: string;
}

export class BulkReplayDryRunSchema implements BulkReplayDryRunView {
  @ApiProperty({ enum: [true] }) dryRun!: true;
  @ApiProperty({ description: 'Messages the real run would replay' }) matching!: number;
  @ApiProperty({ type: () => [SkippedMessageSchema] }) skipped!: SkippedMessage[];
  @ApiPropertyOptional({ description: 'Present when more matched than the cap: the cap' }) limitReached?: number;
}

export class BulkReplayStartedSchema implements BulkReplayStartedView {
  @ApiProperty({ enum: [false] }) dryRun!: false;
  @ApiProperty(UUID) runId!: string;
  @ApiProperty({ enum: REPLAY_RUN_STATUSES }) status!: BulkReplayStartedView['status'];
  @ApiProperty({ description: 'The most messages a run replays' }) limit!: number;
  @ApiProperty({ example: '/v1/admin/replays/0191d6a2-…', description: 'Where its progress is read' })
  location!: string;
}

export class ReplayRunSchema implements Run {
  @ApiProperty(UUID) runId!: string;
  @ApiProperty({ enum: REPLAY_RUN_STATUSES }) status!: Run['status'];
  @ApiProperty({ ...FREE_FORM, description: 'The filter it replays' }) filter!: Run['filter'];
  @ApiProperty({ ...FREE_FORM, description: 'Its options (mode, mapping, force, includeReplayed)' })
  request!: Run['request'];
  @ApiProperty({ example: 'operator:ana' }) actor!: string;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Null until it starts; exact once over' })
  total!: number | null;
  @ApiProperty() done!: number;
  @ApiProperty() replayed!: number;
  @ApiProperty() skipped!: number;
  @ApiProperty({ type: () => [SkippedMessageSchema], description: 'The first skipped messages, with their reason' })
  skips!: SkippedMessage[];
  @ApiProperty() limit!: number;
  @ApiProperty({ description: 'More matched than the cap' }) limitReached!: boolean;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty(DATE) createdAt!: string;
  @ApiProperty(NULLABLE_DATE) startedAt!: string | null;
  @ApiProperty(NULLABLE_DATE) finishedAt!: string | null;
  @ApiProperty(DATE) updatedAt!: string;
}

export class ReplayRunListSchema {
  @ApiProperty({ type: () => [ReplayRunSchema], description: 'Newest first' }) items!: Run[];
}

export class PartnerOperationSchema implements Required<PartnerStatus['operations'][number]> {
  @ApiProperty() seq!: number;
  @ApiProperty({ enum: OPERATION_KINDS }) kind!: PartnerStatus['operations'][number]['kind'];
  @ApiProperty({ type: String, nullable: true, description: 'The document, vehicle or booking it writes' })
  target!: string | null;
  @ApiProperty({ enum: [...OPERATION_STATUSES, 'retrying'] })
  status!: PartnerStatus['operations'][number]['status'];
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ description: 'Delivery attempts so far' }) attempts!: number;
  @ApiPropertyOptional({ ...DATE, description: 'While retrying: when the next try is due' }) nextAttemptAt!: string;
}

export class PartnerMessageStatusSchema implements PartnerStatus {
  @ApiProperty(UUID) messageId!: string;
  @ApiProperty({ enum: RETRYING_STATUSES, description: '`retrying` while a retryable failure waits for its next try' })
  status!: PartnerStatus['status'];
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty(DATE) receivedAt!: string;
  @ApiProperty({ type: () => OperationCountsSchema }) operationCounts!: PartnerStatus['operationCounts'];
  @ApiProperty({ type: Number, nullable: true, description: 'Pass as `after` for the next page; null on the last' })
  nextAfter!: number | null;
  @ApiProperty({ type: () => [PartnerOperationSchema] }) operations!: PartnerStatus['operations'];
}

/** `POST /v1/messages`, `POST /v1/edi`, `POST /v1/webhooks/{partner}`: what was recorded. */
export class AcceptedSchema {
  @ApiProperty(UUID) messageId!: string;
  @ApiProperty({ enum: MESSAGE_STATUSES, description: '`received` when new; the current status on a repeat' })
  status!: string;
  @ApiPropertyOptional({ enum: [true], description: 'A repeat of an Idempotency-Key with the same body' })
  repeat?: true;
}

export class WebhookReceivedSchema {
  @ApiProperty({ ...UUID, description: 'The message recorded (the original one for a repeated webhook-id)' })
  messageId!: string;
  @ApiPropertyOptional({ enum: ['received'], description: 'A new webhook (202)' }) status?: 'received';
  @ApiPropertyOptional({ enum: [true], description: 'A repeat of an earlier webhook-id (200)' }) duplicate?: true;
}

/** Messages matching a filter, by status: every status, 0 when none. */
export class MessageCountsSchema {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: 'Every message status with how many messages match',
    example: { received: 0, delivered: 412, failed: 3 },
  })
  byStatus!: Record<MessageStatus, number>;
}
