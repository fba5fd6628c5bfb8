import { DataSource } from 'typeorm';
import { isUuid } from './audit.errors';

/** Acknowledgment control numbers taken from their sequence at once. */
const CONTROL_NUMBER_BLOCK = 100;

/** Interchanges already received (duplicate detection) and the control numbers of dockbridge's acknowledgments. */
export class InterchangeRepository {
  /** Control numbers taken from the sequence and not handed out yet, the next last. */
  private readonly controlNumbers: number[] = [];
  private refill?: Promise<void>;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records that `messageId` carries these interchanges and returns the keys another message of
   * the same partner carried within the window: those are duplicates. Idempotent for a retried
   * translation of the same message; serialised per partner so two copies arriving together
   * cannot both pass.
   */
  async claim(partnerId: string, keys: readonly string[], messageId: string, windowDays: number): Promise<Set<string>> {
    if (keys.length === 0) {
      return new Set();
    }
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`interchange:${partnerId}`]);
      const rows: { interchange_key: string }[] = await manager.query(
        `SELECT DISTINCT interchange_key FROM interchange_receipt
          WHERE partner_id = $1 AND interchange_key = ANY($2) AND message_id <> $3
            AND received_at > now() - make_interval(days => $4)`,
        [partnerId, keys, messageId, windowDays],
      );
      const duplicates = new Set(rows.map((r) => r.interchange_key));
      // Only what this message is first with: a copy delivers nothing, and a receipt of it would
      // still refuse the partner's resend once the first one's translation was given up (release).
      // One statement for them all: a file may hold thousands of interchanges.
      await manager.query(
        `INSERT INTO interchange_receipt (partner_id, interchange_key, message_id)
         SELECT $1, key, $3 FROM unnest($2::text[]) AS key ON CONFLICT DO NOTHING`,
        [partnerId, keys.filter((k) => !duplicates.has(k)), messageId],
      );
      return duplicates;
    });
  }

  /** Forgets the interchanges a message claimed (its translation was given up: a resend is not a duplicate of it). */
  async release(messageId: string): Promise<void> {
    if (isUuid(messageId)) {
      await this.dataSource.query(`DELETE FROM interchange_receipt WHERE message_id = $1`, [messageId]);
    }
  }

  /** Forgets interchanges received before `before` (older than any duplicate window); returns how many. */
  async purgeReceipts(before: Date): Promise<number> {
    // Counted by a SELECT: TypeORM answers a bare DELETE … RETURNING on Postgres with [rows, count],
    // whose length is always 2.
    const [row]: { n: number }[] = await this.dataSource.query(
      `WITH gone AS (DELETE FROM interchange_receipt WHERE received_at < $1 RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [before],
    );
    return row.n;
  }

  /**
   * The next ISA13 for an acknowledgment (1..999999999, cycling), from a block taken from the
   * sequence CONTROL_NUMBER_BLOCK at a time: a file of thousands of interchanges is not a round trip
   * each. Numbers of a block left when the process ends are skipped, and two processes interleave
   * theirs: ISA13s were never dense per partner (one sequence serves every partner), only unique.
   */
  async nextControlNumber(): Promise<number> {
    if (this.controlNumbers.length === 0) {
      this.refill ??= this.dataSource
        .query(`SELECT nextval('acknowledgment_control_number') AS n FROM generate_series(1, $1)`, [
          CONTROL_NUMBER_BLOCK,
        ])
        .then((rows: { n: string }[]) => {
          this.controlNumbers.push(...rows.map((row) => Number(row.n)).reverse());
        })
        .finally(() => {
          this.refill = undefined;
        });
      await this.refill;
      return this.nextControlNumber();
    }
    return this.controlNumbers.pop()!;
  }
}
