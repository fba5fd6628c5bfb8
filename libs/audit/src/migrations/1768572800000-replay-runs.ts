import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bulk replay runs as a job with an id (`replay_run`): the API answers 202 with it and a worker does
 * the work, writing its progress here a page at a time, so neither a client's timeout nor a restart
 * loses the run or its result. Listed newest first by id (UUIDv7): no other index.
 */
export class ReplayRuns1768572800000 implements MigrationInterface {
  name = 'ReplayRuns1768572800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE replay_run (
        id uuid NOT NULL,
        filter jsonb NOT NULL,
        request jsonb NOT NULL,
        actor text NOT NULL,
        reason text,
        status text NOT NULL,
        total integer,
        done integer NOT NULL DEFAULT 0,
        replayed integer NOT NULL DEFAULT 0,
        skipped integer NOT NULL DEFAULT 0,
        skips jsonb NOT NULL,
        limit_reached boolean NOT NULL DEFAULT false,
        resume_after uuid,
        error text,
        claimed_by text,
        claimed_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT replay_run_pkey PRIMARY KEY (id),
        CONSTRAINT replay_run_status_check CHECK (status IN ('queued', 'running', 'completed', 'failed'))
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE replay_run`);
  }
}
