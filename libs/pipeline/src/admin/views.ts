import type {
  Actor,
  AttemptOutcome,
  DeliveryErrorClass,
  JsonObject,
  MessageChannel,
  MessageDetail,
  MessageMetadata,
  OperationCounts,
  MessageStatus,
  MessageSummary,
  OperationKind,
  OperationStatus,
  ReplayRun,
  ReplayRunStatus,
} from '@dockbridge/audit';
import type { ApiKeySummary, PartnerFileRecord, PartnerProfile } from '@dockbridge/partners';
import {
  refusedAtEnd,
  type Acknowledgment,
  type EdiEvent,
  type EdiTranslation,
  type InterchangeOutcome,
  type SetOutcome,
} from '@dockbridge/mapping';
import { BULK_REPLAY_LIMIT } from '../replay/replay-message';

/*
 * What the admin and partner APIs answer: response shapes of their own, so a stored column can be
 * added without reaching clients. The CLI (and the console) read the same types as `AsJson<…>`.
 */

/** A value as JSON.stringify sends it: dates become ISO strings. */
export type AsJson<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? AsJson<U>[]
    : T extends object
      ? { [K in keyof T]: AsJson<T[K]> }
      : T;

export interface MessageSummaryView {
  id: string;
  partnerId: string;
  channel: MessageChannel;
  contentType: string;
  sha256: string;
  status: MessageStatus;
  statusReason: string | null;
  replayOf: string | null;
  receivedAt: Date;
  updatedAt: Date;
  metadata: MessageMetadata;
}

export interface MessagePageView {
  items: MessageSummaryView[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface AttemptView {
  id: string;
  startedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  outcome: AttemptOutcome;
  errorExcerpt: string | null;
  requestSummary: string | null;
}

export interface OperationView {
  id: string;
  seq: number;
  kind: OperationKind;
  organisationId: string | null;
  targetId: string | null;
  payload: JsonObject;
  status: OperationStatus;
  lastError: string | null;
  errorClass: DeliveryErrorClass | null;
  attemptCount: number;
  /** While a retryable failure waits: when the next try is due. */
  nextAttemptAt: Date | null;
  /** A try is under way until then (a worker holds it). */
  inFlightUntil: Date | null;
  /** The operation whose newer write made this one moot (status superseded). */
  supersededBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  attempts: AttemptView[];
}

export interface MessageEventView {
  at: Date;
  fromStatus: MessageStatus | null;
  toStatus: MessageStatus;
  actor: Actor;
  reason: string | null;
}

/** A file of the message: the upload it came from, the 997/TA1 written for it, an export file. */
export interface MessageFileView {
  id: string;
  folder: string;
  name: string;
  /** `997`, `TA1`, `export`, ...; null for uploads. */
  kind: string | null;
  size: number;
  sha256: string;
  createdAt: Date;
  /** The partner removed it (fetched, as a rule) or a newer file of the same name replaced it. */
  removedAt: Date | null;
  /** The partner first read it over SFTP (its 997 fetched); null until then. */
  fetchedAt: Date | null;
}

export interface ReplayLinkView {
  id: string;
  status: MessageStatus;
  receivedAt: Date;
  statusReason: string | null;
}

/** The payload shown with a message: its first DETAIL_PAYLOAD_BYTES; the whole is at `GET /v1/admin/messages/{id}/payload`. */
export interface PayloadHead {
  rawPayload: string;
  /** The payload's size in bytes. */
  payloadBytes: number;
  /** `rawPayload` is its beginning only. */
  payloadTruncated: boolean;
}

export interface MessageDetailView {
  message: MessageSummaryView & PayloadHead;
  /** Every operation counted, by status, with their attempts. */
  operationCounts: OperationCounts;
  /** One page of operations, in order; `operationsAfter` = nextOperationsAfter gives the next. */
  operations: OperationView[];
  nextOperationsAfter: number | null;
  events: MessageEventView[];
  /** Its first files, oldest first (the upload, then its 997/TA1s); `fileCount` counts them all. */
  files: MessageFileView[];
  fileCount: number;
  /** Replays of this message, oldest first, with their outcome. */
  replays: ReplayLinkView[];
}

export interface ReplayResultView {
  messageId: string;
  replayOf: string;
  status: MessageStatus;
}

/** A message whose delivery an operator ended: its status once settled, and how many operations were ended. */
export interface EndedMessageView {
  messageId: string;
  status: MessageStatus;
  ended: number;
}

export interface SkippedMessage {
  id: string;
  reason: string;
}

/** A bulk replay's dry run (200): the exact count the real run would replay, and what it would skip. */
export interface BulkReplayDryRunView {
  dryRun: true;
  matching: number;
  skipped: SkippedMessage[];
  /** Present when more matched than the cap (its value). */
  limitReached?: number;
}

/** A real bulk replay, queued as a run (202). */
export interface BulkReplayStartedView {
  dryRun: false;
  runId: string;
  status: ReplayRunStatus;
  limit: number;
  location: string;
}

export type BulkReplayView = BulkReplayDryRunView | BulkReplayStartedView;

/** A bulk replay run (`GET /v1/admin/replays/{runId}`); the worker's claim is left out. */
export interface ReplayRunView {
  runId: string;
  status: ReplayRunStatus;
  filter: JsonObject;
  request: JsonObject;
  actor: string;
  reason: string | null;
  /** Null until the run starts. */
  total: number | null;
  done: number;
  replayed: number;
  skipped: number;
  /** The first skipped messages with their reason. */
  skips: SkippedMessage[];
  limit: number;
  limitReached: boolean;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  updatedAt: Date;
}

/** A partner's own message (`GET /v1/messages/{id}`): `retrying` while a retryable failure waits. */
export interface PartnerMessageStatusView {
  messageId: string;
  status: MessageStatus | 'retrying';
  reason: string | null;
  receivedAt: Date;
  operationCounts: OperationCounts;
  /** Pass as `after` for the next page of operations; null on the last. */
  nextAfter: number | null;
  operations: {
    seq: number;
    kind: OperationKind;
    target: string | null;
    status: OperationStatus | 'retrying';
    error: string | null;
    attempts: number;
    nextAttemptAt?: Date;
  }[];
}

/** A partner as operators see it (`GET /v1/admin/partners[/{id}]`); secrets live in tables of their own. */
export type PartnerView = PartnerProfile;
export type ApiKeyView = ApiKeySummary;
export type PartnerWithKeysView = PartnerView & { apiKeys: ApiKeyView[] };

/** `POST /v1/edi/preview`: what a file would produce and what its sender would be told; nothing is recorded. */
export interface EdiPreviewView {
  /** The whole file counted, whatever page of its sets is shown. */
  summary: { interchanges: number; sets: number; accepted: number; rejected: number; documents: number };
  /** The first PREVIEW_INTERCHANGES_LISTED interchanges (summary.interchanges counts them all). */
  interchanges: EdiTranslation['interchanges'];
  /** One page of the sets, in file order (`setsLimit`, default 100); `setsAfter` = nextSetsAfter for the next. */
  transactionSets: (Omit<EdiTranslation['sets'][number], 'operation'> & {
    operation?: EdiTranslation['sets'][number]['operation'];
  })[];
  nextSetsAfter: number | null;
  /** The documents of the sets shown. */
  documents: EdiTranslation['operations'][number]['operation'][];
  /** Those of the interchanges listed. */
  acknowledgments: EdiTranslation['acknowledgments'];
  problems: string[];
}

/** A page of a preview's sets: those after the `after`-th (0: from the first), at most `limit`. */
export interface SetPage {
  limit: number;
  after: number;
}
export const PREVIEW_SETS_DEFAULT = 100;
export const PREVIEW_SETS_MAX = 1000;
/**
 * Interchanges a preview lists, with their acknowledgments (the summary counts them all; `full=1`
 * streams every one): a file may hold 10,000, a few MB of outcomes and 997s in every page.
 */
export const PREVIEW_INTERCHANGES_LISTED = 100;

export function messageSummaryView(m: MessageSummary): MessageSummaryView {
  return {
    id: m.id,
    partnerId: m.partnerId,
    channel: m.channel,
    contentType: m.contentType,
    sha256: m.sha256,
    status: m.status,
    statusReason: m.statusReason,
    replayOf: m.replayOf,
    receivedAt: m.receivedAt,
    updatedAt: m.updatedAt,
    metadata: m.metadata,
  };
}

export function messageDetailView(
  detail: MessageDetail,
  payload: PayloadHead,
  files: { files: PartnerFileRecord[]; total: number },
  replays: ReplayLinkView[],
): MessageDetailView {
  return {
    message: { ...messageSummaryView(detail.message), ...payload },
    operationCounts: detail.counts,
    nextOperationsAfter: detail.nextAfter,
    operations: detail.operations.map((op) => ({
      id: op.id,
      seq: op.seq,
      kind: op.kind,
      organisationId: op.organisationId,
      targetId: op.targetId,
      payload: op.payload,
      status: op.status,
      lastError: op.lastError,
      errorClass: op.errorClass,
      attemptCount: op.attemptCount,
      nextAttemptAt: op.nextAttemptAt,
      inFlightUntil: op.inFlightUntil,
      supersededBy: op.supersededBy,
      createdAt: op.createdAt,
      updatedAt: op.updatedAt,
      attempts: op.attempts.map((a) => ({
        id: a.id,
        startedAt: a.startedAt,
        durationMs: a.durationMs,
        httpStatus: a.httpStatus,
        outcome: a.outcome,
        errorExcerpt: a.errorExcerpt,
        requestSummary: a.requestSummary,
      })),
    })),
    events: detail.events.map((e) => ({
      at: e.at,
      fromStatus: e.fromStatus,
      toStatus: e.toStatus,
      actor: e.actor,
      reason: e.reason,
    })),
    fileCount: files.total,
    files: files.files.map((f) => ({
      id: f.id,
      folder: f.folder,
      name: f.name,
      kind: f.kind,
      size: f.size,
      sha256: f.sha256,
      createdAt: f.createdAt,
      removedAt: f.removedAt,
      fetchedAt: f.fetchedAt,
    })),
    replays,
  };
}

export function replayRunView(run: ReplayRun): ReplayRunView {
  return {
    runId: run.id,
    status: run.status,
    filter: run.filter,
    request: run.request,
    actor: run.actor,
    reason: run.reason,
    total: run.total,
    done: run.done,
    replayed: run.replayed,
    skipped: run.skipped,
    skips: run.skips,
    limit: BULK_REPLAY_LIMIT,
    limitReached: run.limitReached,
    error: run.error,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    updatedAt: run.updatedAt,
  };
}

/** `retrying`: delivering, and waiting for a next try after a retryable failure (when and why are shown). */
export function partnerMessageStatusView({
  message,
  operations,
  counts,
  nextAfter,
}: MessageDetail): PartnerMessageStatusView {
  const retrying = (op: (typeof operations)[number]) => op.status === 'delivering' && op.nextAttemptAt !== null;
  return {
    messageId: message.id,
    status: message.status === 'delivering' && operations.some(retrying) ? 'retrying' : message.status,
    reason: message.statusReason,
    receivedAt: message.receivedAt,
    operationCounts: counts,
    nextAfter,
    operations: operations.map((op) => ({
      seq: op.seq,
      kind: op.kind,
      target: op.targetId,
      status: retrying(op) ? 'retrying' : op.status,
      error: op.lastError,
      attempts: op.attemptCount,
      ...(retrying(op) && op.nextAttemptAt && { nextAttemptAt: op.nextAttemptAt }),
    })),
  };
}

type PreviewSet = EdiPreviewView['transactionSets'][number];

/**
 * What a carrier would be told about a file, built from its translation events as they come: the
 * file counted whole, only the page's sets kept (a 10 MiB file has tens of thousands). A set counts
 * once its interchange has ended, as an interchange refused at its IEA refuses every set of it.
 */
export class EdiPreviewBuilder {
  private readonly view: EdiPreviewView = {
    summary: { interchanges: 0, sets: 0, accepted: 0, rejected: 0, documents: 0 },
    interchanges: [],
    transactionSets: [],
    nextSetsAfter: null,
    documents: [],
    acknowledgments: [],
    problems: [],
  };
  /** The sets of the interchange not ended yet: those of the page, and the others counted. */
  private open = { shown: [] as SetOutcome[], sets: 0, rejected: 0, documents: 0 };
  /** A problem refused the whole payload (too many interchanges): nothing of it would go out. */
  private refused = false;

  constructor(private readonly page: SetPage = { limit: PREVIEW_SETS_DEFAULT, after: 0 }) {}

  add(event: EdiEvent): void {
    if (event.type === 'problem') {
      this.view.problems.push(event.message);
      this.refused ||= event.refusesPayload === true;
      return;
    }
    if (event.type === 'set') {
      const index = this.view.summary.sets + this.open.sets++;
      if (index >= this.page.after && index < this.page.after + this.page.limit) {
        this.open.shown.push(event.set);
      }
      this.open.rejected += event.set.rejected ? 1 : 0;
      this.open.documents += event.set.operation ? 1 : 0;
      return;
    }
    const { outcome } = event;
    const { summary } = this.view;
    const rejected = event.refusedAtEnd ? this.open.sets : this.open.rejected;
    summary.interchanges++;
    summary.sets += this.open.sets;
    summary.rejected += rejected;
    summary.accepted += this.open.sets - rejected;
    summary.documents += outcome.refused ? 0 : this.open.documents;
    for (const set of this.open.shown) {
      const shown = event.refusedAtEnd ? refusedAtEnd(set, outcome) : set;
      this.view.transactionSets.push(previewSetOf(shown));
      if (shown.operation) {
        this.view.documents.push(shown.operation);
      }
    }
    if (summary.interchanges <= PREVIEW_INTERCHANGES_LISTED) {
      this.view.interchanges.push(outcome);
      if (event.acknowledgment) {
        this.view.acknowledgments.push(event.acknowledgment);
      }
    }
    this.open = { shown: [], sets: 0, rejected: 0, documents: 0 };
  }

  result(): EdiPreviewView {
    const end = this.page.after + this.view.transactionSets.length;
    const view = { ...this.view, nextSetsAfter: end < this.view.summary.sets ? end : null };
    if (!this.refused) {
      return view;
    }
    const { summary } = view;
    // As the translation answers it: no document, no acknowledgment; the problem says why.
    return {
      ...view,
      summary: { ...summary, accepted: 0, rejected: summary.sets, documents: 0 },
      documents: [],
      acknowledgments: [],
    };
  }
}

const previewSetOf = ({ operation, ...set }: SetOutcome): PreviewSet => ({ ...set, ...(operation && { operation }) });

/**
 * One line of a whole preview (`?full=1`, NDJSON), in file order: each set as it is mapped, each
 * interchange as it ends (`refusedAtEnd`: none of the sets above it goes out after all), the
 * problems outside interchanges, and last the summary.
 */
export type EdiPreviewLine =
  | ({ type: 'set' } & PreviewSet)
  | ({ type: 'interchange'; refusedAtEnd: boolean; acknowledgment?: Acknowledgment } & InterchangeOutcome)
  | { type: 'problem'; message: string; refusesPayload?: boolean }
  | ({ type: 'summary' } & EdiPreviewView['summary']);

export function ediPreviewLine(event: EdiEvent): EdiPreviewLine {
  switch (event.type) {
    case 'set':
      return { type: 'set', ...previewSetOf(event.set) };
    case 'interchange':
      return {
        type: 'interchange',
        ...event.outcome,
        refusedAtEnd: event.refusedAtEnd,
        ...(event.acknowledgment && { acknowledgment: event.acknowledgment }),
      };
    case 'problem':
      return event;
  }
}
