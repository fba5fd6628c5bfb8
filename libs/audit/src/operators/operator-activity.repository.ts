import { DataSource } from 'typeorm';
import { isUuid } from '../audit.errors';
import { newId } from '../new-id';
import { OperatorRole } from './operator-role';

/** One change an operator made through the admin API: what, to what, and by whom. */
export interface OperatorActivity {
  id: string;
  at: Date;
  /** `operator:<name>`, as on the replays and events the change made. */
  actor: string;
  role: OperatorRole;
  /** What was done, e.g. `partner.update`, `message.replay`, `operator.create`. */
  action: string;
  /** What it was done to, e.g. `partner:acme`, `message:<id>`, `operator:<id>`. */
  target: string;
  /** One line for people: never a secret, a body or a token. */
  summary: string;
}

export type NewOperatorActivity = Omit<OperatorActivity, 'id' | 'at'>;

export interface ActivityPage {
  items: OperatorActivity[];
  nextCursor: string | null;
}

/** Longest summary kept: it is a line, not a record of the request. */
export const ACTIVITY_SUMMARY_MAX_CHARS = 500;

/** The append-only log of operators' changes (`operator_activity`). */
export class OperatorActivityRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(entry: NewOperatorActivity): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO operator_activity (id, actor, role, action, target, summary) VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        newId(),
        entry.actor,
        entry.role,
        entry.action,
        entry.target,
        entry.summary.slice(0, ACTIVITY_SUMMARY_MAX_CHARS),
      ],
    );
  }

  /** Newest first; `target` narrows to one thing (`partner:acme`); `cursor` is the previous page's nextCursor. */
  async page(query: { limit: number; cursor?: string; target?: string }): Promise<ActivityPage> {
    const params: unknown[] = [query.limit + 1];
    const where: string[] = [];
    if (query.target) {
      params.push(query.target);
      where.push(`target = $${params.length}`);
    }
    if (query.cursor && isUuid(query.cursor)) {
      params.push(query.cursor);
      where.push(`id < $${params.length}`);
    }
    const rows: (Omit<OperatorActivity, 'role'> & { role: OperatorRole })[] = await this.dataSource.query(
      `SELECT id, at, actor, role, action, target, summary FROM operator_activity
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $1`,
      params,
    );
    const items = rows.slice(0, query.limit);
    return { items, nextCursor: rows.length > query.limit ? items[items.length - 1].id : null };
  }
}
