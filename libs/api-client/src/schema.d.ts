// Generated from the gateway's OpenAPI document by `npm run console:api`: do not edit.
export interface paths {
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['HealthController_check'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Prometheus metrics: what this process counted, then the store and queue counts */
    get: operations['MetricsController_metrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/activity': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** What operators changed through the admin API (replays, partners, keys, secrets, SFTP users, mappings, tokens), newest first, by whom */
    get: operations['AdminOperatorsController_activity'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/edi/preview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Dry run of an X12 file as a partner would be told (the partner API's preview, for any partner): its documents and diagnostics; nothing is recorded or delivered */
    post: operations['AdminDryRunsController_previewEdi'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Who the presented token belongs to, and its role */
    get: operations['AdminOperatorsController_me'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Search messages: status and channel (comma lists), partner, from/to (ISO 8601), documentId, fileName (of an upload or export, exact), interchange (ISA13); keyset paging with cursor */
    get: operations['AdminMessagesController_search'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/messages/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A message with the first 256 KiB of its raw payload (payloadTruncated; the whole at /payload), its operations counted by status and one page of them with their attempts (operationsLimit 1–1000, default 50; operationsAfter = nextOperationsAfter for the next page), its events, its files (the upload it came from, the 997/TA1 written for it; removedAt: the partner fetched and removed it), and its replays with their outcome */
    get: operations['AdminMessagesController_detail'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/messages/{id}/end': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** End a message's delivery: its unsettled operations (pending, retrying) end failed with the reason, and the message settles (failed, or partially_failed beside what was delivered). Newer writes its operations held back (newest write wins) then go; the message can be replayed like any failed one. Refused (409) while a platform call or job holds any of its operations, and for a message not being delivered */
    post: operations['AdminMessagesController_end'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/messages/{id}/payload': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A message's payload exactly as received (the detail shows its first 256 KiB: payloadTruncated), streamed with its content type */
    get: operations['AdminMessagesController_payload'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/messages/{id}/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Replay one message: rerun (from raw), failed-only, or edit-and-replay with a corrected payload. A replay orders as its original: a newer write to the same target that was delivered supersedes it, unless force is true */
    post: operations['AdminMessagesController_replay'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/messages/counts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** How many messages match a filter, by status (the same filters as the search; its status is left out). Give a time range (from/to) on a large store */
    get: operations['AdminMessagesController_counts'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/messages/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Bulk replay by filter, oldest first (replays are recorded in their originals' order, so forced ones leave each document on its newest message's write), at most 10,000 messages (BULK_REPLAY_LIMIT): limitReached says when more matched; narrow the filter (from/to) for the rest. dryRun (default true) answers 200 at once with the exact count and records nothing. A real run (dryRun: false) is a job: 202 with its runId and a Location to read its progress and result (GET /v1/admin/replays/{runId}); it sees the messages received before it was asked for, and resumes after a crash without replaying a message twice. Both skip, with the reason, messages that cannot be replayed and those whose latest replay was delivered (includeReplayed: true replays them too) */
    post: operations['AdminMessagesController_replayMany'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/operators': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every operator token, active first (never the tokens): admin only */
    get: operations['AdminOperatorsController_list'];
    put?: never;
    /** Issue a named token with a role; the token is in this answer only */
    post: operations['AdminOperatorsController_issue'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/operators/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke a token: refused from the next call (revoking twice keeps the first time) */
    delete: operations['AdminOperatorsController_revoke'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every partner, by id */
    get: operations['AdminPartnersController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A partner profile with its API keys (never the keys themselves) */
    get: operations['AdminPartnersController_get'];
    /** Create or replace a partner profile (409 when its file owns it: adopt it first) */
    put: operations['AdminPartnersController_put'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/adopt': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Take a file-owned partner over: source becomes api, its file is ignored (reported as a conflict at each start) */
    post: operations['AdminPartnersController_adopt'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Issue an API key; the key is in this answer only */
    post: operations['AdminPartnersController_issueKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/api-keys/{keyId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke an API key */
    delete: operations['AdminPartnersController_revokeKey'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/enabled': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Enable or disable a partner (a disabled partner's traffic is refused) */
    post: operations['AdminPartnersController_setEnabled'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/mapping': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Publish a new version of the partner's JSONata webhook mapping (checked to compile; 409 when its file owns the partner) */
    put: operations['AdminPartnersController_publishMapping'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/mapping/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Run a JSONata mapping (the given expression, else the published one) on a sample webhook body: the operations it makes, or the error at its position in the expression. Nothing is recorded */
    post: operations['AdminDryRunsController_tryMapping'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/mapping/versions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every version of the partner's webhook mapping */
    get: operations['AdminPartnersController_mappingVersions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/release': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Give an API-owned partner back to its file: the file is applied now (profile, mapping, credentials) */
    post: operations['AdminPartnersController_release'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/sftp-users': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A partner's SFTP users (never their passwords) */
    get: operations['AdminPartnersController_listSftpUsers'];
    put?: never;
    /** Give a partner an SFTP user (password and/or public key); it sees only its inbound/ and outbound/ */
    post: operations['AdminPartnersController_addSftpUser'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/sftp-users/{username}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke an SFTP user (revoking twice is harmless) */
    delete: operations['AdminPartnersController_revokeSftpUser'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/webhook-secrets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A partner's webhook secrets, by fingerprint (never the secrets) */
    get: operations['AdminPartnersController_listSecrets'];
    put?: never;
    /** Add a webhook secret (rotation: add the new one, then expire the old one at the end of the overlap) */
    post: operations['AdminPartnersController_addSecret'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/partners/{id}/webhook-secrets/{secretId}/expire': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Set when a webhook secret stops verifying (the end of a rotation) */
    post: operations['AdminPartnersController_expireSecret'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/replays': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Bulk replay runs, newest first (limit 1–100, default 20), each with its progress */
    get: operations['AdminMessagesController_listRuns'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/replays/{runId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One bulk replay run: status (queued, running, completed, failed), total (null until it starts; exact once over), done, replayed, skipped (the first 100 with their reason in skips), limit and limitReached (more matched than the cap of 10,000), error, times. Its replays carry metadata.replay.run = runId */
    get: operations['AdminMessagesController_run'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/stats': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Messages received, delivered and failed per bucket over the last hours, delivery latency percentiles, failures by class, queue depth and age, and every partner with its counts and when it last sent anything */
    get: operations['AdminStatsController_read'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/edi': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Upload an X12 file (850/856); the 997 lands in the partner outbound folder
     * @description The body is stored as it arrives, as an SFTP upload is (1 MiB chunks, the same size limit: sftp.maxFileBytes), and the file is listed in the partner inbound folder under fileName (or http-<id>.x12). The answer comes once the whole file and its message are committed. The whole request must arrive within gateway.requestTimeoutMs (408 otherwise); SFTP suits slow links.
     */
    post: operations['EdiController_upload'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/edi/preview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Dry run: the documents a file would produce and its diagnostics; nothing is recorded or delivered. The file is counted whole (summary); its sets come a page at a time (setsLimit 1–1000, default 100; setsAfter = nextSetsAfter), each with its documents, or all of them as NDJSON (full=1) */
    post: operations['EdiController_preview'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Submit operations (document upserts and deletes, booking changes) for delivery */
    post: operations['MessagesController_submit'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/messages/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A partner's own message: its status, its operations counted by status, and one page of them with each one's outcome (`retrying` with nextAttemptAt and the last error while a retryable failure waits for its next try); limit 1–1000 (default 200), after = nextAfter for the next page */
    get: operations['MessagesController_status'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/{partner}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Receive a partner's webhook (verified, deduplicated, recorded, then mapped with its JSONata mapping) */
    post: operations['WebhooksController_receive'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    AcceptedSchema: {
      /** Format: uuid */
      messageId: string;
      /**
       * @description A repeat of an Idempotency-Key with the same body
       * @enum {boolean}
       */
      repeat?: true;
      /**
       * @description `received` when new; the current status on a repeat
       * @enum {string}
       */
      status:
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded';
    };
    AcknowledgmentSchema: {
      /** @description ISA13 of the interchange acknowledged */
      acknowledges: string;
      /** @description The X12 text the sender would be sent */
      content: string;
      /** @enum {string} */
      kind: '997' | '999' | 'TA1';
    };
    ActivityBucketSchema: {
      /**
       * Format: date-time
       * @description Start of the bucket
       */
      at: string;
      /** @description Messages that settled delivered */
      delivered: number;
      /** @description Messages that settled failed, partially failed or rejected */
      failed: number;
      /** @description Messages received */
      received: number;
    };
    ActivityPageSchema: {
      items: components['schemas']['OperatorActivitySchema'][];
      /** @description Pass as cursor for the next page */
      nextCursor: string | null;
    };
    AddedWebhookSecretSchema: {
      record: components['schemas']['WebhookSecretSchema'];
      /**
       * @description The secret: shown in this answer only
       * @example whsec_…
       */
      secret: string;
    };
    AddSecretDto: {
      /**
       * Format: date-time
       * @description When it stops verifying; never when absent
       */
      expiresAt?: string;
      /**
       * @description Tells secrets apart
       * @example 2026 rotation
       */
      label: string;
      /** @description Omit to have a Standard Webhooks secret (whsec_…) generated; shown in this answer only */
      secret?: string;
    };
    ApiKeySchema: {
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      expiresAt: string | null;
      /** Format: uuid */
      id: string;
      /** @description The first 8 characters after dbk_ */
      keyPrefix: string | null;
      label: string;
      /** Format: date-time */
      lastUsedAt: string | null;
      partnerId: string;
      /** Format: date-time */
      revokedAt: string | null;
      /** @enum {string} */
      source: 'config' | 'api';
    };
    AttemptSchema: {
      durationMs: number;
      errorExcerpt: string | null;
      /** @description The platform's HTTP status; null without an answer */
      httpStatus: number | null;
      /** Format: uuid */
      id: string;
      /** @enum {string} */
      outcome: 'success' | 'retryable' | 'permanent' | 'auth' | 'in-flight' | 'interrupted';
      /** @description What was sent, summarised (never headers) */
      requestSummary: string | null;
      /** Format: date-time */
      startedAt: string;
    };
    BulkReplayDryRunSchema: {
      /** @enum {boolean} */
      dryRun: true;
      /** @description Present when more matched than the cap: the cap */
      limitReached?: number;
      /** @description Messages the real run would replay */
      matching: number;
      skipped: components['schemas']['SkippedMessageSchema'][];
    };
    BulkReplayDto: {
      /** @description Any of these channels (repeated, or one comma list) */
      channel?: ('api' | 'sftp' | 'http-edi' | 'webhook' | 'replay' | 'export')[];
      /**
       * @description A document id one of its operations writes
       * @example PO-1
       */
      documentId?: string;
      /**
       * @description true (default): only count what would be replayed (200)
       * @default true
       */
      dryRun?: boolean;
      /** @description The file it came in or went out as, exactly (SFTP and HTTP uploads, export files) */
      fileName?: string;
      /**
       * @description Deliver even over newer writes to the same targets
       * @default false
       */
      force?: boolean;
      /**
       * Format: date-time
       * @description Received at or after (ISO 8601)
       */
      from?: string;
      /**
       * @description Also replay messages whose latest replay was delivered (a second booking.create books twice)
       * @default false
       */
      includeReplayed?: boolean;
      /**
       * @description An interchange control number (ISA13); `123` finds `000000123`
       * @example 000000123
       */
      interchange?: string;
      /**
       * @description Webhook messages: each message's original mapping version, or the current one
       * @default original
       * @enum {string}
       */
      mapping?: 'original' | 'current';
      /**
       * @description As for one replay
       * @default rerun
       * @enum {string}
       */
      mode?: 'rerun' | 'failed-only';
      /** @description With the shared ADMIN_TOKEN only: who, recorded as operator:<name> (default admin). A named token records its own name */
      operator?: string;
      /**
       * @description The partner's id
       * @example acme-wms
       */
      partner?: string;
      /** @description Why, recorded on the run and its replays */
      reason?: string;
      /**
       * @description Any of these statuses (repeated, or one comma list)
       * @example [
       *       "failed"
       *     ]
       */
      status?: (
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded'
      )[];
      /**
       * @description Words in the message's reason (why it failed or was rejected), case-insensitive
       * @example DocumentNotFound
       */
      text?: string;
      /**
       * Format: date-time
       * @description Received before (ISO 8601)
       */
      to?: string;
    };
    BulkReplayStartedSchema: {
      /** @enum {boolean} */
      dryRun: false;
      /** @description The most messages a run replays */
      limit: number;
      /**
       * @description Where its progress is read
       * @example /v1/admin/replays/0191d6a2-…
       */
      location: string;
      /** Format: uuid */
      runId: string;
      /** @enum {string} */
      status: 'queued' | 'running' | 'completed' | 'failed';
    };
    CanonicalMessageSchema: {
      /**
       * @description By kind: document.upsert {document, options?}; document.delete {documentId}; booking.create {booking | bookingEntityRef}; booking.status and booking.tasks {bookingId, ...}; vehicle.update {vehicleId, vehicle}
       * @example [
       *       {
       *         "kind": "document.upsert",
       *         "organisationId": "<location uuid>",
       *         "document": {
       *           "id": "PO-1",
       *           "direction": "Inbound",
       *           "carrier": {
       *             "coreName": "SCAC",
       *             "coreId": "FFRT"
       *           }
       *         }
       *       }
       *     ]
       */
      operations: (components['schemas']['CanonicalOperationSchema'] & {
        [key: string]: unknown;
      })[];
    };
    CanonicalOperationSchema: {
      /** @enum {string} */
      kind:
        | 'document.upsert'
        | 'document.delete'
        | 'booking.create'
        | 'booking.status'
        | 'booking.tasks'
        | 'vehicle.update';
      /**
       * Format: uuid
       * @description The platform organisation it acts on: the partner's location or one its profile names
       */
      organisationId: string;
    };
    DashboardStatsSchema: {
      /** @description Width of each bucket (60 up to 6 hours) */
      bucketSeconds: number;
      /** @description Operations whose latest try in the window failed */
      failuresByClass: components['schemas']['FailuresByClassSchema'];
      /** Format: date-time */
      from: string;
      /** @description Received to delivered, of the messages delivered in the window */
      latencyMs: components['schemas']['LatencySchema'];
      partners: components['schemas']['PartnerActivitySchema'][];
      /** @description null: Redis could not be read */
      queues: components['schemas']['QueueStateSchema'][] | null;
      series: components['schemas']['ActivityBucketSchema'][];
      /** Format: date-time */
      to: string;
    };
    DirectoryEntrySchema: {
      /** @description N1 code (N104) */
      code?: string;
      organisation: components['schemas']['DirectoryOrgRefSchema'];
      /** @description N1 qualifier (N103), with code; or scac */
      qualifier?: string;
      /** @description A SCAC, 2 to 4 capital letters or digits */
      scac?: string;
    };
    DirectoryOrgRefSchema: {
      coreId?: string;
      coreName?: string;
      /**
       * Format: uuid
       * @description A platform organisation (or coreName + coreId)
       */
      id?: string;
    };
    DocumentSettingsSchema: {
      maxUses?: number;
      /** @enum {string} */
      mode?: 'Free' | 'Fixed' | 'Flexible';
    };
    EdiPreviewSchema: {
      /** @description The acknowledgments of the interchanges listed */
      acknowledgments: components['schemas']['AcknowledgmentSchema'][];
      /** @description The canonical operations of the sets shown */
      documents: {
        [key: string]: unknown;
      }[];
      /** @description The first 100 interchanges, in file order (summary.interchanges counts them all; full=1 streams every one) */
      interchanges: components['schemas']['InterchangeOutcomeSchema'][];
      /** @description Pass as `setsAfter` for the next page; null on the last */
      nextSetsAfter: number | null;
      /** @description Problems outside any interchange (not X12 at all, ...) */
      problems: string[];
      /** @description The whole file counted */
      summary: components['schemas']['EdiPreviewSummarySchema'];
      /** @description One page of the sets, in file order */
      transactionSets: components['schemas']['TransactionSetSchema'][];
    };
    EdiPreviewSummarySchema: {
      accepted: number;
      /** @description Documents the file would produce */
      documents: number;
      interchanges: number;
      rejected: number;
      /** @description Transaction sets in the whole file */
      sets: number;
    };
    EnabledBodySchema: {
      /** @description true to accept its traffic, false to refuse it */
      enabled: boolean;
    };
    EndedMessageSchema: {
      /** @description Operations ended (failed with the reason) */
      ended: number;
      /** Format: uuid */
      messageId: string;
      /**
       * @description Settled: failed, or partially_failed beside what was delivered
       * @enum {string}
       */
      status:
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded';
    };
    EndMessageDto: {
      /** @description With the shared ADMIN_TOKEN only: who, recorded as operator:<name> (default admin). A named token records its own name */
      operator?: string;
      /** @description Why: recorded as each ended operation's error (ended by operator:<name>: <reason>) and in the activity log */
      reason: string;
    };
    ErrorBody: {
      /**
       * @description One reason per problem, each naming its field
       * @example [
       *       "limit must not be greater than 500"
       *     ]
       */
      details: string[];
      /**
       * @description A summary of the refusal
       * @example Invalid search
       */
      error: string;
      /**
       * @description The HTTP status, repeated
       * @example 400
       */
      statusCode: number;
    };
    ExpireSecretDto: {
      /**
       * Format: date-time
       * @description When the secret stops verifying (the end of a rotation's overlap); now when absent
       */
      at?: string;
    };
    FailuresByClassSchema: {
      /** @description Refused credentials: a token or permission needs fixing */
      auth: number;
      /** @description Ended at once (the platform refused the data) */
      permanent: number;
      /** @description Retried (may still succeed) */
      retryable: number;
    };
    InterchangeIdSchema: {
      /**
       * @description ISA06 id, 1 to 15 characters
       * @example DOCKBRIDGE
       */
      id: string;
      /**
       * @description ISA05 qualifier (2 letters or digits)
       * @example ZZ
       */
      qualifier: string;
    };
    InterchangeOutcomeSchema: {
      /** @description ISA13 */
      control: string;
      /** @description A second copy of an interchange earlier in the file */
      duplicate?: boolean;
      /** @description ISA05/ISA06/ISA13: what duplicate detection keys on */
      key: string;
      reason?: string;
      /** @description The envelope or sender was refused: nothing of it is delivered */
      refused: boolean;
      /** @description ISA06 */
      senderId: string;
    };
    IssuedApiKeySchema: {
      /**
       * @description The key: shown in this answer only
       * @example dbk_…
       */
      key: string;
      record: components['schemas']['ApiKeySchema'];
    };
    IssuedOperatorTokenSchema: {
      /** Format: date-time */
      createdAt: string;
      /**
       * @description Who issued it
       * @example operator:admin
       */
      createdBy: string;
      /**
       * Format: date-time
       * @description Refused from then on; null: no expiry
       */
      expiresAt: string | null;
      /**
       * @description The first characters of the token, to tell tokens apart
       * @example dbo_Xk3f9a…
       */
      hint: string;
      /** Format: uuid */
      id: string;
      /**
       * Format: date-time
       * @description Last call made with it (to the minute)
       */
      lastUsedAt: string | null;
      /** @example dana */
      name: string;
      /** Format: date-time */
      revokedAt: string | null;
      /** @enum {string} */
      role: 'viewer' | 'operator' | 'admin';
      /**
       * @description The token: shown in this answer only
       * @example dbo_…
       */
      token: string;
    };
    IssueKeyDto: {
      /**
       * Format: date-time
       * @description When it stops authenticating (in the future); never when absent
       */
      expiresAt?: string;
      /**
       * @description Tells keys apart
       * @example production
       */
      label: string;
    };
    IssueOperatorTokenDto: {
      /**
       * Format: date-time
       * @description Refused from then on (ISO 8601, in the future)
       */
      expiresAt?: string;
      /**
       * @description Who holds it: letters, digits, . _ @ -, up to 64
       * @example dana
       */
      name: string;
      /** @enum {string} */
      role: 'viewer' | 'operator' | 'admin';
    };
    LatencySchema: {
      p50: number | null;
      p90: number | null;
      p99: number | null;
    };
    MappingErrorSchema: {
      /** @example Expected ")", got end of expression */
      message: string;
      /** @description Character offset in the expression */
      position?: number;
      /** @description The token JSONata stopped at */
      token?: string;
    };
    MappingTrialDto: {
      /** @description The JSONata expression to try; absent: the published one */
      expression?: string;
      /**
       * @description A webhook body as the partner would send it (any JSON)
       * @example {
       *       "order": "PO-1"
       *     }
       */
      sample: Record<string, never>;
    };
    MappingTrialSchema: {
      /** @description Why it makes none */
      error?: components['schemas']['MappingErrorSchema'];
      /** @description The published version tried; null: the given expression */
      mappingVersion: number | null;
      /** @description The canonical operations the mapping makes of the sample */
      operations?: Record<string, never>[];
    };
    MessageCountsSchema: {
      /**
       * @description Every message status with how many messages match
       * @example {
       *       "received": 0,
       *       "delivered": 412,
       *       "failed": 3
       *     }
       */
      byStatus: {
        [key: string]: number;
      };
    };
    MessageDetailSchema: {
      events: components['schemas']['MessageEventSchema'][];
      /** @description Its files, all counted (a file of many interchanges has a 997 for each) */
      fileCount: number;
      /** @description The upload it came from, the 997/TA1s written for it: the first 100, oldest first */
      files: components['schemas']['MessageFileSchema'][];
      message: components['schemas']['MessageWithPayloadSchema'];
      /** @description Pass as `operationsAfter` for the next page */
      nextOperationsAfter: number | null;
      /** @description Every operation counted, whatever page is shown */
      operationCounts: components['schemas']['OperationCountsSchema'];
      /** @description One page, in order, with their attempts */
      operations: components['schemas']['OperationSchema'][];
      /** @description Its replays, oldest first */
      replays: components['schemas']['ReplayLinkSchema'][];
    };
    MessageEventSchema: {
      /**
       * @description gateway, worker, sweeper or operator:<name>
       * @example operator:ana
       */
      actor: string;
      /** Format: date-time */
      at: string;
      /** @enum {string|null} */
      fromStatus:
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded'
        | null;
      reason: string | null;
      /** @enum {string} */
      toStatus:
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded';
    };
    MessageFileSchema: {
      /** Format: date-time */
      createdAt: string;
      /**
       * Format: date-time
       * @description The partner first read it over SFTP
       */
      fetchedAt: string | null;
      /** @example outbound */
      folder: string;
      /** Format: uuid */
      id: string;
      /** @description 997, TA1, export, ...; null for uploads */
      kind: string | null;
      name: string;
      /**
       * Format: date-time
       * @description The partner removed it, or a newer file replaced it
       */
      removedAt: string | null;
      sha256: string;
      size: number;
    };
    MessagePageSchema: {
      /** @description Newest first */
      items: components['schemas']['MessageSummarySchema'][];
      /** @description Pass as `cursor` for the next page; null on the last */
      nextCursor: string | null;
    };
    MessageSummarySchema: {
      /**
       * @description Where it came in
       * @enum {string}
       */
      channel: 'api' | 'sftp' | 'http-edi' | 'webhook' | 'replay' | 'export';
      /** @example application/json */
      contentType: string;
      /** Format: uuid */
      id: string;
      /** @description Searchable facts: size, fileName, via, interchanges (ISA13; the first 100, with interchangeCount when there are more), webhookId, replay, mappingVersion, ... */
      metadata: {
        [key: string]: unknown;
      };
      /** @example acme-wms */
      partnerId: string;
      /** Format: date-time */
      receivedAt: string;
      /**
       * Format: uuid
       * @description The message this one replays
       */
      replayOf: string | null;
      /** @description Hex SHA-256 of the payload */
      sha256: string;
      /** @enum {string} */
      status:
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded';
      /** @description Why it is rejected, failed, ... */
      statusReason: string | null;
      /** Format: date-time */
      updatedAt: string;
    };
    MessageWithPayloadSchema: {
      /**
       * @description Where it came in
       * @enum {string}
       */
      channel: 'api' | 'sftp' | 'http-edi' | 'webhook' | 'replay' | 'export';
      /** @example application/json */
      contentType: string;
      /** Format: uuid */
      id: string;
      /** @description Searchable facts: size, fileName, via, interchanges (ISA13; the first 100, with interchangeCount when there are more), webhookId, replay, mappingVersion, ... */
      metadata: {
        [key: string]: unknown;
      };
      /** @example acme-wms */
      partnerId: string;
      /** @description The payload's size in bytes */
      payloadBytes: number;
      /** @description `rawPayload` is its beginning only */
      payloadTruncated: boolean;
      /** @description The first 256 KiB of the payload, as text (the whole at /payload) */
      rawPayload: string;
      /** Format: date-time */
      receivedAt: string;
      /**
       * Format: uuid
       * @description The message this one replays
       */
      replayOf: string | null;
      /** @description Hex SHA-256 of the payload */
      sha256: string;
      /** @enum {string} */
      status:
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded';
      /** @description Why it is rejected, failed, ... */
      statusReason: string | null;
      /** Format: date-time */
      updatedAt: string;
    };
    OperationCountsSchema: {
      /** @description Delivery attempts of all its operations */
      attempts: number;
      /**
       * @description Operations by status (pending, delivering, delivered, failed, skipped, superseded); a status none has is left out
       * @example {
       *       "delivered": 3,
       *       "failed": 1
       *     }
       */
      byStatus: {
        [key: string]: number;
      };
      /** @description Operations of the message */
      total: number;
    };
    OperationSchema: {
      attemptCount: number;
      attempts: components['schemas']['AttemptSchema'][];
      /** Format: date-time */
      createdAt: string;
      /** @enum {string|null} */
      errorClass: 'retryable' | 'permanent' | 'auth' | null;
      /** Format: uuid */
      id: string;
      /**
       * Format: date-time
       * @description A try is under way until then
       */
      inFlightUntil: string | null;
      /** @enum {string} */
      kind:
        | 'document.upsert'
        | 'document.delete'
        | 'booking.create'
        | 'booking.status'
        | 'booking.tasks'
        | 'vehicle.update';
      lastError: string | null;
      /**
       * Format: date-time
       * @description While a retryable failure waits: when the next try is due
       */
      nextAttemptAt: string | null;
      /** Format: uuid */
      organisationId: string | null;
      /** @description The canonical operation */
      payload: {
        [key: string]: unknown;
      };
      /** @description Its place in the message, from 0 */
      seq: number;
      /** @enum {string} */
      status: 'pending' | 'delivering' | 'delivered' | 'failed' | 'skipped' | 'superseded';
      /**
       * Format: uuid
       * @description The newer write that made it moot (superseded)
       */
      supersededBy: string | null;
      /** @description The document, vehicle or booking it writes */
      targetId: string | null;
      /** Format: date-time */
      updatedAt: string;
    };
    OperatorActivitySchema: {
      /** @example partner.update */
      action: string;
      /** @example operator:dana */
      actor: string;
      /** Format: date-time */
      at: string;
      /** Format: uuid */
      id: string;
      /** @enum {string} */
      role: 'viewer' | 'operator' | 'admin';
      /** @example replaced the profile of acme-wms */
      summary: string;
      /** @example partner:acme-wms */
      target: string;
    };
    OperatorMeSchema: {
      /**
       * @description The token's name (the bootstrap ADMIN_TOKEN is `admin`)
       * @example dana
       */
      name: string;
      /**
       * @description viewer: read; operator: also replay and preview; admin: all
       * @enum {string}
       */
      role: 'viewer' | 'operator' | 'admin';
    };
    OperatorTokenSchema: {
      /** Format: date-time */
      createdAt: string;
      /**
       * @description Who issued it
       * @example operator:admin
       */
      createdBy: string;
      /**
       * Format: date-time
       * @description Refused from then on; null: no expiry
       */
      expiresAt: string | null;
      /**
       * @description The first characters of the token, to tell tokens apart
       * @example dbo_Xk3f9a…
       */
      hint: string;
      /** Format: uuid */
      id: string;
      /**
       * Format: date-time
       * @description Last call made with it (to the minute)
       */
      lastUsedAt: string | null;
      /** @example dana */
      name: string;
      /** Format: date-time */
      revokedAt: string | null;
      /** @enum {string} */
      role: 'viewer' | 'operator' | 'admin';
    };
    PartnerActivitySchema: {
      delivered: number;
      failed: number;
      /**
       * Format: date-time
       * @description When it last sent anything (any time)
       */
      lastReceivedAt: string | null;
      /** @example acme-wms */
      partner: string;
      received: number;
    };
    PartnerEdiSettingsSchema: {
      /**
       * @description For 5010 interchanges; default '997'
       * @enum {string}
       */
      acknowledgment?: '997' | '999';
      /**
       * @description `coreName` of parties the directory does not know
       * @example KETTLE
       */
      coreName: string;
      /** @enum {string} */
      defaultDirection?: 'Inbound' | 'Outbound';
      defaultLoadName?: string;
      documentSettings?: components['schemas']['DocumentSettingsSchema'];
      /** @description Duplicate window (default 30) */
      duplicateWindowDays?: number;
      /** @description Our ISA05/ISA06 in acknowledgments */
      interchangeId?: components['schemas']['InterchangeIdSchema'];
      /** @description Product id qualifiers in order of preference for load tags */
      loadTagQualifiers?: string[];
      /** @description Codes naming the location (decide Inbound or Outbound) */
      locationCodes?: string[];
      /** @description Reject sets with segment syntax errors (default: accepted with errors) */
      rejectSetsWithSegmentErrors?: boolean;
      /** @description ISA06 ids this partner sends with (another is refused with a TA1) */
      senderIds: string[];
    };
    PartnerExportSettingsSchema: {
      /**
       * @description A cron pattern of 5 or 6 fields (or everyMs)
       * @example 0 6 * * *
       */
      cron?: string;
      /** @description Every this many ms (or cron) */
      everyMs?: number;
      /** @description The platform export's filter */
      filter?: {
        [key: string]: unknown;
      };
      /** @enum {string} */
      format: 'csv' | 'json';
      /**
       * @description Names the schedule and its files
       * @example daily-bookings
       */
      id: string;
      /**
       * Format: uuid
       * @description The platform export's layout
       */
      layoutId: string;
      /** @description Put the file in the partner's SFTP outbound folder (default true) */
      sftp?: boolean;
      /** @description Also POST it here, signed with Standard Webhooks */
      url?: string;
      /** @enum {string} */
      viewAs?: 'bookings' | 'tasks';
    };
    PartnerFileConflictSchema: {
      /** Format: date-time */
      detectedAt: string;
      /** @description The partner file the last start ignored */
      file: string;
    };
    PartnerMappingSchema: {
      /** Format: date-time */
      createdAt: string;
      /** @description The JSONata expression */
      expression: string;
      partnerId: string;
      /** @description Versions count from 1 */
      version: number;
    };
    PartnerMessageStatusSchema: {
      /** Format: uuid */
      messageId: string;
      /** @description Pass as `after` for the next page; null on the last */
      nextAfter: number | null;
      operationCounts: components['schemas']['OperationCountsSchema'];
      operations: components['schemas']['PartnerOperationSchema'][];
      reason: string | null;
      /** Format: date-time */
      receivedAt: string;
      /**
       * @description `retrying` while a retryable failure waits for its next try
       * @enum {string}
       */
      status:
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded'
        | 'retrying';
    };
    PartnerOperationSchema: {
      /** @description Delivery attempts so far */
      attempts: number;
      error: string | null;
      /** @enum {string} */
      kind:
        | 'document.upsert'
        | 'document.delete'
        | 'booking.create'
        | 'booking.status'
        | 'booking.tasks'
        | 'vehicle.update';
      /**
       * Format: date-time
       * @description While retrying: when the next try is due
       */
      nextAttemptAt?: string;
      seq: number;
      /** @enum {string} */
      status: 'pending' | 'delivering' | 'delivered' | 'failed' | 'skipped' | 'superseded' | 'retrying';
      /** @description The document, vehicle or booking it writes */
      target: string | null;
    };
    PartnerProfileBodySchema: {
      /** @description Absent: true for a new partner, unchanged for an existing one */
      enabled?: boolean;
      /**
       * Format: uuid
       * @description The platform location it delivers to by default
       */
      locationOrganisationId: string;
      /** @example Acme WMS */
      name: string;
      /** @description A platform account of the configuration (platform.accounts[].name) */
      platformAccount?: string;
      settings?: components['schemas']['PartnerSettingsSchema'];
    };
    PartnerSchema: {
      /** @description A file the last import ignored because the API owns the partner */
      conflict: components['schemas']['PartnerFileConflictSchema'] | null;
      /** Format: date-time */
      createdAt: string;
      enabled: boolean;
      /** @description The file that owns it (source file) */
      file: string | null;
      /**
       * @description Slug; the partner_id of its messages
       * @example acme-wms
       */
      id: string;
      /** Format: uuid */
      locationOrganisationId: string;
      name: string;
      platformAccount: string | null;
      settings: components['schemas']['PartnerSettingsSchema'];
      /**
       * @description Who owns it: its file ('file') or the admin API ('api')
       * @enum {string}
       */
      source: 'file' | 'api';
      /** Format: date-time */
      updatedAt: string;
    };
    PartnerSettingsSchema: {
      /** @description Upserts per location that go in batch jobs */
      batchThreshold?: number;
      /** @description Parties named by code or SCAC */
      directory?: components['schemas']['DirectoryEntrySchema'][];
      edi?: components['schemas']['PartnerEdiSettingsSchema'];
      /** @description Resolve OrgRefs against base organisations too */
      enableBaseOrgs?: boolean;
      /** @description Scheduled bookings exports */
      exports?: components['schemas']['PartnerExportSettingsSchema'][];
      /** @description Platform organisations this partner may act on besides its location */
      organisations?: string[];
      /** @description The Core ID the location is known by to this partner */
      selfCoreId?: string;
      webhook?: components['schemas']['PartnerWebhookSettingsSchema'];
    };
    PartnerWebhookSettingsSchema: {
      /** @enum {string} */
      algorithm?: 'sha256' | 'sha512';
      /** @description api-key: the header carrying one of the secrets */
      apiKeyHeader?: string;
      /** @enum {string} */
      encoding?: 'hex' | 'base64';
      /** @description The header holding the idempotency key (default webhook-id) */
      idempotencyHeader?: string;
      /** @description Or a JSONata path into the body holding it */
      idempotencyPath?: string;
      /** @description Largest body accepted (default 1 MiB); larger is 413 */
      maxBodyBytes?: number;
      /**
       * @description hmac: a prefix before the signature
       * @example sha256=
       */
      prefix?: string;
      /**
       * @description hmac: the header carrying the signature
       * @example x-tms-signature
       */
      signatureHeader?: string;
      /** @description Timestamp tolerance (300) */
      toleranceSeconds?: number;
      /**
       * @description standard-webhooks (webhook-id/-timestamp/-signature), hmac (one signature header) or api-key
       * @enum {string}
       */
      verification: 'standard-webhooks' | 'hmac' | 'api-key';
    };
    PartnerWithKeysSchema: {
      /** @description Its API keys (never the key, never its hash) */
      apiKeys: components['schemas']['ApiKeySchema'][];
      /** @description A file the last import ignored because the API owns the partner */
      conflict: components['schemas']['PartnerFileConflictSchema'] | null;
      /** Format: date-time */
      createdAt: string;
      enabled: boolean;
      /** @description The file that owns it (source file) */
      file: string | null;
      /**
       * @description Slug; the partner_id of its messages
       * @example acme-wms
       */
      id: string;
      /** Format: uuid */
      locationOrganisationId: string;
      name: string;
      platformAccount: string | null;
      settings: components['schemas']['PartnerSettingsSchema'];
      /**
       * @description Who owns it: its file ('file') or the admin API ('api')
       * @enum {string}
       */
      source: 'file' | 'api';
      /** Format: date-time */
      updatedAt: string;
    };
    PublishMappingDto: {
      /** @description A JSONata expression turning a webhook body into {operations: [...]} (checked to compile) */
      expression: string;
    };
    QueueStateSchema: {
      active: number;
      /** @description Waiting for a retry backoff */
      delayed: number;
      failed: number;
      /** @example deliver */
      name: string;
      /** @description Age of the oldest waiting job (null: none waits) */
      oldestWaitingSeconds: number | null;
      waiting: number;
    };
    ReplayDto: {
      /**
       * @description Deliver even over newer writes to the same targets (default: a replay orders as its original)
       * @default false
       */
      force?: boolean;
      /**
       * @description Webhook messages: the mapping version to translate with, the original's or the current one
       * @default original
       * @enum {string}
       */
      mapping?: 'original' | 'current';
      /**
       * @description rerun: every operation from the raw payload; failed-only: only the operations that failed
       * @default rerun
       * @enum {string}
       */
      mode?: 'rerun' | 'failed-only';
      /** @description With the shared ADMIN_TOKEN only: who, recorded as operator:<name> (default admin). A named token records its own name */
      operator?: string;
      /** @description Deliver even operations on organisations outside the partner's profile (recorded with operator and reason) */
      overrideOrganisations?: boolean;
      /** @description Edit-and-replay: the corrected payload, as text (EDI) or as JSON (stored as its JSON text) */
      payload?:
        | string
        | {
            [key: string]: unknown;
          };
      /** @description Why, recorded on the replay */
      reason?: string;
    };
    ReplayLinkSchema: {
      /** Format: uuid */
      id: string;
      /** Format: date-time */
      receivedAt: string;
      /** @enum {string} */
      status:
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded';
      statusReason: string | null;
    };
    ReplayResultSchema: {
      /**
       * Format: uuid
       * @description The new message (the replay)
       */
      messageId: string;
      /** Format: uuid */
      replayOf: string;
      /** @enum {string} */
      status:
        | 'received'
        | 'translating'
        | 'delivering'
        | 'delivered'
        | 'partially_failed'
        | 'failed'
        | 'rejected'
        | 'duplicate'
        | 'superseded';
    };
    ReplayRunListSchema: {
      /** @description Newest first */
      items: components['schemas']['ReplayRunSchema'][];
    };
    ReplayRunSchema: {
      /** @example operator:ana */
      actor: string;
      /** Format: date-time */
      createdAt: string;
      done: number;
      error: string | null;
      /** @description The filter it replays */
      filter: {
        [key: string]: unknown;
      };
      /** Format: date-time */
      finishedAt: string | null;
      limit: number;
      /** @description More matched than the cap */
      limitReached: boolean;
      reason: string | null;
      replayed: number;
      /** @description Its options (mode, mapping, force, includeReplayed) */
      request: {
        [key: string]: unknown;
      };
      /** Format: uuid */
      runId: string;
      skipped: number;
      /** @description The first skipped messages, with their reason */
      skips: components['schemas']['SkippedMessageSchema'][];
      /** Format: date-time */
      startedAt: string | null;
      /** @enum {string} */
      status: 'queued' | 'running' | 'completed' | 'failed';
      /** @description Null until it starts; exact once over */
      total: number | null;
      /** Format: date-time */
      updatedAt: string;
    };
    SftpUserDto: {
      /** @description At least 12 characters; stored as a scrypt hash */
      password?: string;
      /**
       * @description An OpenSSH public key line
       * @example ssh-ed25519 AAAA… acme
       */
      publicKey?: string;
      /**
       * @description 2 to 63 lowercase letters, digits, dots, underscores or hyphens
       * @example acme
       */
      username: string;
    };
    SftpUserSchema: {
      /** Format: date-time */
      createdAt: string;
      hasPassword: boolean;
      /** Format: uuid */
      id: string;
      partnerId: string;
      /** @example SHA256:… */
      publicKeyFingerprint: string | null;
      /** @example ssh-ed25519 */
      publicKeyType: string | null;
      /** Format: date-time */
      revokedAt: string | null;
      username: string;
    };
    SkippedMessageSchema: {
      /** Format: uuid */
      id: string;
      /** @example its latest replay was delivered */
      reason: string;
    };
    TransactionSetSchema: {
      /** @description level, transactionControl, segmentPosition, segmentTag, element, code (table 723), message, ... */
      diagnostics: {
        [key: string]: unknown;
      }[];
      documentId?: string;
      /** @description The envelope check refused the set itself */
      envelopeRejected: boolean;
      /** @description The key of its interchange */
      interchangeKey: string;
      /** @description Its interchange was refused: nothing of the set goes out */
      interchangeRefused?: boolean;
      /** @description Element errors reported while the set is still accepted (AK5 E) */
      notes: string[];
      /** @description The canonical operation it maps to (absent when rejected) */
      operation?: {
        [key: string]: unknown;
      };
      /** @description Cannot be delivered (an error diagnostic says why) */
      rejected: boolean;
      /** @example 850 */
      setId: string;
      /** @description ST02 */
      transactionControl: string;
    };
    WebhookReceivedSchema: {
      /**
       * @description A repeat of an earlier webhook-id (200)
       * @enum {boolean}
       */
      duplicate?: true;
      /**
       * Format: uuid
       * @description The message recorded (the original one for a repeated webhook-id)
       */
      messageId: string;
      /**
       * @description A new webhook (202)
       * @enum {string}
       */
      status?: 'received';
    };
    WebhookSecretSchema: {
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      expiresAt: string | null;
      /**
       * @description sha256: and the first 12 hex digits of the secret's SHA-256
       * @example sha256:…
       */
      fingerprint: string;
      /** Format: uuid */
      id: string;
      label: string;
      partnerId: string;
      /** Format: date-time */
      revokedAt: string | null;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  HealthController_check: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Health Check is successful */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @example {
             *       "database": {
             *         "status": "up",
             *         "responseTime": 12
             *       }
             *     }
             */
            details?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            };
            /** @example {} */
            error?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "database": {
             *         "status": "up",
             *         "responseTime": 12
             *       }
             *     }
             */
            info?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example ok
             * @enum {string}
             */
            status?: 'ok' | 'degraded';
          };
        };
      };
      /** @description The Health Check is not successful */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @example {
             *       "database": {
             *         "status": "up",
             *         "responseTime": 12
             *       },
             *       "redis": {
             *         "status": "down",
             *         "message": "Could not connect",
             *         "responseTime": 3005
             *       }
             *     }
             */
            details?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            };
            /**
             * @example {
             *       "redis": {
             *         "status": "down",
             *         "message": "Could not connect",
             *         "responseTime": 3005
             *       }
             *     }
             */
            error?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "database": {
             *         "status": "up",
             *         "responseTime": 12
             *       }
             *     }
             */
            info?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example error
             * @enum {string}
             */
            status?: 'error' | 'shutting_down';
          };
        };
      };
    };
  };
  MetricsController_metrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Prometheus text exposition format */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description gateway.metricsToken is set and the bearer token is missing or wrong */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description gateway.metricsToken is not set and the scrape comes from another machine */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminOperatorsController_activity: {
    parameters: {
      query?: {
        /** @description The nextCursor of the previous page */
        cursor?: string;
        /** @description Entries per page (default 50) */
        limit?: number;
        /** @description Only changes to this: partner:<id>, message:<id>, operator:<id> */
        target?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActivityPageSchema'];
        };
      };
      /** @description Invalid limit, cursor or target */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminDryRunsController_previewEdi: {
    parameters: {
      query: {
        /** @description 1: every set, streamed as application/x-ndjson instead of one page */
        full?: '1' | '0';
        /** @description The partner whose settings apply */
        partner: string;
        /** @description The nextSetsAfter of the previous page (sets skipped, from 0) */
        setsAfter?: number;
        /** @description Transaction sets per page, 1–1000 (default 100) */
        setsLimit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** @description The X12 interchange(s), as text (application/edi-x12, application/edi, text/plain or octet-stream) */
    requestBody: {
      content: {
        'application/edi': string;
        'application/edi-x12': string;
        'application/octet-stream': string;
        'text/plain': string;
      };
    };
    responses: {
      /** @description One page of the sets (JSON); with full=1, application/x-ndjson: a line per set as it is mapped ({"type":"set",...}), per interchange as it ends ({"type":"interchange",...,"refusedAtEnd"}: true means none of its sets goes out after all), per problem outside interchanges ({"type":"problem","message"}; "refusesPayload": true means nothing of the file goes out), and last {"type":"summary",...} */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EdiPreviewSchema'];
          'application/x-ndjson': string;
        };
      };
      /** @description No partner named, an empty body, an invalid page, or a partner without settings.edi */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Body over gateway.bodyLimitBytes */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminOperatorsController_me: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OperatorMeSchema'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminMessagesController_search: {
    parameters: {
      query?: {
        /** @description Any of these channels (repeated, or one comma list) */
        channel?: ('api' | 'sftp' | 'http-edi' | 'webhook' | 'replay' | 'export')[];
        /** @description The nextCursor of the previous page */
        cursor?: string;
        /** @description A document id one of its operations writes */
        documentId?: string;
        /** @description The file it came in or went out as, exactly (SFTP and HTTP uploads, export files) */
        fileName?: string;
        /** @description Received at or after (ISO 8601) */
        from?: string;
        /** @description An interchange control number (ISA13); `123` finds `000000123` */
        interchange?: string;
        /** @description Page size */
        limit?: number;
        /** @description The partner's id */
        partner?: string;
        /** @description Any of these statuses (repeated, or one comma list) */
        status?: (
          | 'received'
          | 'translating'
          | 'delivering'
          | 'delivered'
          | 'partially_failed'
          | 'failed'
          | 'rejected'
          | 'duplicate'
          | 'superseded'
        )[];
        /** @description Words in the message's reason (why it failed or was rejected), case-insensitive */
        text?: string;
        /** @description Received before (ISO 8601) */
        to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MessagePageSchema'];
        };
      };
      /** @description A filter, limit or cursor is invalid; `details` names each */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminMessagesController_detail: {
    parameters: {
      query?: {
        /** @description The nextOperationsAfter of the previous page (an operation seq, from 0) */
        operationsAfter?: number;
        /** @description Operations per page, 1–1000 (default 50) */
        operationsLimit?: number;
      };
      header?: never;
      path: {
        /** @description The message */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MessageDetailSchema'];
        };
      };
      /** @description The id is not a UUID, or the page of operations is invalid */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such message */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminMessagesController_end: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The message */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['EndMessageDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EndedMessageSchema'];
        };
      };
      /** @description Invalid request: the reason is required */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such message */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Not being delivered (`status`), or operations being sent (`inFlight`, `inFlightUntil`): nothing was ended */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminMessagesController_payload: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The message */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The payload bytes, with the content type they were received with and their content-length */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/edi-x12': string;
          'application/json': string;
          'application/octet-stream': string;
        };
      };
      /** @description The id is not a UUID */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such message */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminMessagesController_replay: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The message to replay */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['ReplayDto'];
      };
    };
    responses: {
      /** @description The replay is recorded; delivery follows */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ReplayResultSchema'];
        };
      };
      /** @description Invalid request, or an edited payload that is not a valid message (`details` by path) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such message */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Not replayable: nothing to retry (failed-only), refused at ingress, organisations outside the profile, ... */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminMessagesController_counts: {
    parameters: {
      query?: {
        /** @description Any of these channels (repeated, or one comma list) */
        channel?: ('api' | 'sftp' | 'http-edi' | 'webhook' | 'replay' | 'export')[];
        /** @description A document id one of its operations writes */
        documentId?: string;
        /** @description The file it came in or went out as, exactly (SFTP and HTTP uploads, export files) */
        fileName?: string;
        /** @description Received at or after (ISO 8601) */
        from?: string;
        /** @description An interchange control number (ISA13); `123` finds `000000123` */
        interchange?: string;
        /** @description The partner's id */
        partner?: string;
        /** @description Any of these statuses (repeated, or one comma list) */
        status?: (
          | 'received'
          | 'translating'
          | 'delivering'
          | 'delivered'
          | 'partially_failed'
          | 'failed'
          | 'rejected'
          | 'duplicate'
          | 'superseded'
        )[];
        /** @description Words in the message's reason (why it failed or was rejected), case-insensitive */
        text?: string;
        /** @description Received before (ISO 8601) */
        to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MessageCountsSchema'];
        };
      };
      /** @description A filter is invalid; `details` names each */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminMessagesController_replayMany: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['BulkReplayDto'];
      };
    };
    responses: {
      /** @description Dry run: {dryRun: true, matching, skipped: [{id, reason}], limitReached?: the cap} */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BulkReplayDryRunSchema'];
        };
      };
      /** @description Real run queued: {dryRun: false, runId, status: queued, limit, location}; Location header: /v1/admin/replays/{runId} */
      202: {
        headers: {
          /** @description Where the run is read: /v1/admin/replays/{runId} */
          Location?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BulkReplayStartedSchema'];
        };
      };
      /** @description Invalid filter or options; `details` names each */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The run could not be queued (Redis away); it is recorded failed with the reason */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminOperatorsController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OperatorTokenSchema'][];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminOperatorsController_issue: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['IssueOperatorTokenDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IssuedOperatorTokenSchema'];
        };
      };
      /** @description Invalid name or role, or an expiry not in the future */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description An active token has that name: revoke it first */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminOperatorsController_revoke: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The token's id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The token, revoked */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OperatorTokenSchema'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such token */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PartnerSchema'][];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PartnerWithKeysSchema'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_put: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['PartnerProfileBodySchema'];
      };
    };
    responses: {
      /** @description The profile as stored */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PartnerSchema'];
        };
      };
      /** @description Invalid profile; `details` names each field (unknown fields included) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description A partner file owns it: edit the file, or adopt it first */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_adopt: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The partner, now source api */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PartnerSchema'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_issueKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['IssueKeyDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IssuedApiKeySchema'];
        };
      };
      /** @description Invalid label, or an expiry that is not in the future */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_revokeKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
        /** @description The key's id */
        keyId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The key, revoked (revoking twice is harmless) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeySchema'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such key of this partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_setEnabled: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['EnabledBodySchema'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PartnerSchema'];
        };
      };
      /** @description enabled is not true or false */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_publishMapping: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['PublishMappingDto'];
      };
    };
    responses: {
      /** @description The new version */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PartnerMappingSchema'];
        };
      };
      /** @description The expression is missing or does not compile */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description A partner file owns the partner (and its mapping) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminDryRunsController_tryMapping: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MappingTrialDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MappingTrialSchema'];
        };
      };
      /** @description No sample, or no expression and nothing published */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_mappingVersions: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PartnerMappingSchema'][];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_release: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The partner as its file defines it */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PartnerSchema'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No partner file defines it */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_listSftpUsers: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SftpUserSchema'][];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_addSftpUser: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SftpUserDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SftpUserSchema'];
        };
      };
      /** @description Invalid username, password or public key; or neither given */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_revokeSftpUser: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
        /** @description The SFTP username */
        username: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The user, revoked */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SftpUserSchema'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such SFTP user of this partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_listSecrets: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSecretSchema'][];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_addSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AddSecretDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AddedWebhookSecretSchema'];
        };
      };
      /** @description Invalid label, secret or expiry */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminPartnersController_expireSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The partner's id (a slug) */
        id: string;
        /** @description The secret's id */
        secretId: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['ExpireSecretDto'];
      };
    };
    responses: {
      /** @description The secret with its expiry */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookSecretSchema'];
        };
      };
      /** @description Invalid secretId or time */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner or secret */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminMessagesController_listRuns: {
    parameters: {
      query?: {
        /** @description Runs to list, 1–100 (default 20) */
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ReplayRunListSchema'];
        };
      };
      /** @description limit is not a whole number from 1 to 100 */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminMessagesController_run: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The runId the bulk replay answered */
        runId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ReplayRunSchema'];
        };
      };
      /** @description The runId is not a UUID */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The token's role does not allow this */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such run */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  AdminStatsController_read: {
    parameters: {
      query?: {
        /** @description The window, 1–48 hours (default 6) */
        hours?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DashboardStatsSchema'];
        };
      };
      /** @description hours is not a whole number from 1 to 48 */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing or wrong admin token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  EdiController_upload: {
    parameters: {
      query?: {
        /** @description The file's name, recorded so the message can be found by it (admin search fileName) */
        fileName?: string;
      };
      header?: {
        /** @description The partner API key */
        'X-API-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    /** @description The X12 file as sent (application/edi-x12, application/edi, text/plain or octet-stream): UTF-8, or kept as latin1; up to sftp.maxFileBytes (256 MiB by default), not gateway.bodyLimitBytes */
    requestBody: {
      content: {
        'application/edi': string;
        'application/edi-x12': string;
        'application/octet-stream': string;
        'text/plain': string;
      };
    };
    responses: {
      /** @description Recorded durably; translation, acknowledgment and delivery follow */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AcceptedSchema'];
        };
      };
      /** @description An empty body, a body with a NUL byte (X12 is text), or a fileName an SFTP file could not have */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing, unknown, expired or revoked API key (the connection is closed) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Body over sftp.maxFileBytes (256 MiB by default), naming the limit: refused as soon as it crosses it (a declared Content-Length over it before a byte is read), and the connection closed; nothing is recorded */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The gateway is receiving its most uploads at once (SFTP and HTTP: sftp.maxConcurrentUploads, or sftp.maxUploadsPerPartner of this partner), or they hold sftp.maxHeldBytes not yet stored; try again shortly */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  EdiController_preview: {
    parameters: {
      query?: {
        /** @description 1: every set, streamed as application/x-ndjson instead of one page */
        full?: '1' | '0';
        /** @description The nextSetsAfter of the previous page (sets skipped, from 0) */
        setsAfter?: number;
        /** @description Transaction sets per page, 1–1000 (default 100) */
        setsLimit?: number;
      };
      header?: {
        /** @description The partner API key */
        'X-API-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    /** @description The X12 interchange(s), as text (application/edi-x12, application/edi, text/plain or octet-stream) */
    requestBody: {
      content: {
        'application/edi': string;
        'application/edi-x12': string;
        'application/octet-stream': string;
        'text/plain': string;
      };
    };
    responses: {
      /** @description One page of the sets (JSON); with full=1, application/x-ndjson: a line per set as it is mapped ({"type":"set",...}), per interchange as it ends ({"type":"interchange",...,"refusedAtEnd"}: true means none of its sets goes out after all), per problem outside interchanges ({"type":"problem","message"}; "refusesPayload": true means nothing of the file goes out), and last {"type":"summary",...} */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EdiPreviewSchema'];
          'application/x-ndjson': string;
        };
      };
      /** @description An empty body, an invalid page, or a partner without settings.edi */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing, unknown, expired or revoked API key (the connection is closed) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Body over gateway.bodyLimitBytes */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  MessagesController_submit: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: a repeat with the same key and the same body is answered 200 with the original messageId and records nothing; the same key with another body is 422. 1–255 visible ASCII characters, unique per partner. */
        'Idempotency-Key'?: string;
        /** @description The partner API key (or Authorization: Bearer <key>) */
        'X-API-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CanonicalMessageSchema'];
      };
    };
    responses: {
      /** @description A repeat of an Idempotency-Key with the same body: nothing new recorded. Body: {messageId, status: current status, repeat: true} */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AcceptedSchema'];
        };
      };
      /** @description Recorded durably; delivery follows. Body: {messageId, status} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AcceptedSchema'];
        };
      };
      /** @description Invalid body, or an operation on an organisation outside the partner's profile; `details` names each offending field or operation. Nothing is accepted. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing, unknown, expired or revoked API key (the connection is closed) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Body over gateway.bodyLimitBytes */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The body is not sent as application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description The Idempotency-Key was used before with a different body */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  MessagesController_status: {
    parameters: {
      query?: {
        /** @description The nextAfter of the previous page (an operation seq, from 0) */
        after?: number;
        /** @description Operations per page, 1–1000 (default 200) */
        limit?: number;
      };
      header?: {
        /** @description The partner API key (or Authorization: Bearer <key>) */
        'X-API-Key'?: string;
      };
      path: {
        /** @description The messageId the submission answered */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PartnerMessageStatusSchema'];
        };
      };
      /** @description The id is not a UUID, or the page is invalid */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Missing, unknown, expired or revoked API key (the connection is closed) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such message of this partner */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  WebhooksController_receive: {
    parameters: {
      query?: never;
      header?: {
        /** @description Standard Webhooks: the message id, signed, and the idempotency key (a repeat answers 200); or the header the partner's settings.webhook.idempotencyHeader names */
        'webhook-id'?: string;
        /** @description Standard Webhooks: space-separated v1,<base64 HMAC-SHA256 of "id.timestamp.body"> with one of the partner's secrets */
        'webhook-signature'?: string;
        /** @description Standard Webhooks: seconds since the epoch, signed; within settings.webhook.toleranceSeconds (300) */
        'webhook-timestamp'?: string;
        /** @description hmac verification: the HMAC of the body with one of the partner's secrets, in the header its settings.webhook.signatureHeader names (e.g. x-tms-signature; algorithm, encoding and prefix as set there) */
        'X-Signature'?: string;
        /** @description api-key verification: one of the partner's secrets, in the header its settings.webhook.apiKeyHeader names */
        'X-Webhook-Key'?: string;
      };
      path: {
        /** @description The partner's id */
        partner: string;
      };
      cookie?: never;
    };
    /** @description Any JSON: its exact bytes are verified and recorded, then mapped with the partner’s JSONata mapping (a body that is not JSON is recorded and rejected with the reason) */
    requestBody: {
      content: {
        'application/json': {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description A repeat of an earlier webhook-id: {messageId} of the original, {duplicate: true}, not processed again */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookReceivedSchema'];
        };
      };
      /** @description Recorded; {messageId, status: received} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookReceivedSchema'];
        };
      };
      /** @description Verified, but the body is not UTF-8 text, holds a NUL byte, or is shaped past the limits (recorded with the reason) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Verification failed (recorded with the reason) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description No such partner, disabled, or without settings.webhook */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description Body over the partner limit (recorded as a rejected request) */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
}
