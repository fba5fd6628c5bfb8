import { randomUUID } from 'node:crypto';

/** Queue names and job payloads: the one registry of jobs. Job ids derive from row ids, so a job is never queued twice. */
export const QUEUES = {
  /** Parse and map recorded messages into operations (TranslateJobData). */
  translate: 'translate',
  /** Deliver one operation to the platform. Job id = operation id. */
  deliver: 'deliver',
  /** Deliver many document operations of one message and location through a platform batch job. */
  batch: 'batch',
  /** Re-enqueue messages and operations left without a live job (scheduled). */
  sweep: 'sweep',
  /** Scheduled bookings exports to partners (one job scheduler per partner export). */
  export: 'export',
  /** Bulk replays by filter (a `replay_run` row each): run in the background, resumed after a crash. Job id from the run id. */
  replay: 'replay',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * Messages to translate: one (replay, sweeper; job id = its message id) or up to 32 that one ingress
 * commit recorded (job id from `ingressJobId`, kept in each message's metadata as `ingressJob`), so
 * a burst of webhooks costs a few jobs, not one each.
 */
export interface TranslateJobData {
  messageIds: string[];
}

/** The messages of a translate job (jobs queued before `messageIds` carried one `messageId`). */
export const messageIdsOf = (data: TranslateJobData | { messageId: string }): string[] =>
  'messageIds' in data ? data.messageIds : [data.messageId];

export interface DeliverJobData {
  operationId: string;
}

export interface BatchJobData {
  messageId: string;
  organisationId: string;
  kind: 'document.upsert' | 'document.delete';
  operationIds: string[];
  /** The platform's document-job id once submitted, so a retried batch polls instead of submitting again. */
  platformJobId?: string;
  /** When a submit whose answer never came began (ISO 8601): a retry looks for the job it may have made before submitting again. */
  submittedAt?: string;
  /** platformJobId was found among the organisation's jobs by its size (findSubmitted): its results are checked to be this chunk's. */
  jobFromListing?: boolean;
  /** Jobs found by their size whose results named other documents: never taken for this chunk's again. */
  notThisChunks?: string[];
}

/** A sweep; `staleMs` overrides the configured staleness (the sweep right after Redis returns looks at everything). */
export interface SweepJobData {
  staleMs?: number;
}

/** One bulk replay run (its `replay_run` row holds the filter, the options and the progress). */
export interface ReplayRunJobData {
  runId: string;
}

/** A run of one partner export (scheduled, or added by hand). */
export interface ExportJobData {
  partnerId: string;
  exportId: string;
  /** The run's export message once recorded, so a retried run delivers that file again instead of recording another. */
  messageId?: string;
}

/** Each queue's job data: the job handler table (job-handlers.ts) is typed by it. */
export interface JobDataByQueue {
  translate: TranslateJobData;
  deliver: DeliverJobData;
  batch: BatchJobData;
  sweep: SweepJobData;
  export: ExportJobData;
  replay: ReplayRunJobData;
}
export type JobDataOf<Q extends QueueName> = JobDataByQueue[Q];

export const translateJobId = (messageId: string) => messageId;
/** A translate job for messages of one ingress commit. */
export const ingressJobId = () => `ingress-${randomUUID()}`;
export const deliverJobId = (operationId: string) => operationId;
const BATCH_JOB_PREFIX = 'batch-';
/** The first operation id names a batch: unique per chunk, stable across retries and sweeps. */
export const batchJobId = (operationIds: string[]) => `${BATCH_JOB_PREFIX}${operationIds[0]}`;
/** The chunk's key a batch job claims its operations under: the operation id its job id names. */
export const chunkOfBatchJob = (jobId: string) => jobId.slice(BATCH_JOB_PREFIX.length);

/** The job of a bulk replay run: queued once per run however often it is asked. */
export const replayRunJobId = (runId: string) => `replay-${runId}`;

/** The job scheduler of one partner export. */
export const exportSchedulerId = (partnerId: string, exportId: string) => `export-${partnerId}-${exportId}`;
