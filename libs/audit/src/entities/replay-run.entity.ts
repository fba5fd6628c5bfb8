import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { Actor, JsonObject } from '../audit.types';
import { oneOf } from './check';

/** A bulk replay's life: queued by the API, running in a worker, then completed or failed. */
export const REPLAY_RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ReplayRunStatus = (typeof REPLAY_RUN_STATUSES)[number];

/** A message the run did not replay, and why. */
export interface ReplayRunSkip {
  id: string;
  reason: string;
}

/**
 * One bulk replay by filter, run in the background (queue `replay`): what was asked, by whom, and how
 * far it got. Progress is written a page at a time; `resume_after` is the last original handled, so a
 * run interrupted by a crash goes on from there (the replays it made carry its id in
 * `metadata.replay.run`, so none is made twice). `claimed_by`/`claimed_until`: the worker running it.
 */
@Entity({ name: 'replay_run' })
@Check('replay_run_status_check', oneOf('status', REPLAY_RUN_STATUSES))
export class ReplayRun {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'replay_run_pkey' })
  id: string;

  /** The message filter as asked (MessageFilter, dates as ISO strings); the run only sees messages received before it was created. */
  @Column({ type: 'jsonb' })
  filter: JsonObject;

  /** The replay options: mode, mapping, force, includeReplayed. */
  @Column({ type: 'jsonb' })
  request: JsonObject;

  @Column({ type: 'text' })
  actor: Actor;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @Column({ type: 'text' })
  status: ReplayRunStatus;

  /** Messages the run will look at (the matching ones, at most the cap); null until it starts, exact once it ends. */
  @Column({ type: 'integer', nullable: true })
  total: number | null;

  /** Messages looked at so far (replayed + skipped). */
  @Column({ type: 'integer', default: 0 })
  done: number;

  @Column({ type: 'integer', default: 0 })
  replayed: number;

  @Column({ type: 'integer', default: 0 })
  skipped: number;

  /** The first skipped messages with their reasons (bounded: `skipped` counts them all). */
  @Column({ type: 'jsonb' })
  skips: ReplayRunSkip[];

  /** More messages matched than the cap (BULK_REPLAY_LIMIT): the rest were not looked at. */
  @Column({ name: 'limit_reached', type: 'boolean', default: false })
  limitReached: boolean;

  /** The last original handled (search order): where an interrupted run resumes. */
  @Column({ name: 'resume_after', type: 'uuid', nullable: true })
  resumeAfter: string | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'claimed_by', type: 'text', nullable: true })
  claimedBy: string | null;

  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
