import { MigrationInterface, QueryRunner } from 'typeorm';

/** message, operation, attempt, message_event. Plain Postgres that PGlite runs too (no extensions). */
export class CreateAuditTables1767225600000 implements MigrationInterface {
  name = 'CreateAuditTables1767225600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE message (
        id            uuid        NOT NULL,
        partner_id    text        NOT NULL,
        channel       text        NOT NULL,
        raw_payload   text        NOT NULL,
        content_type  text        NOT NULL,
        sha256        char(64)    NOT NULL,
        status        text        NOT NULL,
        status_reason text,
        replay_of     uuid,
        received_at   timestamptz NOT NULL DEFAULT now(),
        updated_at    timestamptz NOT NULL DEFAULT now(),
        metadata      jsonb       NOT NULL,
        CONSTRAINT message_pkey PRIMARY KEY (id),
        CONSTRAINT message_replay_of_fkey FOREIGN KEY (replay_of) REFERENCES message (id) ON DELETE SET NULL,
        CONSTRAINT message_status_check CHECK (status IN ('received', 'translating', 'delivering', 'delivered',
          'partially_failed', 'failed', 'rejected', 'duplicate'))
      )`);
    await db.query(`CREATE INDEX message_status_received_at_idx ON message (status, received_at)`);
    await db.query(`CREATE INDEX message_partner_id_received_at_idx ON message (partner_id, received_at)`);
    await db.query(`CREATE INDEX message_received_at_idx ON message (received_at)`);
    await db.query(`CREATE INDEX message_sha256_idx ON message (sha256)`);
    await db.query(`CREATE INDEX message_status_updated_at_idx ON message (status, updated_at)`);

    await db.query(`
      CREATE TABLE operation (
        id              uuid        NOT NULL,
        message_id      uuid        NOT NULL,
        seq             integer     NOT NULL,
        kind            text        NOT NULL,
        organisation_id text,
        target_id       text,
        payload         jsonb       NOT NULL,
        status          text        NOT NULL DEFAULT 'pending',
        last_error      text,
        error_class     text,
        attempt_count   integer     NOT NULL DEFAULT 0,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT operation_pkey PRIMARY KEY (id),
        CONSTRAINT operation_message_id_fkey FOREIGN KEY (message_id) REFERENCES message (id) ON DELETE CASCADE,
        CONSTRAINT operation_status_check CHECK (status IN ('pending', 'delivering', 'delivered', 'failed', 'skipped')),
        CONSTRAINT operation_error_class_check CHECK (error_class IS NULL OR error_class IN ('retryable', 'permanent', 'auth'))
      )`);
    await db.query(`CREATE UNIQUE INDEX operation_message_id_seq_idx ON operation (message_id, seq)`);
    await db.query(`CREATE INDEX operation_target_id_idx ON operation (target_id)`);
    await db.query(`CREATE INDEX operation_status_idx ON operation (status)`);

    await db.query(`
      CREATE TABLE attempt (
        id              uuid        NOT NULL,
        operation_id    uuid        NOT NULL,
        started_at      timestamptz NOT NULL,
        duration_ms     integer     NOT NULL,
        http_status     integer,
        outcome         text        NOT NULL,
        error_excerpt   text,
        request_summary text,
        CONSTRAINT attempt_pkey PRIMARY KEY (id),
        CONSTRAINT attempt_operation_id_fkey FOREIGN KEY (operation_id) REFERENCES operation (id) ON DELETE CASCADE,
        CONSTRAINT attempt_outcome_check CHECK (outcome IN ('success', 'retryable', 'permanent', 'auth'))
      )`);
    await db.query(`CREATE INDEX attempt_operation_id_started_at_idx ON attempt (operation_id, started_at)`);

    await db.query(`
      CREATE TABLE message_event (
        id          uuid        NOT NULL,
        message_id  uuid        NOT NULL,
        at          timestamptz NOT NULL DEFAULT clock_timestamp(),
        from_status text,
        to_status   text        NOT NULL,
        actor       text        NOT NULL,
        reason      text,
        CONSTRAINT message_event_pkey PRIMARY KEY (id),
        CONSTRAINT message_event_message_id_fkey FOREIGN KEY (message_id) REFERENCES message (id) ON DELETE CASCADE
      )`);
    await db.query(`CREATE INDEX message_event_message_id_at_idx ON message_event (message_id, at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE message_event`);
    await db.query(`DROP TABLE attempt`);
    await db.query(`DROP TABLE operation`);
    await db.query(`DROP TABLE message`);
  }
}
