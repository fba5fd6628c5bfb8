import type { EntityManager } from 'typeorm';

/**
 * `seq` in (after, after + window]: how a message's operations are paged. `seq > after ORDER BY seq
 * LIMIT n` reads n rows through the (message_id, seq) index only when the planner knows the message
 * is large; with statistics that do not (a table that grew by a 418,000-operation file since its last
 * ANALYZE, or a large message among many small ones) it plans a bitmap scan of every row after
 * `after` and a sort: 170-390 ms a page, where a bounded window reads at most `window` rows (~1 ms).
 */
export const seqWindow = (seq: string, after: string, window: string) =>
  `${seq} > ${after}::int AND ${seq} <= ${after}::int + ${window}::int`;

/** The highest seq of a message's operations (0 when it has none): where paging by window stops. */
export async function lastSeqOf(manager: EntityManager, messageId: string): Promise<number> {
  const [row]: { last: number | null }[] = await manager.query(
    `SELECT max(seq) AS last FROM operation WHERE message_id = $1`,
    [messageId],
  );
  return row?.last ?? 0;
}
