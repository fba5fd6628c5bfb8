import { hash } from 'node:crypto';
import { DataSource, EntityManager, QueryDeepPartialEntity } from 'typeorm';
import { AuditRecordNotFoundError, isUuid } from './audit.errors';
import {
  AttemptOutcome,
  DeliveryErrorClass,
  JsonObject,
  OPERATION_STATUSES,
  OperationKind,
  OperationStatus,
  SUPERSEDABLE_KINDS,
} from './audit.types';
import { DeliveryAttempt, DocumentOperation } from './entities';
import { excerpt } from './excerpt';
import { newId } from './new-id';
import {
  attachPayloads,
  blocksJson,
  BlockWriter,
  bodyOfLine,
  encodeBlocks,
  type EncodedBlock,
  insertBlocks,
  insertBlocksSql,
  jsonOfLine,
  type LineMeasures,
  payloadsAt,
  payloadTexts,
} from './payload-blocks';
import { parsedWeightOf } from './payload-weight';
import { NamedStatement, queryPrepared } from './prepared';
import { lastSeqOf, seqWindow } from './seq-window';

export interface NewOperation {
  kind: OperationKind;
  organisationId?: string | null;
  targetId?: string | null;
  /** What it writes, for ordering (`orderKeyOf` in libs/mapping); null or absent: not ordered. */
  orderKey?: string | null;
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

/** One of many attempts to record at once (batch jobs), optionally settling its operation in the same statement. */
export interface AttemptRecord extends NewDeliveryAttempt {
  operationId: string;
  settlement?: OperationSettlement;
}

/**
 * The gate's verdict on one operation: `go` (claimed: deliver it now), `wait` (an older write to
 * its target is unsettled, or a newer one is in flight), `superseded` (a newer write was delivered:
 * settled without a call, `supersededBy` names it), `settled` (nothing to do), `missing`.
 */
export type GateVerdict =
  | { id: string; verdict: 'go'; messageId: string; payload: JsonObject }
  | { id: string; verdict: 'superseded'; messageId: string; supersededBy: string }
  | { id: string; verdict: 'settled'; messageId: string }
  | { id: string; verdict: 'wait' | 'missing' };

/** The gate's verdict on an operation of a batch chunk: as GateVerdict, without the payload (the body is read as it is sent). */
export type ChunkVerdict = Exclude<GateVerdict, { verdict: 'go' }> | { id: string; verdict: 'go'; messageId: string };

/** What the platform may have applied but nobody recorded the answer of: the call of a process that died. */
export const INTERRUPTED_REASON =
  'no answer recorded: the process making this call stopped during it; the platform may have applied it';

/**
 * CTEs over "claimed" (the operations a gate just claimed): an attempt still open from an earlier
 * claim is closed as interrupted (and counted), and a new in-flight attempt is opened before any
 * call is made, so every write the platform may have seen is in the audit. The open attempts are
 * looked up by each claimed operation (OFFSET 0 keeps the lookup per operation): joined, a planner
 * that took the claimed rows for a handful matched every in-flight attempt against each of them,
 * 10–56 million comparisons, 1.7–6 s for a chunk's page.
 */
const INTERRUPT_AND_START = `
  interrupted AS (
    UPDATE attempt a SET outcome = 'interrupted', error_excerpt = '${INTERRUPTED_REASON}'
     WHERE a.id IN (SELECT open.id FROM claimed c, LATERAL (
             SELECT x.id FROM attempt x WHERE x.operation_id = c.id AND x.outcome = 'in-flight' OFFSET 0) open)
  ), started AS (
    INSERT INTO attempt (id, operation_id, started_at, duration_ms, http_status, outcome, request_summary)
    SELECT gen_random_uuid(), id, now(), 0, NULL, 'in-flight', kind FROM claimed
  )`;

/** Where message `m` stands in arrival order: its own arrival, or its original's for a replay that orders as it. */
const orderArrivalOf = (m: string) => `coalesce((${m}.metadata->>'orderArrival')::bigint, ${m}.arrival)`;

/**
 * Whether a write (its message `messageId`, its place `orderArrival`) is behind a message of the same
 * partner that came before it and is not translated yet: that message may write the same target, and
 * its rows do not exist yet for the gate to order against. A partner's writes thus reach the platform
 * in the order it sent them even when a later message is translated first (a status change overtaking
 * the one before it was refused by the platform's state machine). Asked as the partner's oldest
 * untranslated arrival, one probe of message_untranslated_idx whatever its backlog (as EXISTS with the
 * arrival compared, an anti join read every newer untranslated message for each write: 4.8 s for a
 * 5,000-write page behind 5,000 of them).
 */
const behindUntranslated = (messageId: string, orderArrival: string) => `coalesce((
    SELECT min(older.arrival) FROM message older
     WHERE older.partner_id = (SELECT me.partner_id FROM message me WHERE me.id = ${messageId})
       AND older.status IN ('received', 'translating') AND older.channel <> 'export') < ${orderArrival}, false)`;

/**
 * Whether the row `o` may be claimed by the job named `claimant` (a batch chunk's key; null: the
 * operation's own delivery job): a lease still running is the holder's alone (its retry after a
 * death claims again); another job waits for it to be given back or to lapse.
 */
const claimableBy = (claimant: string) =>
  `(o.in_flight_until IS NULL OR o.in_flight_until <= now() OR o.claimed_by IS NOT DISTINCT FROM ${claimant})`;

/**
 * The gate's fast path for one operation alone on its target (the common case): claimed by a plain
 * UPDATE when no other write to the target is unsettled or newer-and-delivered. It takes no locks
 * beyond its own row and needs none: any unsettled peer sends both to GATE, whose row locks then
 * order them (a peer recorded after this statement's snapshot finds this row `delivering`). A row
 * another job holds, or (`untranslated`) one behind an untranslated message, is left to GATE too,
 * which answers `wait`.
 */
const claimAlone = (which: string, returning: string, untranslated: boolean) => `
  WITH claimed AS (
    UPDATE operation o SET status = 'delivering', in_flight_until = now() + $2::int * interval '1 millisecond', updated_at = now(),
        claimed_by = $3::uuid,
        attempt_count = o.attempt_count + (SELECT count(*) FROM attempt a WHERE a.operation_id = o.id AND a.outcome = 'in-flight')
     WHERE ${which} AND o.status IN ('pending', 'delivering') AND ${claimableBy('$3::uuid')}
       ${untranslated ? `AND NOT ${behindUntranslated('o.message_id', 'o.order_arrival')}` : ''}
       AND NOT EXISTS (SELECT 1 FROM operation p WHERE p.order_key = o.order_key AND p.id <> o.id
             AND (p.status IN ('pending', 'delivering') OR (p.status = 'delivered' AND (p.order_arrival, p.seq, p.id) > (o.order_arrival, o.seq, o.id))))
    RETURNING ${returning}
  ), ${INTERRUPT_AND_START}`;

const GATE_ALONE: NamedStatement = {
  name: 'dockbridge_gate_alone',
  text: `${claimAlone('o.id = $1', 'o.id, o.message_id, o.seq, o.kind', true)}
  SELECT message_id, seq FROM claimed`,
};

/**
 * GATE_ALONE for the operations of a batch chunk at once: each whose write is alone on its target is
 * claimed, by the same test and with the same reasoning, row by row; the others are left to GATE
 * (what gate() does for one operation). Locking and ranking 25,000 rows that have no peers was
 * most of the chunk's gate. The chunk asked behindUntranslated of its message first (gateChunk):
 * asked here, per row the probe cost ~270 ms a chunk, and once a message (an anti join) it made the
 * planner take the claimed rows for a handful and match their in-flight attempts by a nested loop
 * (6 s a page of 2,500).
 */
const GATE_ALONE_MANY: NamedStatement = {
  name: 'dockbridge_gate_alone_many',
  text: `${claimAlone('o.id = ANY($1::uuid[])', 'o.id, o.message_id, o.kind', false)}
  SELECT id, message_id FROM claimed`,
};

/**
 * One statement decides and claims, for any number of operations: the rows of each target that
 * could matter (unsettled ones; delivered ones at or after the oldest asked about; found through
 * operation_order_key_idx, not a scan) are locked in id order — so concurrent gates on one target
 * take turns and never deadlock — and read at their latest version; then each operation is judged
 * against them set-based (a window and DISTINCT ON, so a 25,000-document chunk is not compared
 * pairwise) in the total order (arrival, position, id), and claimed (`delivering` with a lease
 * held by the claiming job, $4) or settled `superseded`. A target's writes thus reach the platform in
 * arrival order, an older write that finds a newer one delivered is never sent, and a write whose
 * lease another job holds waits (two jobs never send one write at once).
 */
const gateText = `
  WITH mine AS (
    SELECT id, message_id, order_key, order_arrival, seq, kind FROM operation WHERE id = ANY($1::uuid[])
  ), candidates AS (
    SELECT id FROM mine
    UNION
    SELECT o.id FROM operation o JOIN (SELECT DISTINCT order_key FROM mine WHERE order_key IS NOT NULL) k ON o.order_key = k.order_key
     WHERE o.status IN ('pending', 'delivering') OR (o.status = 'delivered' AND o.order_arrival >= (SELECT min(order_arrival) FROM mine))
  ), peers AS (
    SELECT o.id, o.order_key, o.order_arrival, o.seq, o.status, o.in_flight_until, NOT ${claimableBy('$4::uuid')} AS held_elsewhere
      FROM operation o WHERE o.id IN (SELECT id FROM candidates)
     ORDER BY o.id
     FOR UPDATE OF o
  ), ordered AS (
    SELECT id, status, held_elsewhere,
      CASE WHEN order_key IS NULL THEN 0 ELSE count(*) FILTER (WHERE status IN ('pending', 'delivering'))
        OVER (PARTITION BY order_key ORDER BY order_arrival, seq, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) END AS older_unsettled
      FROM peers
  ), latest_delivered AS (
    SELECT DISTINCT ON (order_key) order_key, id, order_arrival, seq FROM peers
     WHERE status = 'delivered' ORDER BY order_key, order_arrival DESC, seq DESC, id DESC
  ), latest_in_flight AS (
    SELECT DISTINCT ON (order_key) order_key, id, order_arrival, seq FROM peers
     WHERE in_flight_until > now() AND status IN ('pending', 'delivering') ORDER BY order_key, order_arrival DESC, seq DESC, id DESC
  ), judged AS (
    SELECT m.id, m.message_id, o.status, o.held_elsewhere, o.older_unsettled > 0 AS older_unsettled,
      ${behindUntranslated('m.message_id', 'm.order_arrival')} AS behind_untranslated,
      CASE WHEN m.kind = ANY($3::text[]) AND (d.order_arrival, d.seq, d.id) > (m.order_arrival, m.seq, m.id) THEN d.id END AS newer_delivered,
      coalesce((f.order_arrival, f.seq, f.id) > (m.order_arrival, m.seq, m.id), false) AS newer_in_flight
      FROM mine m JOIN ordered o ON o.id = m.id
      LEFT JOIN latest_delivered d ON d.order_key = m.order_key
      LEFT JOIN latest_in_flight f ON f.order_key = m.order_key
  ), decided AS (
    SELECT id, message_id, newer_delivered, CASE
        WHEN status NOT IN ('pending', 'delivering') THEN 'settled'
        WHEN held_elsewhere OR older_unsettled OR behind_untranslated THEN 'wait'
        WHEN newer_delivered IS NOT NULL THEN 'superseded'
        WHEN newer_in_flight THEN 'wait'
        ELSE 'go' END AS verdict
      FROM judged
  ), changed AS (
    UPDATE operation o SET
        status = CASE d.verdict WHEN 'go' THEN 'delivering' ELSE 'superseded' END,
        in_flight_until = CASE d.verdict WHEN 'go' THEN now() + $2::int * interval '1 millisecond' END,
        superseded_by = CASE d.verdict WHEN 'superseded' THEN d.newer_delivered END,
        claimed_by = CASE d.verdict WHEN 'go' THEN $4::uuid ELSE o.claimed_by END,
        attempt_count = o.attempt_count + (SELECT count(*) FROM attempt a WHERE a.operation_id = o.id AND a.outcome = 'in-flight'),
        updated_at = now()
      FROM decided d WHERE o.id = d.id AND d.verdict IN ('go', 'superseded')
    RETURNING o.id, o.message_id, o.seq, o.kind, d.verdict
  ), claimed AS (
    SELECT id, kind FROM changed WHERE verdict = 'go'
  ), ${INTERRUPT_AND_START}
  SELECT d.id, d.verdict, d.newer_delivered, d.message_id, c.seq FROM decided d LEFT JOIN changed c ON c.id = d.id`;

const GATE: NamedStatement = { name: 'dockbridge_gate', text: gateText };

/** The claimant of a claim made by an operation's own delivery job (claimed_by stays null). */
const OWN_JOB = null;

export type OperationStatusCounts = Record<OperationStatus, number>;

/** The operation columns a settlement sets; all null when there is none (the status is left alone). */
function settled(settlement: OperationSettlement | undefined) {
  const failed = settlement?.status === 'failed';
  return {
    status: settlement?.status ?? null,
    lastError: failed ? excerpt(settlement.lastError) : null,
    errorClass: failed ? (settlement.errorClass ?? null) : null,
  };
}

/**
 * Operations a planning query reads at a time (PlanEntry rows: ~100 bytes each). A page is parsed
 * and planned in one go: 5,000 held a worker's event loop up to 139 ms (bench/README.md).
 */
export const PLAN_PAGE_ROWS = 2_000;
/**
 * Operations of a batch chunk read at a time (batchEntriesOf): the driver parses a page's rows in
 * one go, and 5,000 (with a GC inside) held a worker's loop 80–127 ms on a slow machine.
 */
const ENTRY_PAGE_ROWS = 2_000;

/** An operation as delivery planning reads it (no payload): what it is, where, and its batch body bytes. */
export interface PlanEntry {
  id: string;
  status: OperationStatus;
  kind: OperationKind;
  organisationId: string | null;
  /** An upsert's reference options (batched only with the same ones). */
  options: JsonObject | null;
  /** Bytes of its part of a batch body: its document (upserts) or id (deletes) as JSON. */
  bytes: number;
}

/** An operation of a batch job, as the job reads it before sending (BatchEntriesOf). */
export interface BatchEntry {
  id: string;
  status: OperationStatus;
  /** The document it writes or deletes (the platform's result entries name it). */
  targetId: string | null;
  /** Bytes of its part of the body. */
  bytes: number;
  options: JsonObject | null;
}

/** A second translation of the message took over (a stalled job run again): this one stops. */
export class StreamedWriteTakenOverError extends Error {
  constructor(readonly messageId: string) {
    super(`another translation of message ${messageId} took over: this one stops`);
    this.name = 'StreamedWriteTakenOverError';
  }
}

/** Failed operations whose payloads a replay reads per statement (failedOperationsJson). */
const FAILED_PAGE = 1000;

/** Rows per INSERT of addMany (~0.6 MB of JSON for documents with two loads). */
const INSERT_CHUNK = 1000;

/**
 * The INSERT of operation rows (recordOf) of message $1 given as one JSON array (`rows`, a parameter),
 * each in arrival order `arrival`; `from` names what else the SELECT reads (a CTE, with its comma).
 */
const insertOperationRows = (arrival: string, rows: string, from = '') => `
  INSERT INTO operation (id, message_id, seq, kind, organisation_id, target_id, order_key, order_arrival, options, body_bytes, payload_weight, status, last_error, error_class)
  SELECT r.id, $1::uuid, r.seq, r.kind, r.organisation_id, r.target_id, r.order_key, ${arrival}, r.options, r.body_bytes, r.payload_weight, r.status, r.last_error, r.error_class
    FROM ${from}jsonb_to_recordset(${rows}::jsonb) AS r(id uuid, seq integer, kind text, organisation_id text, target_id text,
      order_key uuid, options jsonb, body_bytes integer, payload_weight integer, status text, last_error text, error_class text)`;

/**
 * Operation rows as one JSON array ($3) of a message ($1) in one arrival order ($2); their payloads
 * go to payload_block (insertBlocks) in the same transaction.
 */
const INSERT_ROWS = insertOperationRows('$2::bigint', '$3');

/**
 * One batch of a streamed write as one statement (its own transaction): the message locked, its run
 * checked, the blocks and the rows inserted only when the run ($2) still owns the message. One round
 * trip instead of six (BEGIN, lock, blocks, rows, COMMIT): an answer is read only at the worker's next
 * turn, which the reader gives every 100 sets or 20 ms, so each trip kept the batch in flight longer.
 * A block at a seq written before is replaced (removeSeqRange drops those after a discarded seq).
 */
const APPEND_STREAMED = `
  WITH locked AS (
    SELECT ${orderArrivalOf('m')} AS order_arrival, m.metadata->>'translationRun' AS run, m.status IN ('received', 'translating') AS open
      FROM message m WHERE m.id = $1 FOR UPDATE
  ), owned AS (
    SELECT order_arrival FROM locked WHERE run = $2 AND open
  ), blocks AS (${insertBlocksSql('$3', 'owned, ')}
    ON CONFLICT (message_id, first_seq) DO UPDATE SET lines = excluded.lines, encoding = excluded.encoding, body = excluded.body
  ), inserted AS (${insertOperationRows('owned.order_arrival', '$4', 'owned, ')}
  )
  SELECT true AS found, run, open FROM locked`;

/** A planning page: the operations of message $1 with seqs in ($2, $2 + $3], in order (planEntryPages). */
export const PLAN_PAGE = `SELECT id, status, kind, organisation_id AS "organisationId", options, body_bytes AS bytes
  FROM operation WHERE message_id = $1 AND ${seqWindow('seq', '$2', '$3')} ORDER BY seq`;

/** A new operation row, with what it records of its payload's line (BlockWriter.add). */
function newRow(messageId: string, seq: number, op: NewOperation, { bodyBytes, weight }: LineMeasures) {
  return {
    id: newId(),
    messageId,
    seq,
    kind: op.kind,
    organisationId: op.organisationId ?? null,
    targetId: op.targetId ?? null,
    orderKey: op.failed || !op.orderKey ? null : orderDigest(op.orderKey),
    inFlightUntil: null,
    nextAttemptAt: null,
    supersededBy: null,
    options: (op.payload.options as JsonObject | undefined) ?? null,
    bodyBytes,
    payloadWeight: weight,
    status: op.failed ? ('failed' as const) : ('pending' as const),
    lastError: op.failed ? excerpt(op.failed.lastError) : null,
    errorClass: op.failed ? ('permanent' as const) : null,
  };
}

/** A new row (newRow) as INSERT_ROWS reads it. */
function recordOf(row: {
  id: string;
  seq: number;
  kind: OperationKind;
  organisationId: string | null;
  targetId: string | null;
  orderKey: string | null;
  options: JsonObject | null;
  bodyBytes: number;
  payloadWeight: number;
  status: OperationStatus;
  lastError: string | null;
  errorClass: DeliveryErrorClass | null;
}) {
  return {
    id: row.id,
    seq: row.seq,
    kind: row.kind,
    organisation_id: row.organisationId,
    target_id: row.targetId,
    order_key: row.orderKey,
    options: row.options,
    body_bytes: row.bodyBytes,
    payload_weight: row.payloadWeight,
    status: row.status,
    last_error: row.lastError,
    error_class: row.errorClass,
  };
}

/** An order key as stored: its MD5 as a uuid, what Postgres' `md5(key)::uuid` gives (CompactDeliveryKeys). */
export function orderDigest(key: string): string {
  // One-shot: a Hash object per key cost three times as much (translation digests one per document).
  const hex = hash('md5', key, 'hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Attempts recorded by one statement of recordAttempts. */
const RECORD_CHUNK = 500;

const ATTEMPT_COLUMNS = [
  'id',
  'operationId',
  'startedAt',
  'durationMs',
  'httpStatus',
  'outcome',
  'errorExcerpt',
  'requestSummary',
  'status',
  'lastError',
  'errorClass',
] as const;

/** recordAttempts' statement: ATTEMPT_COLUMNS as parallel arrays; an open in-flight attempt is finished in place. */
const RECORD_ATTEMPTS = `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
           AS t(id, operation_id, started_at, duration_ms, http_status, outcome, error_excerpt, request_summary, status, last_error, error_class)
       ), open AS (
         SELECT DISTINCT ON (a.operation_id) a.id, a.operation_id FROM attempt a JOIN input i ON a.operation_id = i.operation_id
          WHERE a.outcome = 'in-flight' ORDER BY a.operation_id, a.started_at DESC
       ), finished AS (
         UPDATE attempt a SET started_at = i.started_at, duration_ms = i.duration_ms, http_status = i.http_status, outcome = i.outcome, error_excerpt = i.error_excerpt, request_summary = i.request_summary
           FROM open JOIN input i ON i.operation_id = open.operation_id WHERE a.id = open.id
       ), inserted AS (
         INSERT INTO attempt (id, operation_id, started_at, duration_ms, http_status, outcome, error_excerpt, request_summary)
         SELECT i.id, i.operation_id, i.started_at, i.duration_ms, i.http_status, i.outcome, i.error_excerpt, i.request_summary
           FROM input i WHERE NOT EXISTS (SELECT 1 FROM open WHERE open.operation_id = i.operation_id)
       )
       UPDATE operation o SET
         attempt_count = o.attempt_count + 1,
         status = COALESCE(i.status, o.status),
         last_error = CASE WHEN i.status IS NULL THEN o.last_error ELSE i.last_error END,
         error_class = CASE WHEN i.status IS NULL THEN o.error_class ELSE i.error_class END,
         next_attempt_at = NULL,
         in_flight_until = CASE WHEN i.status IS NULL AND $12::int IS NOT NULL THEN now() + $12::int * interval '1 millisecond' END,
         updated_at = now()
       FROM input i WHERE o.id = i.operation_id`;

/** Rows in message order, then seq (uuids compare as Postgres compares them: same case, same length). */
const byMessageAndSeq = (a: { messageId: string; seq: number }, b: { messageId: string; seq: number }): number =>
  a.messageId === b.messageId ? a.seq - b.seq : a.messageId < b.messageId ? -1 : 1;

/** The message row a write of its operations locks (lockMessage): what the write decides on. */
interface LockedMessage {
  order_arrival: string;
  run: string | null;
  status: string;
  /** metadata.deliveredWhileTranslating */
  delivering: boolean;
  /** metadata.operationsThrough */
  through: number | null;
}

/** A row of GATE: an operation and its verdict. */
type GateRow = {
  id: string;
  verdict: GateVerdict['verdict'];
  newer_delivered: string | null;
  message_id: string;
  /** Of a claimed operation: where its payload is. */
  seq: number | null;
};

/** The verdict of a GATE row other than `go` (none: `missing`). */
function verdictOf(id: string, row: GateRow | undefined): Exclude<GateVerdict, { verdict: 'go' }> {
  if (!row || row.verdict === 'go') {
    return { id, verdict: 'missing' };
  }
  if (row.verdict === 'superseded') {
    return { id, verdict: 'superseded', messageId: row.message_id, supersededBy: row.newer_delivered! };
  }
  if (row.verdict === 'settled') {
    return { id, verdict: 'settled', messageId: row.message_id };
  }
  return { id, verdict: row.verdict };
}

/**
 * A batch of a streamed translation's operations (appendStreamed), numbered from `firstSeq`, each
 * encoded as it is added: its payload into a block compressed once full (BlockWriter), its row as
 * the few columns INSERT_ROWS reads. A batch is held while the next one is mapped: held as the
 * mapper's objects, its operations outlived two scavenges and were promoted (bench/README.md).
 */
export class StreamedBatch {
  private readonly blocks: BlockWriter;
  private readonly rows: ReturnType<typeof recordOf>[] = [];

  constructor(
    readonly messageId: string,
    readonly firstSeq: number,
  ) {
    this.blocks = new BlockWriter(firstSeq);
  }

  static of(messageId: string, firstSeq: number, operations: readonly NewOperation[]): StreamedBatch {
    const batch = new StreamedBatch(messageId, firstSeq);
    operations.forEach((op) => batch.add(op));
    return batch;
  }

  add(op: NewOperation): void {
    const measures = this.blocks.add(op.payload);
    this.rows.push(recordOf(newRow(this.messageId, this.firstSeq + this.rows.length, op, measures)));
  }

  get size(): number {
    return this.rows.length;
  }

  /** Keeps the first `count` operations; false (nothing changed) once some after them are compressed. */
  truncate(count: number): boolean {
    if (!this.blocks.truncate(count)) {
      return false;
    }
    this.rows.length = Math.min(count, this.rows.length);
    return true;
  }

  /** Its operations as delivery planning reads them (planEntryPages' rows). */
  planEntries(): PlanEntry[] {
    return this.rows.map((row) => ({
      id: row.id,
      status: row.status,
      kind: row.kind,
      organisationId: row.organisation_id,
      options: row.options,
      bytes: row.body_bytes,
    }));
  }

  /** The payload blocks and the rows as one JSON array, as APPEND_STREAMED takes them. */
  async encoded(): Promise<{ blocks: EncodedBlock[]; rows: string }> {
    return { blocks: await this.blocks.finish(), rows: JSON.stringify(this.rows) };
  }
}

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
      // A replay orders as its original (metadata.orderArrival) unless the operator forced it.
      const locked = await this.lockMessage(manager, messageId);
      const existing = await this.listWith(manager, messageId);
      if (existing.length > 0) {
        return existing;
      }
      const stored: DocumentOperation[] = [];
      // A chunk at a time, payloads encoded and rows built as it goes: all of a 25,000-document message
      // at once held the worker's event loop ~200 ms, then ~130 (bench/README.md).
      for (let from = 0; from < operations.length; from += INSERT_CHUNK) {
        const chunk = operations.slice(from, from + INSERT_CHUNK);
        const { blocks, measures } = await encodeBlocks(
          from + 1,
          chunk.map((op) => op.payload),
        );
        await insertBlocks(manager, messageId, blocks);
        const rows = chunk.map((op, i) => newRow(messageId, from + i + 1, op, measures[i]));
        // One JSON parameter a chunk, not TypeORM's insert: building its statements took the worker ~1 s
        // of CPU for a 25,000-document message (the same held a streamed translation's batches).
        const returned: { id: string; attemptCount: number; createdAt: Date; updatedAt: Date }[] = await manager.query(
          `${INSERT_ROWS} RETURNING id, attempt_count AS "attemptCount", created_at AS "createdAt", updated_at AS "updatedAt"`,
          [messageId, locked.order_arrival, JSON.stringify(rows.map(recordOf))],
        );
        const filled = new Map(returned.map(({ id, ...columns }) => [id, columns]));
        // Every column is given: TypeORM's create (metadata walked per row) took ~140 ms for 25,000.
        // As a read gives them back: payload_weight is read only by the delivery that asks for it.
        rows.forEach(({ payloadWeight: _weight, ...row }, i) =>
          stored.push(Object.assign(new DocumentOperation(), row, filled.get(row.id), { payload: chunk[i].payload })),
        );
      }
      return stored;
    });
  }

  /**
   * Starts storing a message's operations batch by batch: removes any a translation interrupted
   * before it finished (none was queued: queueing follows the last batch) and names this run, so
   * a second translation of the message (a stalled job run again) makes the first stop.
   */
  async beginStreamedWrite(messageId: string): Promise<string> {
    const run = newId();
    await this.dataSource.transaction(async (manager) => {
      const locked = await this.lockMessage(manager, messageId);
      if (locked.delivering) {
        // Its operations may be at the platform: only beginDeliveringWrite takes it up (a run that read it before it was marked).
        throw new StreamedWriteTakenOverError(messageId);
      }
      await manager.query(`DELETE FROM operation WHERE message_id = $1`, [messageId]);
      await manager.query(`DELETE FROM payload_block WHERE message_id = $1`, [messageId]);
      await manager.query(
        `UPDATE message SET metadata = metadata || jsonb_build_object('translationRun', $2::text) WHERE id = $1`,
        [messageId, run],
      );
    });
    return run;
  }

  /**
   * Starts or takes up the streamed write of a large file delivered as it is translated, deciding
   * under the message's lock from its row as it is now (two runs may race): the first run marks the
   * message `deliveredWhileTranslating` and starts empty, as beginStreamedWrite does; a later one
   * keeps what the runs before it stored (it may be at the platform) but for the rows after
   * `operationsThrough` (refused interchanges, stored again), and goes on after the last seq kept, whose
   * target, and whether it was a refused set, it answers (the run checks its file still reads the same). Either names this run. A
   * message no longer translating (a stalled run, another one finished it) refuses it.
   */
  async beginDeliveringWrite(
    messageId: string,
  ): Promise<{ run: string; storedThrough: number; lastTarget: string | null; lastRefused: boolean }> {
    const run = newId();
    return this.dataSource.transaction(async (manager) => {
      const message = await this.lockMessage(manager, messageId);
      if (message.status !== 'translating') {
        throw new StreamedWriteTakenOverError(messageId);
      }
      const from = message.delivering ? (message.through ?? undefined) : 0;
      if (from !== undefined) {
        await manager.query(`DELETE FROM operation WHERE message_id = $1 AND seq > $2`, [messageId, from]);
        // Refused interchanges are stored as batches of their own: no block holds both.
        await manager.query(`DELETE FROM payload_block WHERE message_id = $1 AND first_seq > $2`, [messageId, from]);
      }
      const storedThrough = await lastSeqOf(manager, messageId);
      // A refused set's row is stored failed without an order key; an operation's keeps its key whatever its fate.
      const [last]: { target_id: string | null; refused: boolean }[] = await manager.query(
        `SELECT target_id, status = 'failed' AND order_key IS NULL AS refused FROM operation WHERE message_id = $1 AND seq = $2`,
        [messageId, storedThrough],
      );
      await manager.query(
        `UPDATE message SET metadata = metadata || jsonb_build_object('translationRun', $2::text, 'deliveredWhileTranslating', true)
          WHERE id = $1`,
        [messageId, run],
      );
      return { run, storedThrough, lastTarget: last?.target_id ?? null, lastRefused: last?.refused ?? false };
    });
  }

  /** Stores one batch of a streamed write; refused when another run took the message over. */
  async appendStreamed(run: string, batch: StreamedBatch): Promise<void> {
    const messageId = batch.messageId;
    const { blocks, rows } = await batch.encoded();
    const [answer]: { found: boolean; run: string | null; open: boolean }[] = isUuid(messageId)
      ? await this.dataSource.query(APPEND_STREAMED, [messageId, run, blocksJson(blocks), rows])
      : [];
    if (!answer?.found) {
      throw new AuditRecordNotFoundError('message', messageId);
    }
    // Another run took it over, or it moved on (translated by another, or given up): this one stops.
    if (answer.run !== run || !answer.open) {
      throw new StreamedWriteTakenOverError(messageId);
    }
  }

  /**
   * Ends the message's unsettled operations (an operator gave up on them): each `failed` with
   * `reason`, its open attempt closed as interrupted (and counted), in one statement. Nothing is
   * ended while any of them may still be applied by the platform: held by a live lease (a call, a
   * batch job), or claimed by a batch chunk whose attempt is still open (its platform job runs on
   * after the lease lapses, until the chunk's retry reads its result). Ended under such a write,
   * a newer one could go first and be overwritten by it. Locks the rows in id order, as the gate does.
   */
  async endUnsettled(
    messageId: string,
    reason: string,
    /** End those no call holds and leave the rest to settle (a given-up translation), instead of none. */
    sparingInFlight = false,
  ): Promise<{ ended: number; inFlight: number; inFlightUntil: Date | null }> {
    if (!isUuid(messageId)) {
      return { ended: 0, inFlight: 0, inFlightUntil: null };
    }
    const [row]: { ended: number; in_flight: number; in_flight_until: Date | null }[] = await this.dataSource.query(
      `WITH open AS (
         SELECT o.id, o.in_flight_until, o.claimed_by,
                EXISTS (SELECT 1 FROM attempt a WHERE a.operation_id = o.id AND a.outcome = 'in-flight') AS attempt_open
           FROM operation o
          WHERE o.message_id = $1 AND o.status IN ('pending', 'delivering') ORDER BY o.id FOR UPDATE OF o
       ), held AS (
         SELECT id, in_flight_until FROM open WHERE in_flight_until > now() OR (claimed_by IS NOT NULL AND attempt_open)
       ), busy AS (
         SELECT count(*)::int AS n, max(in_flight_until) FILTER (WHERE in_flight_until > now()) AS until FROM held
       ), spared AS (
         -- Sparing: a batch chunk's rows between its tries too (its platform job may still apply them).
         SELECT id FROM held UNION SELECT id FROM open WHERE $4::boolean AND claimed_by IS NOT NULL
       ), ended AS (
         UPDATE operation o SET status = 'failed', last_error = $2, error_class = 'permanent',
                next_attempt_at = NULL, in_flight_until = NULL, updated_at = now(),
                attempt_count = o.attempt_count + open.attempt_open::int
           FROM open WHERE o.id = open.id
            AND CASE WHEN $4::boolean THEN o.id NOT IN (SELECT id FROM spared) ELSE (SELECT n FROM busy) = 0 END
         RETURNING o.id
       ), closed AS (
         UPDATE attempt a SET outcome = 'interrupted', error_excerpt = $3
          WHERE a.outcome = 'in-flight' AND a.operation_id IN (SELECT id FROM ended)
       )
       SELECT (SELECT count(*)::int FROM ended) AS ended, n AS in_flight, until AS in_flight_until FROM busy`,
      [messageId, excerpt(reason), INTERRUPTED_REASON, sparingInFlight],
    );
    return { ended: row.ended, inFlight: row.in_flight, inFlightUntil: row.in_flight_until };
  }

  /** Removes the message's operations numbered `fromSeq` and later (an interchange refused at its end), or in [fromSeq, toSeq). */
  async removeSeqRange(messageId: string, fromSeq: number, toSeq?: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM operation WHERE message_id = $1 AND seq >= $2${toSeq === undefined ? '' : ' AND seq < $3'}`,
      toSeq === undefined ? [messageId, fromSeq] : [messageId, fromSeq, toSeq],
    );
    // Blocks only ever start at a batch's first seq: those from fromSeq on hold nothing else. A range
    // in the middle leaves its lines in blocks that also hold operations kept (unread, small).
    if (toSeq === undefined) {
      await this.dataSource.query(`DELETE FROM payload_block WHERE message_id = $1 AND first_seq >= $2`, [
        messageId,
        fromSeq,
      ]);
    }
  }

  /**
   * Within one message, a later document upsert or delete of the same document makes earlier ones
   * moot (dropSupersededWrites, done in the database for a message stored batch by batch): removes
   * them and says which.
   */
  async removeSupersededWrites(messageId: string): Promise<string[]> {
    const rows: { seq: number; target_id: string; by: number }[] = await this.dataSource.query(
      `WITH moot AS (
         SELECT id, seq, target_id, max(seq) OVER (PARTITION BY organisation_id, target_id) AS by
         FROM operation
         WHERE message_id = $1 AND status = 'pending' AND kind IN ('document.upsert', 'document.delete')
           AND target_id IS NOT NULL
       ), removed AS (
         DELETE FROM operation WHERE id IN (SELECT id FROM moot WHERE by > seq) RETURNING id
       )
       SELECT seq, target_id, by FROM moot WHERE by > seq ORDER BY seq`,
      [messageId],
    );
    return rows.map(
      (r) => `operation ${r.seq} (document ${r.target_id}) is superseded by operation ${r.by} of the same message`,
    );
  }

  private async lockMessage(manager: EntityManager, messageId: string): Promise<LockedMessage> {
    const [locked]: LockedMessage[] = isUuid(messageId)
      ? await manager.query(
          `SELECT ${orderArrivalOf('m')} AS order_arrival, m.metadata->>'translationRun' AS run, m.status,
                  coalesce((m.metadata->>'deliveredWhileTranslating')::boolean, false) AS delivering,
                  (m.metadata->>'operationsThrough')::int AS through
           FROM message m WHERE m.id = $1 FOR UPDATE`,
          [messageId],
        )
      : [];
    if (!locked) {
      throw new AuditRecordNotFoundError('message', messageId);
    }
    return locked;
  }

  async findById(id: string): Promise<DocumentOperation | null> {
    if (!isUuid(id)) {
      return null;
    }
    const found = await this.dataSource.manager.findOneBy(DocumentOperation, { id });
    return found && (await attachPayloads(this.dataSource.manager, [found]))[0];
  }

  /** A message's operations in order. */
  async listByMessage(messageId: string): Promise<DocumentOperation[]> {
    if (!isUuid(messageId)) {
      return [];
    }
    return this.listWith(this.dataSource.manager, messageId);
  }

  /**
   * The payloads of the message's failed operations to retry (a refused EDI set's row has no
   * operation: left out), as the text of one JSON array, read a page of blocks at a time and never
   * parsed whole; or, once what it has read weighs parsed (parsedWeightOf) more than `maxWeight`,
   * `over` with how many failed, and nothing more is read.
   */
  async failedOperationsJson(
    messageId: string,
    maxWeight: number,
  ): Promise<{ json: string; count: number } | { over: true; failed: number }> {
    if (!isUuid(messageId)) {
      return { json: '[]', count: 0 };
    }
    const seqs = (
      await this.rows<{ seq: number }>(
        `SELECT seq FROM operation WHERE message_id = $1 AND status = 'failed' ORDER BY seq`,
        [messageId],
      )
    ).map((row) => row.seq);
    const pages: string[] = [];
    let count = 0;
    let weight = 0;
    for (let from = 0; from < seqs.length; from += FAILED_PAGE) {
      const page = seqs.slice(from, from + FAILED_PAGE);
      const lines = await payloadTexts(
        this.dataSource.manager,
        page.map((seq) => ({ messageId, seq })),
      );
      const texts: string[] = [];
      for (const seq of page) {
        const line = lines.get(`${messageId}:${seq}`);
        const payload = line === undefined ? undefined : jsonOfLine(line);
        if (line !== undefined && payload && !payload.rest.refused) {
          weight += parsedWeightOf(line);
          if (weight > maxWeight) {
            return { over: true, failed: seqs.length };
          }
          texts.push(payload.json);
        }
      }
      count += texts.length;
      // Joined a page at a time: a new string, where the texts are slices that keep their blocks alive
      // (a join of one gives that one back: copied).
      if (texts.length > 0) {
        pages.push(texts.length === 1 ? Buffer.from(texts[0]).toString() : texts.join(','));
      }
    }
    return { json: `[${pages.join(',')}]`, count };
  }

  /**
   * Claims operations for delivery, in arrival order per target and newest write winning (GATE):
   * each comes back `go` (claimed, `delivering`, a call may be made until `leaseMs` from now),
   * `wait`, `superseded` (settled without a call), `settled` or `missing`.
   */
  async gate(ids: readonly string[], leaseMs: number): Promise<GateVerdict[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 1 && ids.length === 1) {
      const [alone] = await queryPrepared<{ message_id: string; seq: number }>(this.dataSource, GATE_ALONE, [
        valid[0],
        Math.round(leaseMs),
        OWN_JOB,
      ]);
      if (alone) {
        const payloads = await payloadsAt(this.dataSource.manager, [{ messageId: alone.message_id, seq: alone.seq }]);
        return [{ id: valid[0], verdict: 'go', messageId: alone.message_id, payload: payloads[0] }];
      }
    }
    const found = valid.length === 0 ? [] : await this.runGate(valid, leaseMs, OWN_JOB);
    const claimed = found.filter((row) => row.verdict === 'go');
    const payloads = await payloadsAt(
      this.dataSource.manager,
      claimed.map((row) => ({ messageId: row.message_id, seq: row.seq! })),
    );
    const byId = new Map(found.map((row) => [row.id, row]));
    const payloadOf = new Map(claimed.map((row, i) => [row.id, payloads[i]]));
    return ids.map((id): GateVerdict => {
      const row = byId.get(id);
      if (row?.verdict === 'go') {
        return { id, verdict: 'go', messageId: row.message_id, payload: payloadOf.get(id)! };
      }
      return verdictOf(id, row);
    });
  }

  /**
   * Whether the message's writes are behind an untranslated message of its partner (behindUntranslated):
   * they all wait. It stays true until that message is translated and then never holds again (a message
   * recorded later comes after), so a batch chunk asks once, before its gate, and waits whole.
   */
  async behindUntranslated(messageId: string): Promise<boolean> {
    if (!isUuid(messageId)) {
      return false;
    }
    const [row] = await this.rows<{ behind: boolean }>(
      `SELECT ${behindUntranslated('m.id', orderArrivalOf('m'))} AS behind
         FROM message m WHERE m.id = $1`,
      [messageId],
    );
    return row?.behind ?? false;
  }

  /**
   * What delivering the operation takes of a worker's payload budget (payload_weight, measured when it
   * was stored): asked before its claim. Null when not known (a row stored before it was measured);
   * 0 for no such operation (its gate says so).
   */
  async payloadWeightOf(id: string): Promise<number | null> {
    if (!isUuid(id)) {
      return 0;
    }
    const [row] = await this.rows<{ weight: number | null }>(
      `SELECT payload_weight AS weight FROM operation WHERE id = $1`,
      [id],
    );
    return row ? row.weight : 0;
  }

  /**
   * gate() for the operations of a batch chunk, without their payloads, claimed for the chunk's job
   * (`chunk`: the chunk's key, its first operation's id): those alone on their targets are claimed
   * first (GATE_ALONE_MANY), the rest judged by GATE, as gate() does one. The caller has found the
   * chunk's message not behindUntranslated (DeliverBatch asks before it gates).
   */
  async gateChunk(ids: readonly string[], leaseMs: number, chunk: string): Promise<ChunkVerdict[]> {
    if (!isUuid(chunk)) {
      throw new TypeError(`a batch chunk is named by an operation id, not ${JSON.stringify(chunk)}`);
    }
    const valid = ids.filter(isUuid);
    const claimed =
      valid.length === 0
        ? []
        : await queryPrepared<{ id: string; message_id: string }>(this.dataSource, GATE_ALONE_MANY, [
            valid,
            Math.round(leaseMs),
            chunk,
          ]);
    const alone = new Set(claimed.map((row) => row.id));
    const rest = valid.filter((id) => !alone.has(id));
    const judged = rest.length === 0 ? [] : await this.runGate(rest, leaseMs, chunk);
    const byId = new Map<string, GateRow>([
      ...claimed.map((row): [string, GateRow] => [
        row.id,
        { id: row.id, verdict: 'go', newer_delivered: null, message_id: row.message_id, seq: null },
      ]),
      ...judged.map((row): [string, GateRow] => [row.id, row]),
    ]);
    return ids.map((id): ChunkVerdict => {
      const row = byId.get(id);
      return row?.verdict === 'go' ? { id, verdict: 'go', messageId: row.message_id } : verdictOf(id, row);
    });
  }

  private runGate(ids: readonly string[], leaseMs: number, claimant: string | null): Promise<GateRow[]> {
    return queryPrepared<GateRow>(this.dataSource, GATE, [ids, Math.round(leaseMs), SUPERSEDABLE_KINDS, claimant]);
  }

  /**
   * Keeps the claims `chunk` holds on these operations for `leaseMs` more (a batch polling the
   * platform job it submitted: the job may still apply them). Claims another job took are left alone.
   */
  async extendClaims(ids: readonly string[], leaseMs: number, chunk: string): Promise<void> {
    const valid = ids.filter(isUuid);
    if (valid.length > 0 && isUuid(chunk)) {
      await this.rows(
        `UPDATE operation SET in_flight_until = now() + $2::int * interval '1 millisecond'
          WHERE id = ANY($1::uuid[]) AND claimed_by = $3::uuid AND status = 'delivering'`,
        [valid, Math.round(leaseMs), chunk],
      );
    }
  }

  /**
   * Gives a claimed operation's target back without a call (its delivery paused): other writes to the
   * target need not wait for its lease, and the attempt opened for the call that was not made goes.
   * `retryAt`: when it is tried next (shown as `retrying`).
   */
  async releaseClaim(id: string, retryAt?: { at: Date; reason: string }): Promise<void> {
    if (!isUuid(id)) {
      return;
    }
    await this.rows(
      `WITH released AS (
         UPDATE operation SET in_flight_until = NULL,
           next_attempt_at = COALESCE($2::timestamptz, next_attempt_at),
           last_error = COALESCE($3::text, last_error),
           error_class = CASE WHEN $3::text IS NULL THEN error_class ELSE 'retryable' END
          WHERE id = $1
       )
       DELETE FROM attempt WHERE operation_id = $1 AND outcome = 'in-flight'`,
      [id, retryAt?.at ?? null, retryAt ? excerpt(retryAt.reason) : null],
    );
  }

  /** The operation's final outcome. */
  async settle(id: string, settlement: OperationSettlement): Promise<DocumentOperation> {
    return this.update(id, { ...settled(settlement), status: settlement.status });
  }

  /**
   * Appends an attempt and counts it on the operation, and settles the operation when a settlement
   * is given, in one statement (atomic; concurrent attempts are all counted: the row is locked).
   * Without one, `retry` says when the next try is due and why (the operation shows `retrying`).
   */
  async recordAttempt(
    operationId: string,
    attempt: NewDeliveryAttempt,
    settlement?: OperationSettlement,
    retry?: { at: Date; error: string },
  ): Promise<DeliveryAttempt> {
    if (!isUuid(operationId)) {
      throw new AuditRecordNotFoundError('operation', operationId);
    }
    const row = this.attemptRow(operationId, attempt);
    const outcome =
      settlement || !retry
        ? settled(settlement)
        : { status: null, lastError: excerpt(retry.error), errorClass: 'retryable' as const };
    // The attempt opened when the operation was claimed is finished; without one (an operation never
    // claimed through the gate) the attempt is added.
    const [found] = await this.rows<{ found: number }>(
      `WITH counted AS (
         UPDATE operation SET
           attempt_count = attempt_count + 1,
           status = COALESCE($9::text, status),
           last_error = CASE WHEN $9::text IS NULL AND $12::timestamptz IS NULL THEN last_error ELSE $10::text END,
           error_class = CASE WHEN $9::text IS NULL AND $12::timestamptz IS NULL THEN error_class ELSE $11::text END,
           next_attempt_at = $12::timestamptz,
           in_flight_until = NULL,
           updated_at = now()
         WHERE id = $2 RETURNING id
       ), open AS (
         SELECT a.id FROM attempt a WHERE a.operation_id = $2 AND a.outcome = 'in-flight' ORDER BY a.started_at DESC LIMIT 1
       ), finished AS (
         UPDATE attempt a SET started_at = $3::timestamptz, duration_ms = $4::int, http_status = $5::int, outcome = $6::text, error_excerpt = $7::text, request_summary = $8::text
           FROM open WHERE a.id = open.id
       ), added AS (
         INSERT INTO attempt (id, operation_id, started_at, duration_ms, http_status, outcome, error_excerpt, request_summary)
         SELECT $1::uuid, id, $3::timestamptz, $4::int, $5::int, $6::text, $7::text, $8::text FROM counted WHERE NOT EXISTS (SELECT 1 FROM open)
       )
       SELECT count(*)::int AS found FROM counted`,
      [
        row.id,
        operationId,
        row.startedAt,
        row.durationMs,
        row.httpStatus,
        row.outcome,
        row.errorExcerpt,
        row.requestSummary,
        outcome.status,
        outcome.lastError,
        outcome.errorClass,
        settlement ? null : (retry?.at ?? null),
      ],
    );
    if (found.found === 0) {
      throw new AuditRecordNotFoundError('operation', operationId);
    }
    return this.dataSource.manager.create(DeliveryAttempt, row);
  }

  /** What the platform created for an operation (a new booking's id), so searches by id find it. */
  async setTarget(id: string, targetId: string): Promise<void> {
    if (isUuid(id)) {
      await this.dataSource.manager.update(DocumentOperation, { id }, { targetId });
    }
  }

  /**
   * A message's operations as planning reads them (no payloads), in message order, `pageSize` rows
   * a query: a message of 200,000 operations is planned without ever holding its rows at once.
   * Settled ones included: they place a group's chunks (DeliveryPlanner).
   */
  async *planEntryPages(messageId: string, pageSize = PLAN_PAGE_ROWS): AsyncGenerator<PlanEntry[]> {
    if (!isUuid(messageId)) {
      return;
    }
    const last = await lastSeqOf(this.dataSource.manager, messageId);
    // A window of seqs, not `seq > after LIMIT n` (see seqWindow).
    for (let after = 0; after < last; after += pageSize) {
      const rows: PlanEntry[] = await this.dataSource.query(PLAN_PAGE, [messageId, after, pageSize]);
      if (rows.length > 0) {
        yield rows;
      }
    }
  }

  /**
   * What a batch job reads of its operations before it sends them: status, the body bytes of each
   * (its document or id as JSON) and the reference options, in message order, never the payloads.
   */
  async batchEntriesOf(ids: readonly string[]): Promise<BatchEntry[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) {
      return [];
    }
    // A page at a time: the driver parses a query's rows in one go, and 25,000 of them held the
    // worker's event loop ~100 ms (bench/README.md). Each page comes sorted: pages of ids in order
    // (a chunk's are) follow each other in order, and the whole is sorted only when they do not.
    const rows: (BatchEntry & { messageId: string; seq: number })[] = [];
    let inOrder = true;
    for (let from = 0; from < valid.length; from += ENTRY_PAGE_ROWS) {
      const page: (BatchEntry & { messageId: string; seq: number })[] = await this.dataSource.query(
        `SELECT id, status, target_id AS "targetId", body_bytes AS bytes, options, message_id AS "messageId", seq
           FROM operation WHERE id = ANY($1::uuid[]) ORDER BY message_id, seq`,
        [valid.slice(from, from + ENTRY_PAGE_ROWS)],
      );
      if (rows.length > 0 && page.length > 0 && byMessageAndSeq(rows[rows.length - 1], page[0]) > 0) {
        inOrder = false;
      }
      for (const row of page) {
        rows.push(row);
      }
    }
    if (!inOrder) {
      rows.sort(byMessageAndSeq);
    }
    // Spelled out: an object rest takes V8's slow path, 25,000 times here.
    return rows.map((row) => ({
      id: row.id,
      status: row.status,
      targetId: row.targetId,
      bytes: row.bytes,
      options: row.options,
    }));
  }

  /**
   * The JSON text of each operation's `field` (`document` of an upsert, `documentId` of a delete), in
   * the order of `ids`, read `pageSize` rows at a time: a batch body built without holding it.
   */
  async *jsonOf(ids: readonly string[], field: 'document' | 'documentId', pageSize = 1000): AsyncGenerator<string> {
    for (let start = 0; start < ids.length; start += pageSize) {
      const page = ids.slice(start, start + pageSize);
      const rows: { id: string; message_id: string; seq: number }[] = await this.dataSource.query(
        `SELECT id, message_id, seq FROM operation WHERE id = ANY($1::uuid[])`,
        [page],
      );
      const lines = await payloadTexts(
        this.dataSource.manager,
        rows.map((row) => ({ messageId: row.message_id, seq: row.seq })),
      );
      const byId = new Map(
        rows.map((row) => {
          const line = lines.get(`${row.message_id}:${row.seq}`);
          const body = line === undefined ? 'null' : bodyOfLine(line, field);
          // A document id is a few bytes of a line that may share its block with a large document: a
          // slice of it would keep that block's whole text alive while the batch is sent.
          return [row.id, field === 'documentId' ? Buffer.from(body).toString() : body];
        }),
      );
      for (const id of page) {
        yield byId.get(id) ?? 'null';
      }
    }
  }

  async findByIds(ids: readonly string[]): Promise<DocumentOperation[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) {
      return [];
    }
    const found = await this.dataSource.manager
      .createQueryBuilder(DocumentOperation, 'o')
      .where('o.id = ANY(CAST(:ids AS uuid[]))', { ids: valid })
      .orderBy('o.seq', 'ASC')
      .getMany();
    return attachPayloads(this.dataSource.manager, found);
  }

  /**
   * Appends one attempt to each operation and counts it, and settles the operations whose record
   * carries a settlement, in one transaction (atomic, whatever the number of attempts): the rows go
   * in as parallel arrays through `unnest`, RECORD_CHUNK a statement, so that building and sending
   * a batch job's 25,000 records never holds the event loop at once (one statement took ~460 ms).
   * An operation appears at most once per call. `holdMs`: the calls may still be applied (a platform
   * job submitted and not finished), so the claims of the operations left unsettled are kept that
   * much longer (only their job may take them again) instead of given back.
   */
  async recordAttempts(attempts: readonly AttemptRecord[], holdMs?: number): Promise<void> {
    if (attempts.length === 0) {
      return;
    }
    const record = (manager: EntityManager, chunk: readonly AttemptRecord[]) => {
      // Checked a chunk at a time too (a throw rolls back the chunks before): 25,000 at once held the loop.
      const missing = chunk.find((a) => !isUuid(a.operationId));
      if (missing) {
        throw new AuditRecordNotFoundError('operation', missing.operationId);
      }
      const records = chunk.map((a) => ({ ...this.attemptRow(a.operationId, a), ...settled(a.settlement) }));
      const column = <K extends keyof (typeof records)[number]>(key: K) => records.map((one) => one[key]);
      return manager.query(RECORD_ATTEMPTS, [
        ...ATTEMPT_COLUMNS.map(column),
        holdMs === undefined ? null : Math.round(holdMs),
      ]);
    };
    // An unknown operation id fails its statement (attempt_operation_id_fkey), and the transaction with it.
    await this.dataSource.transaction(async (manager) => {
      for (let from = 0; from < attempts.length; from += RECORD_CHUNK) {
        await record(manager, attempts.slice(from, from + RECORD_CHUNK));
      }
    });
  }

  /** Whether any of the message's operations is still to be delivered (cheap check before settling the message). */
  async hasUnsettled(messageId: string): Promise<boolean> {
    if (!isUuid(messageId)) {
      return false;
    }
    // The message's rows by message_id: status has no index (rows are updated in place).
    const [row] = await this.rows<{ unsettled: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM operation WHERE message_id = $1 AND status NOT IN ('delivered', 'failed', 'skipped', 'superseded')) AS unsettled`,
      [messageId],
    );
    return row.unsettled;
  }

  /** How many of the message's operations are in each status (every status present, 0 when none). */
  async statusCounts(messageId: string): Promise<OperationStatusCounts> {
    const counts = Object.fromEntries(OPERATION_STATUSES.map((s) => [s, 0])) as OperationStatusCounts;
    if (!isUuid(messageId)) {
      return counts;
    }
    const rows: { status: OperationStatus; count: number }[] = await this.dataSource.manager
      .createQueryBuilder(DocumentOperation, 'o')
      .select('o.status', 'status')
      .addSelect('count(*)::int', 'count')
      .where('o.message_id = :messageId', { messageId })
      .groupBy('o.status')
      .getRawMany();
    for (const row of rows) {
      counts[row.status] = Number(row.count);
    }
    return counts;
  }

  /** An attempt row as stored: a new id, whole milliseconds, texts cut to excerpts. */
  private attemptRow(operationId: string, attempt: NewDeliveryAttempt) {
    return {
      id: newId(),
      operationId,
      startedAt: attempt.startedAt,
      durationMs: Math.round(attempt.durationMs),
      httpStatus: attempt.httpStatus ?? null,
      outcome: attempt.outcome,
      errorExcerpt: excerpt(attempt.error),
      requestSummary: excerpt(attempt.requestSummary),
    };
  }

  /** Rows of a raw statement (RETURNING included), whatever its command. */
  private async rows<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return (await runner.query(sql, parameters, true)).records as T[];
    } finally {
      await runner.release();
    }
  }

  private async listWith(manager: EntityManager, messageId: string): Promise<DocumentOperation[]> {
    return attachPayloads(
      manager,
      await manager.find(DocumentOperation, { where: { messageId }, order: { seq: 'ASC' } }),
    );
  }

  private async update(id: string, changes: QueryDeepPartialEntity<DocumentOperation>): Promise<DocumentOperation> {
    if (isUuid(id)) {
      await this.dataSource.manager.update(DocumentOperation, { id }, changes);
      const operation = await this.findById(id);
      if (operation) {
        return operation;
      }
    }
    throw new AuditRecordNotFoundError('operation', id);
  }
}
