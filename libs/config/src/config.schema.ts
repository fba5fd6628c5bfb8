import { Transform, Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

/** "on", "true", "1", "yes" (any case) are true; "off", "false", "0", "no" false; anything else stays as is and fails validation. */
const toBoolean = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') {
    return value;
  }
  const v = value.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) {
    return true;
  }
  if (['off', 'false', '0', 'no'].includes(v)) {
    return false;
  }
  return value;
};

export class SandboxConfig {
  @IsString() @MinLength(1) host = '127.0.0.1';
  @IsInt() @Min(0) @Max(65535) port = 4010;
  /** JSON seed file: the only way sandbox state is provisioned. */
  @IsString() @MinLength(1) seedPath = 'config/sandbox.seed.json';
  /** Enables the unauthenticated `/__sandbox` controls (faults, reset, stats). */
  @Transform(toBoolean) @IsBoolean() controls = false;
  /** Largest request body the sandbox accepts, in bytes (a 25,000-document batch is ~15 MB). */
  @IsInt() @Min(1024) bodyLimitBytes = 64 * 1024 * 1024;
}

export class LogConfig {
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) level = 'info';
  @Transform(toBoolean) @IsBoolean() pretty = false;
}

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

export class DatabaseConfig {
  /** Postgres URL; without one the embedded PGlite in `dataDir` is used (one machine, first look). */
  @IsOptional() @Matches(/^postgres(ql)?:\/\//, { message: 'url must be a postgres:// URL' }) url?: string;
  @IsString() @MinLength(1) dataDir = 'data/pglite';
  /** Postgres connections per process. */
  @IsInt() @Min(1) @Max(500) poolSize = 20;
  /** Apply pending migrations at start-up (else run `npm run migrate`). */
  @Transform(toBoolean) @IsBoolean() migrateOnStart = true;
}

/** How long the audit store keeps settled messages (with their operations, attempts and events). */
export class AuditConfig {
  /** Days a delivered, rejected or duplicate message is kept after it settled; 0 keeps them forever. */
  @IsInt() @Min(0) @Max(36_500) retentionDays = 90;
  /** Days a failed or partially failed message is kept (longer: it may still be replayed); 0 keeps them forever. */
  @IsInt() @Min(0) @Max(36_500) failedRetentionDays = 365;
}

/** The key that encrypts secrets kept readable (webhook signing secrets) at rest. */
export class SecretsConfig {
  /** Base64 of 32 random bytes; every replica must have the same (e.g. SECRETS_KEY from a secret store). */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'key must be base64 of 32 bytes (openssl rand -base64 32)' })
  key?: string;
  /** Without `key`: the key file, created on first start when `generateKey` is on (one machine, development). */
  @IsString() @MinLength(1) keyPath = 'data/secrets.key';
  @Transform(toBoolean) @IsBoolean() generateKey = true;
}

export class RedisConfig {
  @Matches(/^rediss?:\/\//, { message: 'url must be a redis:// or rediss:// URL' }) url = 'redis://127.0.0.1:6379';
  /** Queue key prefix; the braces make it one Redis Cluster hash slot. */
  @IsString() @MinLength(1) prefix = '{dockbridge}';
  /** A Redis Cluster: `host:port` of some of its nodes, comma-separated (the rest are discovered); `url` still gives credentials and TLS. */
  @IsOptional()
  @Matches(/^\s*[^,:\s]+:\d+(\s*,\s*[^,:\s]+:\d+)*\s*$/, {
    message: 'clusterNodes must be host:port pairs separated by commas',
  })
  clusterNodes?: string;
}

/** A platform account: a token acting for one or more organisations (one per location, typically). */
export class PlatformAccountConfig {
  @IsString() @MinLength(1) name: string;
  @IsOptional() @IsUrl(URL_OPTIONS) baseUrl?: string;
  /** The bearer token itself, or `tokenEnv`: the variable that holds it (keeps secrets out of files). */
  @IsOptional() @IsString() @MinLength(1) token?: string;
  @IsOptional() @IsString() @MinLength(1) tokenEnv?: string;
  @IsArray() @IsUUID('all', { each: true }) organisationIds: string[] = [];
}

export class PlatformConfig {
  @IsUrl(URL_OPTIONS) baseUrl = 'http://127.0.0.1:4010';
  /** Token of the default account (used for organisations no account lists). */
  @IsOptional() @IsString() @MinLength(1) token?: string;
  @IsInt() @Min(100) @Max(600_000) timeoutMs = 10_000;
  @ValidateNested({ each: true }) @Type(() => PlatformAccountConfig) accounts: PlatformAccountConfig[] = [];
}

export class DeliveryConfig {
  /** How long retryable failures (5xx, 429, timeouts; the database away, for translation) are retried: a duration, not a count. */
  @IsInt() @Min(1000) retryHorizonMs = 24 * 3600_000;
  /** A cap on tries besides the horizon (the first try included); 0 for none. */
  @IsInt() @Min(0) @Max(1_000_000) attempts = 0;
  @IsInt() @Min(1) backoffBaseMs = 500;
  /** The longest wait between two tries. */
  @IsInt() @Min(1) backoffMaxMs = 10 * 60_000;
  /** Retryable failures in a row to one platform account after which its deliveries pause and one probe tests it. */
  @IsInt() @Min(1) breakerThreshold = 5;
  /** A message with at least this many document upserts (or deletes) for one location goes through batch jobs. */
  @IsInt() @Min(1) batchThreshold = 100;
  @IsInt() @Min(1) @Max(25_000) batchSize = 25_000;
  /** A batch job's body stays under this (its documents as JSON): a request body the platform refuses as too large fails every document in it. */
  @IsInt() @Min(64 * 1024) batchMaxBytes = 32 * 1024 * 1024;
  @IsInt() @Min(10) batchPollMs = 250;
  @IsInt() @Min(1) @Max(500) concurrency = 16;
  /** A message or operation without progress for this long is re-enqueued by the sweeper. */
  @IsInt() @Min(1000) sweepStaleMs = 60_000;
  @IsInt() @Min(1000) sweepEveryMs = 30_000;
}

export class GatewayConfig {
  @IsString() @MinLength(1) host = '127.0.0.1';
  @IsInt() @Min(0) @Max(65535) port = 3000;
  /** Bearer token of the admin API; without one the admin API answers 503. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'adminToken must be at least 16 characters' })
  adminToken?: string;
  /** When set, `/metrics` answers only `Authorization: Bearer <metricsToken>`. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'metricsToken must be at least 16 characters' })
  metricsToken?: string;
  /** How long the metrics read from the database and Redis are reused: scrapes never cost more than one refresh per period. */
  @IsInt() @Min(1000) metricsCacheMs = 15_000;
  /** Largest body of the partner and admin APIs (their credential is checked before the body is read). */
  @IsInt() @Min(1024) bodyLimitBytes = 10 * 1024 * 1024;
  /** Largest body of any other route that sets no limit of its own (webhooks have their partner's). */
  @IsInt() @Min(1024) unauthenticatedBodyLimitBytes = 64 * 1024;
  /** Longest a client may take to send a whole request (a slow sender is answered 408 and cut off). */
  @IsInt() @Min(1000) requestTimeoutMs = 60_000;
  /** Longest a connection may stay idle. */
  @IsInt() @Min(1000) connectionTimeoutMs = 120_000;
  /** Open connections one address may hold (0: no cap). Behind a proxy every client shares its address. */
  @IsInt() @Min(0) maxConnectionsPerAddress = 512;
  /** Also run the queue workers in the gateway process. */
  @Transform(toBoolean) @IsBoolean() withWorker = false;
  /** Folder of partner profiles (`*.yaml`) imported at start-up. */
  @IsString() partnersDir = 'config/partners';
  /** Refused webhooks recorded one by one per partner and minute; more are counted in one summary. */
  @IsInt() @Min(1) refusalsPerMinute = 100;
  /** Bytes of refused-webhook records (excerpts, reasons, metadata) written per partner and minute; the rest are counted in a summary. */
  @IsInt() @Min(1024) refusalBytesPerMinute = 64 * 1024;
}

export class SftpConfig {
  @Transform(toBoolean) @IsBoolean() enabled = true;
  @IsString() @MinLength(1) host = '127.0.0.1';
  @IsInt() @Min(0) @Max(65535) port = 2222;
  /** PEM/OpenSSH private host key file; generated (ed25519) on first start when missing and `generateHostKey` is on. */
  @IsString() @MinLength(1) hostKeyPath = 'data/sftp_host_ed25519_key';
  /**
   * Create the key when the file is missing. Off by default: replicas behind one address must share
   * a key, and one that made its own would greet carriers with "REMOTE HOST IDENTIFICATION HAS
   * CHANGED". `npm start` (one machine) turns it on.
   */
  @Transform(toBoolean) @IsBoolean() generateHostKey = false;
  /**
   * Largest file a partner may upload, in bytes. An upload is stored and translated a slice at a
   * time, never as one string; the cap is what partner_file.size (a Postgres integer) holds.
   */
  @IsInt() @Min(1024) @Max(2 ** 31 - 1) maxFileBytes = 256 * 1024 * 1024;
  /**
   * Uploads this process receives at once (each holds a chunk or two, and the writes a client sends
   * out of order, at most 16 MiB); one more is refused at OPEN, saying so, and the client retries.
   */
  @IsInt() @Min(1) @Max(1000) maxConcurrentUploads = 16;
  /** Of those, uploads of one partner at once: one partner cannot take every slot. */
  @IsInt() @Min(1) @Max(1000) maxUploadsPerPartner = 4;
  /**
   * Bytes this process's uploads may hold before they are stored (each at most 24 MiB: a chunk or
   * two, its writes ahead); past it, a new upload is refused at OPEN (503 over HTTP) until they drain.
   */
  @IsInt() @Min(1024 * 1024) maxHeldBytes = 64 * 1024 * 1024;
  /**
   * SSH connections this process holds at once, logged in or not; one more is closed as it opens.
   * Each holds an SSH session's buffers and keys, and a key exchange costs a core milliseconds.
   */
  @IsInt() @Min(1) @Max(100_000) maxConnections = 256;
  /**
   * Connections from one address not logged in yet (OpenSSH's MaxStartups): one more from it is
   * closed as it opens, so one address cannot take every slot with connections that never log in.
   */
  @IsInt() @Min(1) @Max(10_000) maxUnauthenticatedPerAddress = 10;
  /** Logged-in connections of one partner at once: one more is ended as it logs in. */
  @IsInt() @Min(1) @Max(10_000) maxConnectionsPerPartner = 16;
  /** How long a connection may take from its TCP accept to its login; then it is cut (and its slot freed). */
  @IsInt() @Min(1000) @Max(600_000) loginTimeoutMs = 60_000;
  /** Failed logins of one user name, or from one address, after which it is locked out for `lockoutMs`. */
  @IsInt() @Min(1) @Max(1000) maxLoginFailures = 5;
  @IsInt() @Min(1000) lockoutMs = 15 * 60_000;
}

export class WorkerConfig {
  /** The worker's own /health (200 while its queues answer, 503 when not): a port, or 0 for none. */
  @IsInt() @Min(0) @Max(65535) healthPort = 0;
  @IsString() @MinLength(1) healthHost = '127.0.0.1';
  /** How often the worker proves it can reach its queues (and logs when it cannot). */
  @IsInt() @Min(100) queueProbeEveryMs = 5_000;
  /**
   * Stored X12 files over 16 MiB one process translates at once; more wait their turn. Each holds
   * ~10 MiB more while it is read and mapped: memory against translation speed (bench/README.md).
   */
  @IsInt() @Min(1) @Max(64) largeFilesAtOnce = 1;
  /**
   * Bytes of payload text one process holds parsed at once: payloads read whole to be translated
   * (JSON messages, stored uploads other than X12) and operations being delivered; more wait their
   * turn, and one larger than this goes alone. JSON holds ~5x its text as objects (more for small
   * values, weighed by their count): the worker's heap must hold this 5 times over.
   */
  @IsInt() @Min(1024 * 1024) textBytesAtOnce = 16 * 1024 * 1024;
  /**
   * How long a running job stays taken without its worker renewing it (every half of this): a
   * worker that died has its jobs taken up by another after one to two of these. BullMQ's default.
   */
  @IsInt() @Min(1000) jobLockMs = 30_000;
}

export class AppConfig {
  @ValidateNested() @Type(() => SandboxConfig) sandbox = new SandboxConfig();
  @ValidateNested() @Type(() => LogConfig) log = new LogConfig();
  @ValidateNested() @Type(() => DatabaseConfig) database = new DatabaseConfig();
  @ValidateNested() @Type(() => AuditConfig) audit = new AuditConfig();
  @ValidateNested() @Type(() => SecretsConfig) secrets = new SecretsConfig();
  @ValidateNested() @Type(() => RedisConfig) redis = new RedisConfig();
  @ValidateNested() @Type(() => PlatformConfig) platform = new PlatformConfig();
  @ValidateNested() @Type(() => DeliveryConfig) delivery = new DeliveryConfig();
  @ValidateNested() @Type(() => GatewayConfig) gateway = new GatewayConfig();
  @ValidateNested() @Type(() => SftpConfig) sftp = new SftpConfig();
  @ValidateNested() @Type(() => WorkerConfig) worker = new WorkerConfig();
  @IsOptional() @IsString() environment?: string;
}

/** Environment variables and the configuration key each one sets. Nothing else reads process.env. */
export const ENV_KEYS: Readonly<Record<string, string>> = {
  NODE_ENV: 'environment',
  LOG_LEVEL: 'log.level',
  LOG_PRETTY: 'log.pretty',
  SANDBOX_HOST: 'sandbox.host',
  SANDBOX_PORT: 'sandbox.port',
  SANDBOX_SEED: 'sandbox.seedPath',
  SANDBOX_CONTROLS: 'sandbox.controls',
  SANDBOX_BODY_LIMIT_BYTES: 'sandbox.bodyLimitBytes',
  DATABASE_URL: 'database.url',
  DATABASE_DATA_DIR: 'database.dataDir',
  DATABASE_MIGRATE_ON_START: 'database.migrateOnStart',
  DATABASE_POOL_SIZE: 'database.poolSize',
  AUDIT_RETENTION_DAYS: 'audit.retentionDays',
  AUDIT_FAILED_RETENTION_DAYS: 'audit.failedRetentionDays',
  SECRETS_KEY: 'secrets.key',
  SECRETS_KEY_PATH: 'secrets.keyPath',
  SECRETS_GENERATE_KEY: 'secrets.generateKey',
  REDIS_URL: 'redis.url',
  REDIS_PREFIX: 'redis.prefix',
  REDIS_CLUSTER_NODES: 'redis.clusterNodes',
  PLATFORM_BASE_URL: 'platform.baseUrl',
  PLATFORM_TOKEN: 'platform.token',
  PLATFORM_TIMEOUT_MS: 'platform.timeoutMs',
  DELIVERY_ATTEMPTS: 'delivery.attempts',
  DELIVERY_RETRY_HORIZON_MS: 'delivery.retryHorizonMs',
  DELIVERY_BREAKER_THRESHOLD: 'delivery.breakerThreshold',
  DELIVERY_SWEEP_STALE_MS: 'delivery.sweepStaleMs',
  DELIVERY_SWEEP_EVERY_MS: 'delivery.sweepEveryMs',
  DELIVERY_BACKOFF_BASE_MS: 'delivery.backoffBaseMs',
  DELIVERY_BACKOFF_MAX_MS: 'delivery.backoffMaxMs',
  DELIVERY_BATCH_THRESHOLD: 'delivery.batchThreshold',
  DELIVERY_BATCH_MAX_BYTES: 'delivery.batchMaxBytes',
  DELIVERY_CONCURRENCY: 'delivery.concurrency',
  GATEWAY_HOST: 'gateway.host',
  GATEWAY_PORT: 'gateway.port',
  ADMIN_TOKEN: 'gateway.adminToken',
  METRICS_TOKEN: 'gateway.metricsToken',
  GATEWAY_METRICS_CACHE_MS: 'gateway.metricsCacheMs',
  PARTNERS_DIR: 'gateway.partnersDir',
  GATEWAY_WITH_WORKER: 'gateway.withWorker',
  GATEWAY_REFUSALS_PER_MINUTE: 'gateway.refusalsPerMinute',
  GATEWAY_REFUSAL_BYTES_PER_MINUTE: 'gateway.refusalBytesPerMinute',
  GATEWAY_BODY_LIMIT_BYTES: 'gateway.bodyLimitBytes',
  GATEWAY_UNAUTHENTICATED_BODY_LIMIT_BYTES: 'gateway.unauthenticatedBodyLimitBytes',
  GATEWAY_REQUEST_TIMEOUT_MS: 'gateway.requestTimeoutMs',
  GATEWAY_CONNECTION_TIMEOUT_MS: 'gateway.connectionTimeoutMs',
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: 'gateway.maxConnectionsPerAddress',
  SFTP_ENABLED: 'sftp.enabled',
  SFTP_HOST: 'sftp.host',
  SFTP_PORT: 'sftp.port',
  SFTP_HOST_KEY_PATH: 'sftp.hostKeyPath',
  SFTP_GENERATE_HOST_KEY: 'sftp.generateHostKey',
  SFTP_MAX_FILE_BYTES: 'sftp.maxFileBytes',
  SFTP_MAX_CONCURRENT_UPLOADS: 'sftp.maxConcurrentUploads',
  SFTP_MAX_UPLOADS_PER_PARTNER: 'sftp.maxUploadsPerPartner',
  SFTP_MAX_HELD_BYTES: 'sftp.maxHeldBytes',
  SFTP_MAX_CONNECTIONS: 'sftp.maxConnections',
  SFTP_MAX_UNAUTHENTICATED_PER_ADDRESS: 'sftp.maxUnauthenticatedPerAddress',
  SFTP_MAX_CONNECTIONS_PER_PARTNER: 'sftp.maxConnectionsPerPartner',
  SFTP_LOGIN_TIMEOUT_MS: 'sftp.loginTimeoutMs',
  SFTP_MAX_LOGIN_FAILURES: 'sftp.maxLoginFailures',
  SFTP_LOCKOUT_MS: 'sftp.lockoutMs',
  WORKER_HEALTH_PORT: 'worker.healthPort',
  WORKER_HEALTH_HOST: 'worker.healthHost',
  WORKER_QUEUE_PROBE_EVERY_MS: 'worker.queueProbeEveryMs',
  WORKER_LARGE_FILES_AT_ONCE: 'worker.largeFilesAtOnce',
  WORKER_TEXT_BYTES_AT_ONCE: 'worker.textBytesAtOnce',
  WORKER_JOB_LOCK_MS: 'worker.jobLockMs',
};

/** Keys whose values are secrets: never printed, never logged. */
export const SECRET_KEYS = ['platform.token', 'gateway.adminToken', 'gateway.metricsToken', 'database.url'] as const;
