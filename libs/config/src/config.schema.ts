import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min, MinLength, ValidateNested } from 'class-validator';

/** "on", "true", "1", "yes" (any case) are true; "off", "false", "0", "no" false; anything else stays as is and fails validation. */
const toBoolean = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
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

export class AppConfig {
  @ValidateNested() @Type(() => SandboxConfig) sandbox = new SandboxConfig();
  @ValidateNested() @Type(() => LogConfig) log = new LogConfig();
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
};
