import { hash } from 'node:crypto';
import { DataSource, EntityManager, FindOptionsSelect, SelectQueryBuilder } from 'typeorm';
import { AuditRecordNotFoundError, isUuid } from './audit.errors';
import { Actor, MESSAGE_STATUSES, MessageChannel, MessageStatus, OperationStatus } from './audit.types';
import { deriveMessageStatus } from './derive-message-status';
import { excerpt } from './excerpt';
import { DeliveryAttempt, DocumentOperation, Message, MessageEvent, MessageMetadata, MessageSummary } from './entities';
import { NamedStatement, queryPrepared } from './prepared';
import { assertStorablePayload, storableText } from './storable-text';
import { newId } from './new-id';
import { attachPayloads } from './payload-blocks';
import { lastSeqOf, seqWindow } from './seq-window';

export interface NewMessage {
  partnerId: string;
  channel: MessageChannel;
  /** The payload as received (EDI or JSON text); its SHA-256 is computed here. Empty when it is stored as a file (`metadata.payloadFile`). */
  rawPayload: string;
  /** Hex SHA-256 of the payload's bytes when they are not `rawPayload` (a payload stored as a file). */
  sha256?: string;
  contentType: string;
  metadata?: MessageMetadata;
  replayOf?: string | null;
  /** When the bytes arrived; the database clock when not given. */
  receivedAt?: Date;
  /** Recorded already settled (a refused webhook is `rejected`, a repeat `duplicate`); default `received`. */
  status?: 'received' | 'rejected' | 'duplicate';
  statusReason?: string | null;
  actor?: Actor;
}

export interface MessageFilter {
  status?: MessageStatus | readonly MessageStatus[];
  partnerId?: string;
  channel?: MessageChannel | readonly MessageChannel[];
  /** received_at >= from */
  from?: Date;
  /** received_at < to */
  to?: Date;
  /** Messages with an operation on this document or booking id. */
  documentId?: string;
  /** Messages of a named file (`metadata.fileName`, exact): SFTP uploads, HTTP uploads that gave a name, export files. */
  fileName?: string;
  /**
   * EDI messages carrying an interchange with this control number (ISA13; `metadata.interchanges`,
   * written by translation, refused interchanges included). A number shorter than ISA13's nine
   * digits is padded with zeros: `123` finds `000000123`.
   */
  interchange?: string;
  /** Words in the message's reason (`status_reason`: why it failed or was rejected), case-insensitive. */
  text?: string;
}

export interface MessageSearch extends MessageFilter {
  /** 1..500, default 50. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string | null;
  /** Oldest first (bulk replay: replays recorded in their originals' order); newest first when not. */
  oldestFirst?: boolean;
}

export interface MessagePage {
  items: MessageSummary[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface OperationDetail extends DocumentOperation {
  attempts: DeliveryAttempt[];
}

/** A page of a message's operations: those after `after` (a seq), at most `limit`. */
export interface OperationPage {
  limit: number;
  after?: number;
}

/** Every operation of a message counted, whatever page is shown. */
export interface OperationCounts {
  total: number;
  byStatus: Partial<Record<OperationStatus, number>>;
  attempts: number;
}

/**
 * What a detail reads. `partnerId`: only a message of that partner is found. `statusOnly`: the page's
 * operations without their payloads or attempts, and no events (what a partner's status shows: a page
 * of 1,000 payloads parsed was ~100 MB of a gateway's heap for a view that shows none of them).
 */
export interface DetailScope {
  partnerId?: string;
  statusOnly?: boolean;
}

export interface MessageDetail {
  /** The message without its payload (`payloadHead` reads the beginning of it). */
  message: MessageSummary;
  /** One page, in order, each with its attempts. */
  operations: OperationDetail[];
  /** The seq to pass as `after` for the next page; null on the last. */
  nextAfter: number | null;
  counts: OperationCounts;
  events: MessageEvent[];
}

/**
 * Operations a detail page holds when not told (what the console opens), and at most. 200 took the
 * gateway 2-4 times longer than 50 to answer (~1 MB against ~450 KB of 40-load documents;
 * bench/README.md), past 200 ms while the machine was busy delivering.
 */
export const DETAIL_OPERATIONS_DEFAULT = 50;
export const DETAIL_OPERATIONS_MAX = 1000;
/** Operations of a detail page read per statement (operationPage). */
export const DETAIL_READ_SLICE = 50;
/** Seqs a statement of operationPage looks through for its slice (gaps included): at most this many rows read. */
const DETAIL_SEQ_WINDOW = 5000;

export interface StuckQuery {
  /** Messages whose status has not changed since before this time. */
  olderThan: Date;
  statuses: readonly MessageStatus[];
  /** Only messages of this channel, or all but this channel's. */
  channel?: { only: MessageChannel } | { except: MessageChannel };
  /** Only messages marked so in their metadata: `abandoning`, a given-up translation not cleaned up yet. */
  marked?: 'abandoning';
  /** Default 100. */
  limit?: number;
  /** The next page: messages after this id (ids are time-ordered; a message that moves on during paging is never met twice). */
  after?: string;
}

export const SEARCH_MAX_LIMIT = 500;

/**
 * Why a message failed, for lists and searches: how many operations failed, and the first one's
 * error (each operation keeps its own). Null when none failed.
 */
function failureSummary(
  present: { status: OperationStatus; count: number }[],
  firstError: string | null,
): string | null {
  const failed = present.find((row) => row.status === 'failed')?.count ?? 0;
  const total = present.reduce((sum, row) => sum + row.count, 0);
  return excerpt(
    `${failed} of ${total} operation${total === 1 ? '' : 's'} failed; first: ${firstError ?? 'no error recorded'}`,
  );
}

/**
 * Statuses delivery outcomes never change: translation decided them, or has not finished (a large
 * file's first documents are delivered while it is translated: settled, they are not the message).
 */
const UNSETTLED_BY_DELIVERY: readonly MessageStatus[] = ['rejected', 'duplicate', 'translating'];

/** Statuses a message ends in: nothing more happens to it unless someone replays it. */
export const SETTLED_STATUSES: readonly MessageStatus[] = [
  'delivered',
  'partially_failed',
  'failed',
  'rejected',
  'duplicate',
  'superseded',
];

/** Told of each message that has just settled (its new status), e.g. to count it. */
export type SettledListener = (message: Pick<MessageSummary, 'partnerId' | 'channel' | 'status'>) => void;

/** Every property but the payload (which may be megabytes), for lists and status changes. */
const SUMMARY_PROPERTIES = [
  'id',
  'partnerId',
  'channel',
  'contentType',
  'sha256',
  'status',
  'statusReason',
  'replayOf',
  'receivedAt',
  'updatedAt',
  'metadata',
] as const;
const SUMMARY_COLUMNS = SUMMARY_PROPERTIES.map((property) => `m.${property}`);
/** Interchanges a message read for display lists (a file may carry thousands); `interchangeCount` counts them all. */
export const LISTED_INTERCHANGES = 100;
/** The metadata of a message for display: its interchanges cut to the first LISTED_INTERCHANGES, all counted. */
const DISPLAYED_METADATA = `CASE
  WHEN jsonb_typeof(m.metadata->'interchanges') IS DISTINCT FROM 'array' THEN m.metadata
  WHEN jsonb_array_length(m.metadata->'interchanges') > ${LISTED_INTERCHANGES} THEN m.metadata || jsonb_build_object(
    'interchanges', jsonb_path_query_array(m.metadata->'interchanges', '$[0 to ${LISTED_INTERCHANGES - 1}]'),
    'interchangeCount', jsonb_array_length(m.metadata->'interchanges'))
  ELSE m.metadata END`;
const DISPLAY_COLUMNS = SUMMARY_COLUMNS.filter((column) => column !== 'm.metadata');
const SUMMARY_SELECT = Object.fromEntries(
  SUMMARY_PROPERTIES.map((property) => [property, true]),
) as FindOptionsSelect<Message>;

/** Longest idempotency key stored as sent; a longer one is stored as its SHA-256 (index entries are bounded). */
const MAX_KEY_CHARS = 500;

/** An idempotency key as stored: well-formed text without NUL, at most MAX_KEY_CHARS. */
export function storableKey(key: string): string {
  const text = storableText(key);
  return text.length <= MAX_KEY_CHARS ? text : `sha256:${hash('sha256', text, 'hex')}`;
}

type MessageRow = ReturnType<typeof messageRow>;

/**
 * A message as the one INSERT takes it (column names; `n` keeps the entries' order). Only what
 * the caller controls is made storable here; a payload with NUL is refused (it would be mangled).
 */
function messageRow(message: NewMessage, idempotencyKey: string | undefined, n: number) {
  assertStorablePayload(message.rawPayload);
  const key = idempotencyKey === undefined ? null : storableKey(idempotencyKey);
  const payload = storableText(message.rawPayload);
  return {
    n,
    id: newId(),
    event_id: newId(),
    partner_id: message.partnerId,
    idempotency_key: key,
    channel: message.channel,
    raw_payload: payload,
    content_type: message.contentType,
    sha256: message.sha256 ?? hash('sha256', payload, 'hex'),
    status: message.status ?? 'received',
    status_reason: message.statusReason ?? null,
    replay_of: message.replayOf ?? null,
    received_at: message.receivedAt?.toISOString() ?? null,
    metadata: key !== null ? { ...message.metadata, idempotencyKey: key } : (message.metadata ?? {}),
    actor: message.actor ?? 'gateway',
  };
}

/**
 * The one INSERT of messages (see `insertRows`); $1 is the rows as JSON, $2 the payload of a lone row
 * (null when the rows carry theirs), `returning` columns of `m`.
 */
const insertMessages = (returning: string) => `
  WITH input AS (
    SELECT t.*, nextval('message_arrival_seq') AS arrival
    FROM json_to_recordset($1::json) AS t(n int, id uuid, event_id uuid, partner_id text, idempotency_key text,
      channel text, raw_payload text, content_type text, sha256 text, status text, status_reason text, replay_of uuid,
      received_at timestamptz, metadata jsonb, actor text)
  ), m AS (
    INSERT INTO message (id, partner_id, idempotency_key, channel, raw_payload, content_type, sha256, status, status_reason, replay_of,
                         received_at, updated_at, metadata, arrival)
    SELECT id, partner_id, idempotency_key, channel, coalesce(raw_payload, $2::text), content_type, sha256, status, status_reason, replay_of,
           coalesce(received_at, now()), now(), metadata, arrival
    FROM input ORDER BY partner_id, idempotency_key, n
    ON CONFLICT (partner_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING id, received_at, updated_at
  ), e AS (
    INSERT INTO message_event (id, message_id, from_status, to_status, actor, reason)
    SELECT i.event_id, i.id, NULL, i.status, i.actor, i.status_reason FROM input i JOIN m ON m.id = i.id
  )
  SELECT ${returning} FROM m`;
/**
 * The INSERT's parameters: the rows as JSON, and a lone row's payload as it is (a large message is
 * alone in its commit): JSON-escaped and parsed back by Postgres, a 14.4 MiB one held the gateway's
 * event loop ~100 ms and cost ~0.4 s of its 202 (bench/README.md).
 */
function insertParameters(rows: MessageRow[]): [string, string | null] {
  if (rows.length === 1) {
    const { raw_payload: payload, ...row } = rows[0];
    return [JSON.stringify([row]), payload];
  }
  return [JSON.stringify(rows), null];
}

/** Named statements (prepared once per connection); group commits need only the ids back. */
const INSERT_MESSAGES = {
  ids: { name: 'dockbridge_insert_messages', text: insertMessages('id') },
  withTimes: { name: 'dockbridge_insert_messages_with_times', text: insertMessages('id, received_at, updated_at') },
};

/** What `recordMany` did with one entry: recorded it, or found the earlier message holding its idempotency key. */
export interface RecordedMessage {
  id: string;
  existing: boolean;
  /** A repeat only: whether the earlier message's payload is the same (by SHA-256). */
  samePayload?: boolean;
}

/** Messages and their lifecycle events in the audit store. */
export class MessageRepository {
  private readonly settledListeners: SettledListener[] = [];

  constructor(private readonly dataSource: DataSource) {}

  /** Calls `listener` each time this process moves a message into a settled status. */
  onSettled(listener: SettledListener): void {
    this.settledListeners.push(listener);
  }

  /** Stores a message (`received` unless told otherwise) with its first event, in one statement. */
  async record(input: NewMessage): Promise<Message> {
    const row = messageRow(input, undefined, 0);
    const [inserted] = await this.insertRows<{ id: string; received_at: Date; updated_at: Date }>(
      [row],
      INSERT_MESSAGES.withTimes,
    );
    return this.dataSource.manager.create(Message, {
      id: row.id,
      partnerId: row.partner_id,
      channel: row.channel,
      rawPayload: row.raw_payload,
      contentType: row.content_type,
      sha256: row.sha256,
      status: row.status,
      statusReason: row.status_reason,
      replayOf: row.replay_of,
      metadata: row.metadata,
      receivedAt: inserted.received_at,
      updatedAt: inserted.updated_at,
    });
  }

  /** Stores a message with its first event inside the caller's transaction (a file and the message it became commit together); returns its id. */
  async recordIn(manager: EntityManager, input: NewMessage): Promise<string> {
    const row = messageRow(input, undefined, 0);
    await manager.query(INSERT_MESSAGES.ids.text, insertParameters([row]));
    return row.id;
  }

  /**
   * Records many messages in one statement (one commit: the group commit of ingress). An entry with
   * an idempotency key is recorded only if the partner has not sent that key before (in this batch
   * or earlier); otherwise nothing is written for it and the earlier message's id comes back with
   * `existing: true`. Results are in the order of the entries.
   */
  async recordMany(
    entries: readonly { message: NewMessage; idempotencyKey?: string }[],
  ): Promise<(RecordedMessage | Error)[]> {
    if (entries.length === 0) {
      return [];
    }
    const rows = entries.map(({ message, idempotencyKey }, n) => messageRow(message, idempotencyKey, n));
    const recorded = new Set((await this.insertRows<{ id: string }>(rows, INSERT_MESSAGES.ids)).map((row) => row.id));
    // Committed from here on: a failure below concerns only the repeats, never the recorded ones.
    const repeats = rows.filter((row) => !recorded.has(row.id));
    const earlier = new Map<string, { id: string; sha256: string }>();
    let lookupFailed: Error | undefined;
    if (repeats.length > 0) {
      // A key taken before (or by an earlier entry of this batch, or by a batch that committed after
      // this statement's snapshot): read who holds it now that the statement has committed.
      try {
        const holders: { partner_id: string; idempotency_key: string; message_id: string; sha256: string }[] =
          await this.dataSource.query(
            `SELECT partner_id, idempotency_key, id AS message_id, sha256 FROM message
           WHERE idempotency_key IS NOT NULL AND (partner_id, idempotency_key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
            [repeats.map((row) => row.partner_id), repeats.map((row) => row.idempotency_key)],
          );
        for (const holder of holders) {
          earlier.set(JSON.stringify([holder.partner_id, holder.idempotency_key]), {
            id: holder.message_id,
            sha256: holder.sha256,
          });
        }
      } catch (error) {
        lookupFailed = error as Error;
      }
    }
    return rows.map((row) => {
      if (recorded.has(row.id)) {
        return { id: row.id, existing: false };
      }
      const holder = earlier.get(JSON.stringify([row.partner_id, row.idempotency_key]));
      return holder
        ? { id: holder.id, existing: true, samePayload: holder.sha256 === row.sha256 }
        : (lookupFailed ?? new Error(`the message holding idempotency key ${row.idempotency_key} was not found`));
    });
  }

  /**
   * The one INSERT of messages: inserts the messages whose idempotency key is free (or that have
   * none), each with its first event; returns those inserted. The rows travel as one JSON parameter
   * (no per-row placeholders, no array escaping). Each row takes its `arrival` number in entry
   * order (booking changes are delivered in that order), then rows are inserted in key order, so two
   * concurrent batches never wait on each other's keys in a cycle; within a batch the first entry
   * with a key wins. The database clock stamps received_at/updated_at; the statement names what
   * comes back (ids, or ids and times), never a payload.
   */
  private insertRows<Row>(rows: MessageRow[], statement: NamedStatement): Promise<Row[]> {
    return queryPrepared<Row>(this.dataSource, statement, insertParameters(rows));
  }

  /**
   * Deletes up to `limit` messages in `statuses` that have not changed since `settledBefore`, with
   * their operations and attempts (foreign keys cascade), events and idempotency keys; replays and
   * partner files keep a null link. Oldest first; returns how many were deleted.
   */
  async purgeSettled(statuses: readonly MessageStatus[], settledBefore: Date, limit: number): Promise<number> {
    const [{ count }]: { count: number }[] = await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM message WHERE id IN (
           SELECT id FROM message WHERE status = ANY($1) AND updated_at < $2 ORDER BY updated_at LIMIT $3
         ) RETURNING id
       ), events AS (
         DELETE FROM message_event WHERE message_id IN (SELECT id FROM gone)
       )
       SELECT count(*)::int AS count FROM gone`,
      [statuses, settledBefore, limit],
    );
    return count;
  }

  /** The latest replay of each of these messages (by arrival), if any: its id and status. */
  async latestReplays(ids: readonly string[]): Promise<Map<string, { id: string; status: MessageStatus }>> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) {
      return new Map();
    }
    const rows: { replay_of: string; id: string; status: MessageStatus }[] = await this.dataSource.query(
      `SELECT DISTINCT ON (replay_of) replay_of, id, status FROM message WHERE replay_of = ANY($1::uuid[]) ORDER BY replay_of, arrival DESC`,
      [valid],
    );
    return new Map(rows.map((row) => [row.replay_of, { id: row.id, status: row.status }]));
  }

  /** A message's replays, oldest first: what an engineer follows from a message to its retries. */
  async replaysOf(
    id: string,
  ): Promise<{ id: string; status: MessageStatus; receivedAt: Date; statusReason: string | null }[]> {
    if (!isUuid(id)) {
      return [];
    }
    const rows = await this.dataSource.manager.find(Message, {
      select: { id: true, status: true, receivedAt: true, statusReason: true },
      where: { replayOf: id },
      order: { receivedAt: 'ASC', id: 'ASC' },
    });
    return rows.map(({ id: replayId, status, receivedAt, statusReason }) => ({
      id: replayId,
      status,
      receivedAt,
      statusReason,
    }));
  }

  /** Where the message stands in arrival order: its own arrival, or the original's for a replay that orders as its original. */
  async orderArrivalOf(id: string): Promise<string | null> {
    if (!isUuid(id)) {
      return null;
    }
    const [row]: { order_arrival: string }[] = await this.dataSource.query(
      `SELECT coalesce((metadata->>'orderArrival')::bigint, arrival)::text AS order_arrival FROM message WHERE id = $1`,
      [id],
    );
    return row?.order_arrival ?? null;
  }

  /** Adds facts learnt after receipt (e.g. the mapping version used) to the message's metadata. */
  async annotate(id: string, facts: MessageMetadata): Promise<void> {
    await this.dataSource.query(`UPDATE message SET metadata = metadata || $2::jsonb WHERE id = $1`, [
      id,
      JSON.stringify(facts),
    ]);
  }

  /** Counts one more lost translation job for each of these messages (metadata.translationRequeues), in one statement. */
  async countTranslationRequeues(ids: readonly string[]): Promise<void> {
    const valid = ids.filter(isUuid);
    if (valid.length > 0) {
      await this.dataSource.query(
        `UPDATE message SET metadata = metadata || jsonb_build_object('translationRequeues',
           coalesce((metadata->>'translationRequeues')::int, 0) + 1)
          WHERE id = ANY($1::uuid[])`,
        [valid],
      );
    }
  }

  async findById(id: string): Promise<Message | null> {
    if (!isUuid(id)) {
      return null;
    }
    return this.dataSource.manager.findOneBy(Message, { id });
  }

  /**
   * The message (without its payload), one page of its operations in order with their attempts, the
   * counts of all of them, and its events. A message of 30,000 operations costs a page, not all.
   */
  async findDetail(
    id: string,
    page: OperationPage = { limit: DETAIL_OPERATIONS_DEFAULT },
    scope: DetailScope = {},
    again = true,
  ): Promise<MessageDetail | null> {
    if (!isUuid(id)) {
      return null;
    }
    const manager = this.dataSource.manager;
    const found = manager.createQueryBuilder(Message, 'm').where('m.id = :id', { id });
    if (scope.partnerId !== undefined) {
      found.andWhere('m.partner_id = :partnerId', { partnerId: scope.partnerId });
    }
    const [message] = await this.displayed(found);
    if (!message) {
      return null;
    }
    const limit = Math.min(Math.max(Math.trunc(page.limit), 1), DETAIL_OPERATIONS_MAX);
    const settled = SETTLED_STATUSES.includes(message.status);
    const recorded = settled ? message.metadata?.operationCounts : undefined;
    const [rows, byStatus, events] = await Promise.all([
      this.operationPage(id, page.after ?? -1, limit + 1),
      // A settled message's counts were recorded as it settled; one under way is summed from its
      // tally (a few rows per statement that changed its operations, not a row per operation).
      // Others (rejected, duplicate, settled before counts were recorded) are counted; attempt_count
      // is each operation's finished attempts, where a join would also read every attempt row.
      recorded
        ? Object.entries(recorded.byStatus).map(([status, n]) => ({ status, n, attempts: 0 }))
        : manager.query<{ status: OperationStatus; n: string; attempts: string }[]>(
            settled
              ? `SELECT status, count(*) AS n, sum(attempt_count) AS attempts FROM operation WHERE message_id = $1 GROUP BY status`
              : `SELECT status, sum(n) AS n, sum(attempts) AS attempts FROM operation_tally WHERE message_id = $1
                 GROUP BY status HAVING sum(n) <> 0`,
            [id],
          ),
      scope.statusOnly ? [] : manager.find(MessageEvent, { where: { messageId: id }, order: { at: 'ASC', id: 'ASC' } }),
    ]);
    if (!settled && byStatus.length === 0 && rows.length > 0 && again) {
      return this.findDetail(id, page, scope, false); // it settled meanwhile, and its tally went with it
    }
    const operations = scope.statusOnly ? rows.slice(0, limit) : await attachPayloads(manager, rows.slice(0, limit));
    const attempts =
      operations.length && !scope.statusOnly
        ? await manager
            .createQueryBuilder(DeliveryAttempt, 'a')
            .where('a.operation_id = ANY(CAST(:ids AS uuid[]))', { ids: operations.map((op) => op.id) })
            .orderBy('a.startedAt', 'ASC')
            .addOrderBy('a.id', 'ASC')
            .getMany()
        : [];
    // Grouped once: filtering all attempts per operation is quadratic.
    const attemptsOf = new Map<string, DeliveryAttempt[]>();
    for (const attempt of attempts) {
      const list = attemptsOf.get(attempt.operationId);
      if (list) {
        list.push(attempt);
      } else {
        attemptsOf.set(attempt.operationId, [attempt]);
      }
    }
    const counts = Object.fromEntries(byStatus.map((row) => [row.status, Number(row.n)]));
    return {
      message,
      operations: operations.map((op) => Object.assign(op, { attempts: attemptsOf.get(op.id) ?? [] })),
      nextAfter: rows.length > limit ? operations[operations.length - 1].seq : null,
      counts: {
        total: Object.values(counts).reduce((sum, n) => sum + n, 0),
        byStatus: counts,
        attempts: recorded?.attempts ?? byStatus.reduce((sum, row) => sum + Number(row.attempts), 0),
      },
      events,
    };
  }

  /**
   * Up to `count` of the message's operations after seq `after`, read DETAIL_READ_SLICE rows a
   * statement: 200 rows of 40-load documents parsed and hydrated at once held the gateway's event
   * loop 70–100 ms.
   */
  private async operationPage(messageId: string, after: number, count: number): Promise<DocumentOperation[]> {
    const manager = this.dataSource.manager;
    const last = await lastSeqOf(manager, messageId);
    const rows: DocumentOperation[] = [];
    // A window of seqs a statement (seqWindow), wider than a slice: removed operations leave gaps.
    for (let from = after; rows.length < count && from < last;) {
      const want = Math.min(DETAIL_READ_SLICE, count - rows.length);
      const slice = await manager
        .createQueryBuilder(DocumentOperation, 'o')
        .where(`o.message_id = :messageId AND ${seqWindow('o.seq', ':from', ':window')}`, {
          messageId,
          from,
          window: DETAIL_SEQ_WINDOW,
        })
        .orderBy('o.seq', 'ASC')
        .take(want)
        .getMany();
      rows.push(...slice);
      from = slice.length === want ? slice[slice.length - 1].seq : from + DETAIL_SEQ_WINDOW;
    }
    return rows;
  }

  /**
   * What translating a message would read: its status and content type, the bytes of its payload
   * text, and those of the stored file it points to instead (null when its payload is text); null:
   * no such message.
   */
  async payloadSize(id: string): Promise<{
    status: MessageStatus;
    contentType: string;
    textBytes: number;
    fileBytes: number | null;
    jsonValues: number | null;
  } | null> {
    if (!isUuid(id)) {
      return null;
    }
    const [row] = await this.dataSource.query<
      {
        status: MessageStatus;
        content_type: string;
        text_bytes: string;
        file_bytes: string | null;
        json_values: string | null;
      }[]
    >(
      `SELECT status, content_type, octet_length(raw_payload) AS text_bytes,
              CASE WHEN metadata ? 'payloadFile' THEN coalesce((metadata->>'size')::bigint, 0) END AS file_bytes,
              (metadata->>'jsonValues')::bigint AS json_values
         FROM message WHERE id = $1`,
      [id],
    );
    return row
      ? {
          status: row.status,
          contentType: row.content_type,
          textBytes: Number(row.text_bytes),
          fileBytes: row.file_bytes === null ? null : Number(row.file_bytes),
          jsonValues: row.json_values === null ? null : Number(row.json_values),
        }
      : null;
  }

  /** The first `maxChars` characters of a message's payload text and its size in bytes (null: no such message). */
  async payloadHead(id: string, maxChars: number): Promise<{ text: string; bytes: number } | null> {
    if (!isUuid(id)) {
      return null;
    }
    const [row] = await this.dataSource.query<{ text: string; bytes: string }[]>(
      `SELECT left(raw_payload, $2) AS text, octet_length(raw_payload) AS bytes FROM message WHERE id = $1`,
      [id, maxChars],
    );
    return row ? { text: row.text, bytes: Number(row.bytes) } : null;
  }

  /** Newest first, by (received_at, id), a page at a time; payloads left out. */
  async search(query: MessageSearch): Promise<MessagePage> {
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), SEARCH_MAX_LIMIT);
    const qb = this.filtered(query);
    if (query.cursor) {
      if (!isUuid(query.cursor)) {
        throw new RangeError(`Invalid cursor: ${query.cursor}`);
      }
      qb.andWhere(
        `(m.received_at, m.id) ${query.oldestFirst ? '>' : '<'} (SELECT c.received_at, c.id FROM message c WHERE c.id = :cursor)`,
        { cursor: query.cursor },
      );
    }
    const order = query.oldestFirst ? 'ASC' : 'DESC';
    const rows = await this.displayed(
      qb
        .orderBy('m.receivedAt', order)
        .addOrderBy('m.id', order)
        .limit(limit + 1),
    );
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? items[items.length - 1].id : null };
  }

  /** The messages `qb` selects (alias `m`), their summary columns with the metadata for display (DISPLAYED_METADATA). */
  private async displayed(qb: SelectQueryBuilder<Message>): Promise<Message[]> {
    const { entities, raw } = await qb
      .select(DISPLAY_COLUMNS)
      .addSelect(DISPLAYED_METADATA, 'displayed_metadata')
      .getRawAndEntities<{ m_id: string; displayed_metadata: MessageMetadata | null }>();
    const metadata = new Map(raw.map((row) => [row.m_id, row.displayed_metadata ?? {}]));
    for (const message of entities) {
      message.metadata = metadata.get(message.id) ?? {};
    }
    return entities;
  }

  /** How many messages match, e.g. for a bulk replay's dry run. */
  async countBy(filter: MessageFilter): Promise<number> {
    return this.filtered(filter).getCount();
  }

  /** Messages left in one of `statuses` since before `olderThan`, longest-waiting first: the sweeper's work. */
  async findStuck(query: StuckQuery): Promise<MessageSummary[]> {
    if (query.statuses.length === 0) {
      return [];
    }
    const qb = this.dataSource.manager
      .createQueryBuilder(Message, 'm')
      .select(SUMMARY_COLUMNS)
      .where('m.status IN (:...statuses)', { statuses: query.statuses })
      .andWhere('m.updated_at < :olderThan', { olderThan: query.olderThan });
    const channel = query.channel;
    if (channel && 'only' in channel) {
      qb.andWhere('m.channel = :channel', { channel: channel.only });
    }
    if (channel && 'except' in channel) {
      qb.andWhere('m.channel <> :channel', { channel: channel.except });
    }
    if (query.after) {
      qb.andWhere('m.id > :after', { after: query.after });
    }
    if (query.marked === 'abandoning') {
      qb.andWhere(`m.metadata ? 'abandoning'`); // message_abandoning_idx
    }
    return qb
      .orderBy('m.id', 'ASC')
      .limit(query.limit ?? 100)
      .getMany();
  }

  /**
   * Moves the message to `toStatus` and appends the event, atomically (the row is locked, so
   * concurrent transitions are serialised). Nothing happens when it already has that status, or
   * when `onlyFrom` is given and its status is not one of them. The reason is kept to 2,000
   * characters. Returns the message without its payload.
   */
  async transition(
    id: string,
    toStatus: MessageStatus,
    actor: Actor,
    reason?: string | null,
    onlyFrom?: readonly MessageStatus[],
    /** Only while this translation run holds the message (metadata.translationRun): another took it over. */
    whileRun?: string,
  ): Promise<MessageSummary> {
    return this.dataSource.transaction(async (manager) => {
      const message = await this.lock(manager, id);
      if (
        (onlyFrom && !onlyFrom.includes(message.status)) ||
        (whileRun !== undefined && message.metadata?.translationRun !== whileRun)
      ) {
        return message;
      }
      return this.moveTo(manager, message, toStatus, actor, excerpt(reason));
    });
  }

  /**
   * Ends a message whose translation is given up `failed`, if it is still received or translating;
   * null when it was not (another run finished it, or it was given up already).
   */
  async giveUpTranslation(id: string, actor: Actor, reason: string): Promise<MessageSummary | null> {
    return this.dataSource.transaction(async (manager) => {
      const message = await this.lock(manager, id);
      if (message.status !== 'received' && message.status !== 'translating') {
        return null;
      }
      // Marked until what it left is cleaned up (`unmark`): the sweeper finishes a cleanup cut short.
      await manager.query(`UPDATE message SET metadata = metadata || '{"abandoning": true}'::jsonb WHERE id = $1`, [
        id,
      ]);
      return this.moveTo(manager, message, 'failed', actor, excerpt(reason));
    });
  }

  /** Takes the `abandoning` mark off: the given-up translation's cleanup is done. */
  async unmark(id: string, mark: 'abandoning'): Promise<void> {
    if (isUuid(id)) {
      await this.dataSource.query(`UPDATE message SET metadata = metadata - $2::text WHERE id = $1`, [id, mark]);
    }
  }

  /**
   * Recomputes the status from the operations' statuses and transitions when it changed. The
   * message row is locked (SELECT ... FOR UPDATE) before the operations are read, so of two
   * workers settling at once the second sees the first one's operation. `rejected` and
   * `duplicate` messages are left alone.
   */
  async settleMessage(id: string, actor: Actor = 'worker'): Promise<MessageSummary> {
    return this.dataSource.transaction(async (manager) => {
      const message = await this.lock(manager, id);
      if (UNSETTLED_BY_DELIVERY.includes(message.status)) {
        return message;
      }
      const present = await this.operationCounts(manager, message);
      const derived = deriveMessageStatus(present.map((row) => row.status));
      // A large file delivered while translated whose translation was given up stays failed, whatever
      // its documents delivered settle to (the rest of the file was never read); its counts are
      // recorded once they settle.
      const givenUp = message.status === 'failed' && message.metadata?.deliveredWhileTranslating === true;
      const status = givenUp ? 'failed' : derived;
      // Recorded once, as it settles: a settled message's operations change no more.
      if (derived !== 'delivering' && (status !== message.status || !message.metadata?.operationCounts || givenUp)) {
        const counts: MessageMetadata['operationCounts'] = {
          byStatus: Object.fromEntries(present.map((row) => [row.status, row.count])),
          attempts: present.reduce((sum, row) => sum + row.attempts, 0),
        };
        await manager.query(
          `UPDATE message SET metadata = coalesce(metadata, '{}'::jsonb) || jsonb_build_object('operationCounts', $2::jsonb) WHERE id = $1`,
          [id, JSON.stringify(counts)],
        );
        if (givenUp) {
          await manager.query(`DELETE FROM operation_tally WHERE message_id = $1`, [id]);
        }
      }
      if (status === message.status) {
        return message;
      }
      // Only when the status changes: finding the first failed operation of a large file can read
      // most of its rows.
      const reason = present.some((row) => row.status === 'failed')
        ? failureSummary(present, await this.firstError(manager, id))
        : null;
      return this.moveTo(manager, message, status, actor, reason);
    });
  }

  /**
   * The message's operations counted by status (one row per status present). Unsettled, from its
   * tally (a few rows per statement that changed its operations): counting the rows read all of them
   * at every chunk a large file settles (418,226 rows: 450-610 ms each, 28 times, under the message's
   * lock). Settled (its tally is gone), from its rows.
   */
  private async operationCounts(
    manager: EntityManager,
    message: MessageSummary,
  ): Promise<{ status: OperationStatus; count: number; attempts: number }[]> {
    return manager.query(
      SETTLED_STATUSES.includes(message.status)
        ? `SELECT status, count(*)::int AS count, sum(attempt_count)::int AS attempts FROM operation
           WHERE message_id = $1 GROUP BY status`
        : `SELECT status, sum(n)::int AS count, sum(attempts)::int AS attempts FROM operation_tally
           WHERE message_id = $1 GROUP BY status HAVING sum(n) <> 0`,
      [message.id],
    );
  }

  /** The error of the message's first failed operation (in message order). */
  private async firstError(manager: EntityManager, messageId: string): Promise<string | null> {
    const [row]: { last_error: string | null }[] = await manager.query(
      `SELECT last_error FROM operation WHERE message_id = $1 AND status = 'failed' ORDER BY seq LIMIT 1`,
      [messageId],
    );
    return row?.last_error ?? null;
  }

  private filtered(filter: MessageFilter): SelectQueryBuilder<Message> {
    const qb = this.dataSource.manager.createQueryBuilder(Message, 'm').where('TRUE');
    if (filter.status !== undefined) {
      const statuses = typeof filter.status === 'string' ? [filter.status] : [...filter.status];
      qb.andWhere(statuses.length ? 'm.status IN (:...statuses)' : 'FALSE', { statuses });
    }
    if (filter.partnerId !== undefined) {
      qb.andWhere('m.partner_id = :partnerId', { partnerId: filter.partnerId });
    }
    if (filter.channel !== undefined) {
      const channels = typeof filter.channel === 'string' ? [filter.channel] : [...filter.channel];
      qb.andWhere(channels.length ? 'm.channel IN (:...channels)' : 'FALSE', { channels });
    }
    if (filter.from) {
      qb.andWhere('m.received_at >= :from', { from: filter.from });
    }
    if (filter.to) {
      qb.andWhere('m.received_at < :to', { to: filter.to });
    }
    if (filter.documentId !== undefined) {
      qb.andWhere('EXISTS (SELECT 1 FROM operation o WHERE o.message_id = m.id AND o.target_id = :documentId)', {
        documentId: filter.documentId,
      });
    }
    // Each written with the predicate of its partial index (migration EdiSearchIndexes), so the planner can use it.
    if (filter.fileName !== undefined) {
      qb.andWhere(`m.metadata ? 'fileName' AND m.metadata->>'fileName' = :fileName`, { fileName: filter.fileName });
    }
    if (filter.interchange !== undefined) {
      // As ISA13 writes it (nine digits) and as typed: a refused envelope's short control number is recorded as sent.
      const carrying = (control: string) => JSON.stringify([{ control }]);
      qb.andWhere(
        `m.metadata ? 'interchanges' AND (m.metadata->'interchanges' @> CAST(:isa13 AS jsonb) OR m.metadata->'interchanges' @> CAST(:typed AS jsonb))`,
        {
          isa13: carrying(asIsa13(filter.interchange)),
          typed: carrying(filter.interchange.trim()),
        },
      );
    }
    if (filter.text !== undefined) {
      const pattern = `%${filter.text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      qb.andWhere(`m.status_reason ILIKE :text`, { text: pattern });
    }
    return qb;
  }

  /** How many messages match `filter` (its status left out), by status; every status present, 0 when none. */
  async countByStatus(filter: MessageFilter): Promise<Record<MessageStatus, number>> {
    const rows: { status: MessageStatus; n: string }[] = await this.filtered({ ...filter, status: undefined })
      .select('m.status', 'status')
      .addSelect('count(*)', 'n')
      .groupBy('m.status')
      .getRawMany();
    const counts = Object.fromEntries(MESSAGE_STATUSES.map((status) => [status, 0])) as Record<MessageStatus, number>;
    for (const row of rows) {
      counts[row.status] = Number(row.n);
    }
    return counts;
  }

  /** Locks the message row (FOR UPDATE) and reads it without its payload. */
  private async lock(manager: EntityManager, id: string): Promise<MessageSummary> {
    const message = isUuid(id)
      ? await manager.findOne(Message, { where: { id }, select: SUMMARY_SELECT, lock: { mode: 'pessimistic_write' } })
      : null;
    if (!message) {
      throw new AuditRecordNotFoundError('message', id);
    }
    return message;
  }

  private async moveTo(
    manager: EntityManager,
    message: MessageSummary,
    toStatus: MessageStatus,
    actor: Actor,
    reason: string | null,
  ): Promise<MessageSummary> {
    if (message.status === toStatus) {
      return message;
    }
    await manager.update(Message, { id: message.id }, { status: toStatus, statusReason: reason });
    await this.appendEvent(manager, message.id, message.status, toStatus, actor, reason);
    if (!SETTLED_STATUSES.includes(toStatus) && SETTLED_STATUSES.includes(message.status)) {
      // Unsettled again (a stalled translation that went on after the sweeper ended it): its tally,
      // dropped when it settled, is counted afresh from its rows, in one statement (one snapshot:
      // a change committed meanwhile is either in the rows counted or in a tally row kept).
      await manager.query(
        `WITH dropped AS (DELETE FROM operation_tally WHERE message_id = $1)
         INSERT INTO operation_tally (message_id, status, n, attempts)
         SELECT message_id, status, count(*), sum(attempt_count) FROM operation WHERE message_id = $1 GROUP BY 1, 2`,
        [message.id],
      );
    }
    if (SETTLED_STATUSES.includes(toStatus) && !SETTLED_STATUSES.includes(message.status)) {
      // Its live counts are no longer read (settleMessage recorded them, or its rows are counted).
      await manager.query(`DELETE FROM operation_tally WHERE message_id = $1`, [message.id]);
      for (const listener of this.settledListeners) {
        listener({ partnerId: message.partnerId, channel: message.channel, status: toStatus });
      }
    }
    return manager.findOneOrFail(Message, { where: { id: message.id }, select: SUMMARY_SELECT });
  }

  private async appendEvent(
    manager: EntityManager,
    messageId: string,
    fromStatus: MessageStatus | null,
    toStatus: MessageStatus,
    actor: Actor,
    reason: string | null,
  ): Promise<void> {
    await manager.insert(MessageEvent, { id: newId(), messageId, fromStatus, toStatus, actor, reason });
  }
}

/** An ISA13 as written in the envelope: nine digits, so a shorter number is padded with zeros. */
function asIsa13(control: string): string {
  const trimmed = control.trim();
  return /^\d{1,8}$/.test(trimmed) ? trimmed.padStart(9, '0') : trimmed;
}
