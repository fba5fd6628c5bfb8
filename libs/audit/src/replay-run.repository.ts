import { DataSource } from 'typeorm';
import { isUuid } from './audit.errors';
import { Actor, JsonObject } from './audit.types';
import { ReplayRun, ReplayRunSkip } from './entities/replay-run.entity';
import { newId } from './new-id';

export interface NewReplayRun {
  filter: JsonObject;
  request: JsonObject;
  actor: Actor;
  reason?: string | null;
}

/** How far a run got: written a page at a time by the worker that holds its claim. */
export interface ReplayRunProgress {
  total: number | null;
  done: number;
  replayed: number;
  skipped: number;
  skips: ReplayRunSkip[];
  limitReached: boolean;
  resumeAfter: string | null;
}

/** What claiming a run found: it is now this worker's, another live worker's, already over, or gone. */
export type ReplayRunClaim = { outcome: 'claimed' | 'busy' | 'finished'; run: ReplayRun } | { outcome: 'missing' };

/** Bulk replay runs (`replay_run`) and the replays each one made (messages whose `metadata.replay.run` is its id). */
export class ReplayRunRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A new run, `queued`. */
  async create(input: NewReplayRun): Promise<ReplayRun> {
    const id = newId();
    await this.dataSource.query(
      `INSERT INTO replay_run (id, filter, request, actor, reason, status, skips) VALUES ($1, $2::jsonb, $3::jsonb, $4, $5, 'queued', '[]'::jsonb)`,
      [id, JSON.stringify(input.filter), JSON.stringify(input.request), input.actor, input.reason ?? null],
    );
    return (await this.findById(id))!;
  }

  async findById(id: string): Promise<ReplayRun | null> {
    if (!isUuid(id)) {
      return null;
    }
    return this.dataSource.manager.findOneBy(ReplayRun, { id });
  }

  /** The newest runs first (ids are time-ordered). */
  async list(limit = 20): Promise<ReplayRun[]> {
    return this.dataSource.manager.find(ReplayRun, {
      order: { id: 'DESC' },
      take: Math.min(Math.max(Math.trunc(limit), 1), 100),
    });
  }

  /**
   * Takes the run for `owner` for `leaseMs` (moving it to `running`) unless another worker's claim
   * is still live: two workers never run one run at once, and a crashed worker's claim lapses.
   */
  async claim(id: string, owner: string, leaseMs: number): Promise<ReplayRunClaim> {
    if (!isUuid(id)) {
      return { outcome: 'missing' };
    }
    const [claimed]: { id: string }[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE replay_run SET status = 'running', started_at = coalesce(started_at, now()), claimed_by = $2,
           claimed_until = now() + $3 * interval '1 millisecond', updated_at = now()
         WHERE id = $1 AND status IN ('queued', 'running') AND (claimed_by IS NULL OR claimed_by = $2 OR claimed_until < now())
         RETURNING id
       ) SELECT id FROM claimed`,
      [id, owner, leaseMs],
    );
    const run = await this.findById(id);
    if (!run) {
      return { outcome: 'missing' };
    }
    if (claimed) {
      return { outcome: 'claimed', run };
    }
    return { outcome: run.status === 'completed' || run.status === 'failed' ? 'finished' : 'busy', run };
  }

  /** Records progress and renews the claim; false when the claim was lost (another worker took the run over). */
  async checkpoint(id: string, owner: string, progress: ReplayRunProgress, leaseMs: number): Promise<boolean> {
    return this.save(id, owner, progress, `claimed_until = now() + $10 * interval '1 millisecond'`, [leaseMs]);
  }

  /** Ends the run `completed` with its final figures; false when the claim was lost. */
  async complete(id: string, owner: string, progress: ReplayRunProgress): Promise<boolean> {
    return this.save(
      id,
      owner,
      progress,
      `status = 'completed', finished_at = now(), claimed_by = NULL, claimed_until = NULL`,
      [],
    );
  }

  /** Lets go of the claim (a failure the job will retry): the next try need not wait for it to lapse. */
  async release(id: string, owner: string): Promise<void> {
    if (!isUuid(id)) {
      return;
    }
    await this.dataSource.query(
      `UPDATE replay_run SET claimed_by = NULL, claimed_until = NULL, updated_at = now() WHERE id = $1 AND claimed_by = $2`,
      [id, owner],
    );
  }

  /** Ends a run that has not ended `failed` with the reason (whoever holds it). */
  async fail(id: string, error: string): Promise<void> {
    if (!isUuid(id)) {
      return;
    }
    await this.dataSource.query(
      `UPDATE replay_run SET status = 'failed', error = $2, finished_at = now(), claimed_by = NULL, claimed_until = NULL, updated_at = now()
       WHERE id = $1 AND status IN ('queued', 'running')`,
      [id, error],
    );
  }

  /** Runs not ended, held by no live claim, unchanged since `olderThan`: candidates for a lost job (the sweeper). */
  async findUnattended(olderThan: Date, limit = 100): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM replay_run WHERE status IN ('queued', 'running') AND (claimed_until IS NULL OR claimed_until < now()) AND updated_at < $1
        ORDER BY id LIMIT $2`,
      [olderThan, limit],
    );
    return rows.map((row) => row.id);
  }

  /** Of these originals, those this run already replayed, each with its replay's id. */
  async replaysByRun(runId: string, originalIds: readonly string[]): Promise<Map<string, string>> {
    const valid = originalIds.filter(isUuid);
    if (valid.length === 0) {
      return new Map();
    }
    const rows: { replay_of: string; id: string }[] = await this.dataSource.query(
      `SELECT replay_of, id FROM message WHERE replay_of = ANY($1::uuid[]) AND metadata->'replay'->>'run' = $2`,
      [valid, runId],
    );
    return new Map(rows.map((row) => [row.replay_of, row.id]));
  }

  private async save(id: string, owner: string, p: ReplayRunProgress, set: string, extra: unknown[]): Promise<boolean> {
    const [{ n }]: { n: number }[] = await this.dataSource.query(
      `WITH saved AS (
         UPDATE replay_run SET total = $3, done = $4, replayed = $5, skipped = $6, skips = $7::jsonb, limit_reached = $8, resume_after = $9,
           updated_at = now(), ${set}
         WHERE id = $1 AND claimed_by = $2 AND status = 'running'
         RETURNING id
       ) SELECT count(*)::int AS n FROM saved`,
      [
        id,
        owner,
        p.total,
        p.done,
        p.replayed,
        p.skipped,
        JSON.stringify(p.skips),
        p.limitReached,
        p.resumeAfter,
        ...extra,
      ],
    );
    return n === 1;
  }
}
