import { v7 } from 'uuid';

/**
 * Ids of audit rows (messages, events, operations, attempts): UUIDv7, ordered by creation time, so
 * each insert lands at the right-hand end of the primary key and of the indexes that lead with a
 * message or operation id, not on a random page. As the tables grow, random (v4) ids made the
 * ingest INSERT cost 15-35% more Postgres CPU per row (bench/README.md).
 */
export const newId = (): string => v7();
