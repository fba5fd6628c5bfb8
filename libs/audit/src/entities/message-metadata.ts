import type { Actor, OperationStatus } from '../audit.types';

/** How a replay was asked for: recorded on the replay, read back when it is translated and listed. */
export interface ReplayFacts {
  mode: 'rerun' | 'failed-only';
  /** An operator supplied the payload (edit-and-replay). */
  edited: boolean;
  by: Actor;
  reason: string | null;
  /** Which mapping translates it: the version the original used, or today's. */
  mapping: 'original' | 'current';
  /** The operator allowed organisations outside the partner's profile. */
  organisationOverride?: true;
  /** Ordered as a new arrival instead of in its original's place. */
  force?: true;
  /** The bulk replay run that made it. */
  run?: string;
}

/** An interchange a message carried, found by the ISA13 a carrier quotes (MessageFilter.interchange). */
export interface InterchangeFact {
  sender: string;
  control: string;
  /** Refused as a whole (TA1, duplicate, unknown sender). */
  refused: boolean;
}

/**
 * Facts about a message worth searching or showing, kept as jsonb. Written at receipt, by
 * translation (`annotate`) and by replay; every field is optional because messages of every age,
 * channel and outcome are read with the same type.
 */
export interface MessageMetadata {
  /** Bytes received. */
  size?: number;
  /** Hex SHA-256 of the bytes received (uploads and refusals). */
  sha256?: string;
  /** How an EDI file arrived. */
  via?: 'sftp' | 'http';
  fileName?: string;
  /** The stored SFTP upload it was read from. */
  fileId?: string;
  /** The stored file that is its payload (raw_payload is then empty): an upload is stored once. */
  payloadFile?: string;
  /** The encoding the file was decoded from, when it was not UTF-8. */
  encoding?: string;
  platformAccount?: string | null;
  /** Operations in a canonical (`POST /v1/messages`) body. */
  operations?: number;
  /** JSON values in the body (`inspectJson`): a worker admits a message read whole by them as well as its bytes. */
  jsonValues?: number;
  webhookId?: string | null;
  /** The partner's idempotency key, added by the ingest statement from its own column. */
  idempotencyKey?: string;
  /** The queue job that takes it to translation; the sweeper re-queues a message whose job is gone. */
  ingressJob?: string;
  /** Times the sweeper queued its translation again after its job was lost (bounded: MAX_TRANSLATION_REQUEUES). */
  translationRequeues?: number;
  /** Its translation was given up and what it left is not cleaned up yet (TranslateMessage.abandon; the sweeper finishes it). */
  abandoning?: boolean;

  /** Kept for the audit and never processed (a refused webhook): replay refuses it too. */
  refusedAtIngress?: true;
  /** The webhook verification scheme that refused it. */
  verification?: string;
  /** Bytes of the refused body kept as its excerpt (the raw payload). */
  excerptBytes?: number;
  /** The allowlisted request headers of a refused webhook. */
  headers?: Record<string, string>;
  /** A summary of refusals over the recording limit: how many, by kind, in the minute from windowStartedAt. */
  suppressed?: number;
  suppressedByKind?: Record<string, number>;
  windowStartedAt?: string;
  /** A repeated webhook: the message that was first. */
  duplicateOf?: string;

  /**
   * The translation storing this message's operations batch by batch (a large X12 file): a second
   * one (a stalled job run again) takes over and the first stops at its next batch.
   */
  translationRun?: string;
  /**
   * A large X12 file read whole once before it was translated (envelopes, organisations, duplicates:
   * nothing in it can be refused at its end) and delivered as it was translated: a translation taken
   * up again goes on after the operations stored, which may be at the platform already.
   */
  deliveredWhileTranslating?: boolean;
  /** Of such a file: the last seq of its operations and refused sets, once all are stored (refused interchanges follow). */
  operationsThrough?: number;

  /** The mapping version translated with (webhooks); `current` asks a replay for today's. */
  mappingVersion?: number | 'current' | null;
  /** Its interchanges, refused ones too; a message read for display lists the first LISTED_INTERCHANGES. */
  interchanges?: InterchangeFact[];
  /** How many interchanges it carries, when `interchanges` was cut to its first LISTED_INTERCHANGES for display. */
  interchangeCount?: number;

  /**
   * Its operations by status and their finished attempts, recorded when it settled (nothing changes
   * them after that): the detail reads them here instead of counting a large message's rows again.
   */
  operationCounts?: { byStatus: Partial<Record<OperationStatus, number>>; attempts: number };

  /** A replay's place in arrival order: its original's (a bigint as text). */
  orderArrival?: string | null;
  replay?: ReplayFacts;

  /** Export runs: the partner's export, the run's due time, what the file held. */
  exportId?: string;
  runAt?: string;
  rows?: number;
  pages?: number;
}
