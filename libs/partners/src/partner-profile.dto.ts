import { plainToInstance, Type } from 'class-transformer';
import { FieldProblem, fieldProblems, inheritedName } from '@dockbridge/platform';
import { INTERCHANGE_ID_QUALIFIER } from '@dockbridge/x12';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
  validateSync,
} from 'class-validator';
import { PARTNER_ID_PATTERN } from './entities/partner.entity';
import {
  DirectoryEntry,
  MAX_WEBHOOK_BODY_BYTES,
  PartnerEdiSettings,
  PartnerExportSettings,
  PartnerProfileInput,
  PartnerSettings,
  PartnerWebhookSettings,
} from './partner.types';

const CODE = /^[A-Za-z0-9 ._:/-]{1,80}$/;

export class DocumentSettingsDto {
  @IsOptional() @IsIn(['Free', 'Fixed', 'Flexible']) mode?: 'Free' | 'Fixed' | 'Flexible';
  @IsOptional() @IsInt() @Min(1) maxUses?: number;
}

/** An interchange id as ISA05/ISA06 hold it: a 2-character qualifier and an id of 1 to 15 characters. */
export class InterchangeIdDto {
  @IsString()
  // Table I05: a strict partner refuses any other in our ISA05.
  @Matches(INTERCHANGE_ID_QUALIFIER, {
    message: 'qualifier must be an ISA05 qualifier of table I05 (01 to 38, AM, NR, SA, SN or ZZ)',
  })
  qualifier: string;
  // Letters, digits, spaces and - . / only: acknowledgments use the partner's separators, which may be any other character.
  @IsString()
  @Matches(/^[A-Za-z0-9 ./-]{1,15}$/, { message: 'id must be an ISA06 id of 1 to 15 letters, digits, spaces or - . /' })
  id: string;
}

export class PartnerEdiSettingsDto implements PartnerEdiSettings {
  @IsArray()
  @ArrayMinSize(1)
  @IsString({ each: true })
  @Matches(/^[^*~|^>]{1,15}$/, { each: true, message: 'each of senderIds must be an ISA06 id of 1 to 15 characters' })
  senderIds: string[];
  @IsString() @MinLength(1) @MaxLength(100) coreName: string;
  @IsOptional() @IsArray() @IsString({ each: true }) locationCodes?: string[];
  @IsOptional() @IsIn(['Inbound', 'Outbound']) defaultDirection?: 'Inbound' | 'Outbound';
  @IsOptional() @IsObject() @ValidateNested() @Type(() => DocumentSettingsDto) documentSettings?: DocumentSettingsDto;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) defaultLoadName?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) loadTagQualifiers?: string[];
  @IsOptional() @IsInt() @Min(0) @Max(3650) duplicateWindowDays?: number;
  @IsOptional() @IsIn(['997', '999']) acknowledgment?: '997' | '999';
  @IsOptional() @IsObject() @ValidateNested() @Type(() => InterchangeIdDto) interchangeId?: InterchangeIdDto;
  @IsOptional() @IsBoolean() rejectSetsWithSegmentErrors?: boolean;
}

export class DirectoryOrgRefDto {
  @ValidateIf((o: DirectoryOrgRefDto) => o.coreName === undefined && o.coreId === undefined) @IsUUID('all') id?: string;
  @ValidateIf((o: DirectoryOrgRefDto) => o.id === undefined) @IsString() @MinLength(1) coreName?: string;
  @ValidateIf((o: DirectoryOrgRefDto) => o.id === undefined) @IsString() @MinLength(1) coreId?: string;
}

export class DirectoryEntryDto implements DirectoryEntry {
  @ValidateIf((o: DirectoryEntryDto) => o.scac === undefined) @IsString() @Matches(CODE) qualifier?: string;
  @ValidateIf((o: DirectoryEntryDto) => o.scac === undefined) @IsString() @Matches(CODE) code?: string;
  @ValidateIf((o: DirectoryEntryDto) => o.qualifier === undefined && o.code === undefined)
  @IsString()
  @Matches(/^[A-Z0-9]{2,4}$/, { message: 'scac must be 2 to 4 capital letters or digits' })
  scac?: string;
  @IsObject() @ValidateNested() @Type(() => DirectoryOrgRefDto) organisation: DirectoryOrgRefDto;
}

export class PartnerWebhookSettingsDto implements PartnerWebhookSettings {
  @IsIn(['standard-webhooks', 'hmac', 'api-key']) verification: 'standard-webhooks' | 'hmac' | 'api-key';
  @ValidateIf((o: PartnerWebhookSettingsDto) => o.verification === 'hmac')
  @IsString()
  @Matches(/^[A-Za-z0-9-]{1,100}$/)
  signatureHeader?: string;
  @IsOptional() @IsIn(['sha256', 'sha512']) algorithm?: 'sha256' | 'sha512';
  @IsOptional() @IsIn(['hex', 'base64']) encoding?: 'hex' | 'base64';
  @IsOptional() @IsString() @MaxLength(50) prefix?: string;
  @ValidateIf((o: PartnerWebhookSettingsDto) => o.verification === 'api-key')
  @IsString()
  @Matches(/^[A-Za-z0-9-]{1,100}$/)
  apiKeyHeader?: string;
  @IsOptional() @IsInt() @Min(1) @Max(MAX_WEBHOOK_BODY_BYTES) maxBodyBytes?: number;
  @IsOptional() @IsInt() @Min(1) @Max(86_400) toleranceSeconds?: number;
  @IsOptional() @IsString() @Matches(/^[A-Za-z0-9-]{1,100}$/) idempotencyHeader?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(500) idempotencyPath?: string;
}

export class PartnerExportSettingsDto implements PartnerExportSettings {
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9-]{0,62}$/, { message: 'id must be a slug (lowercase letters, digits, hyphens)' })
  id: string;
  @ValidateIf((o: PartnerExportSettingsDto) => o.cron === undefined) @IsInt() @Min(1000) everyMs?: number;
  @ValidateIf((o: PartnerExportSettingsDto) => o.everyMs === undefined)
  @IsString()
  @Matches(/^(\S+\s+){4,5}\S+$/, { message: 'cron must be a cron pattern of 5 or 6 fields' })
  cron?: string;
  @IsUUID('all') layoutId: string;
  @IsOptional() @IsObject() filter?: Record<string, unknown>;
  @IsOptional() @IsIn(['bookings', 'tasks']) viewAs?: 'bookings' | 'tasks';
  @IsIn(['csv', 'json']) format: 'csv' | 'json';
  @IsOptional() @IsBoolean() sftp?: boolean;
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }) url?: string;
}

/** Delivery settings, plus the sections of each ingress kind (`edi` so far) and the party directory. */
export class PartnerSettingsDto implements PartnerSettings {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsUUID('all', { each: true, message: 'each of organisations must be a platform organisation UUID' })
  organisations?: string[];
  @IsOptional() @IsBoolean() enableBaseOrgs?: boolean;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) selfCoreId?: string;
  @IsOptional() @IsInt() @Min(1) batchThreshold?: number;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => PartnerEdiSettingsDto) edi?: PartnerEdiSettingsDto;
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PartnerWebhookSettingsDto)
  webhook?: PartnerWebhookSettingsDto;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => PartnerExportSettingsDto)
  exports?: PartnerExportSettingsDto[];
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100_000)
  @ValidateNested({ each: true })
  @Type(() => DirectoryEntryDto)
  directory?: DirectoryEntryDto[];
}

/** A partner profile as the admin API and the YAML files give it. */
export class PartnerProfileDto {
  @IsString()
  @Matches(PARTNER_ID_PATTERN, {
    message:
      '$property must be a slug of 2 to 63 characters: lowercase letters, digits and hyphens, not starting with a hyphen',
  })
  id: string;

  @IsString() @MinLength(1) @MaxLength(200) name: string;

  /** Absent: true for a new partner, unchanged for an existing one. */
  @IsOptional() @IsBoolean() enabled?: boolean;

  @IsUUID('all', { message: '$property must be a UUID (the platform location organisation)' })
  locationOrganisationId: string;

  /** Name of a platform account in the configuration (`platform.accounts[].name`). */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) platformAccount?: string;

  @IsOptional() @IsObject() @ValidateNested() @Type(() => PartnerSettingsDto) settings?: PartnerSettingsDto;
}

/** `apiKeys` entry of a YAML file: the key is read from an environment variable, never written in the file. */
export class ApiKeyFromEnvDto {
  @IsString() @MinLength(1) @MaxLength(100) label: string;
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: '$property must be an environment variable name' })
  keyEnv: string;
  @IsOptional() @IsISO8601({ strict: true }) expiresAt?: string;
}

/** `apiKeyHashes` entry of a YAML file: the SHA-256 (hex) of a key the partner holds. */
export class ApiKeyHashDto {
  @IsString() @MinLength(1) @MaxLength(100) label: string;
  @IsString()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: '$property must be the hex SHA-256 of the whole key (64 hex digits)' })
  sha256: string;
  /** The 8 characters after `dbk_`, to show operators; optional. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{8}$/, { message: '$property must be the 8 characters after dbk_' })
  keyPrefix?: string;
  @IsOptional() @IsISO8601({ strict: true }) expiresAt?: string;
}

/** One `config/partners/*.yaml` file: a profile plus the keys it may authenticate with. */
/** `webhookSecrets` entry of a YAML file: the secret is read from an environment variable. */
export class WebhookSecretFromEnvDto {
  @IsString() @MinLength(1) @MaxLength(100) label: string;
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: '$property must be an environment variable name' })
  secretEnv: string;
}

/** `sftpUsers` entry of a YAML file: the password comes from an environment variable; a public key may be written out. */
export class SftpUserFromFileDto {
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9._-]{1,62}$/, {
    message: '$property must be 2 to 63 lowercase letters, digits, dots, underscores or hyphens',
  })
  username: string;
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: '$property must be an environment variable name' })
  passwordEnv?: string;
  @IsOptional() @IsString() @MinLength(20) publicKey?: string;
}

export class PartnerFileDto extends PartnerProfileDto {
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => SftpUserFromFileDto)
  sftpUsers?: SftpUserFromFileDto[];
  /** Path of the partner's JSONata webhook mapping, relative to the YAML file; a changed file publishes a new version. */
  @IsOptional() @IsString() @MinLength(1) webhookMapping?: string;
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => WebhookSecretFromEnvDto)
  webhookSecrets?: WebhookSecretFromEnvDto[];
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => ApiKeyFromEnvDto) apiKeys?: ApiKeyFromEnvDto[];
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => ApiKeyHashDto) apiKeyHashes?: ApiKeyHashDto[];
}

export type { FieldProblem };

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] };

/** Validates plain data against a DTO class: unknown fields are refused by name, nothing is coerced. */
export function validateDto<T extends object>(cls: new () => T, plain: unknown): ValidationResult<T> {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { ok: false, problems: [{ field: '', message: 'must be a mapping (an object) of profile fields' }] };
  }
  // class-validator's whitelist finds Object.prototype's names (`toString`) on every object, and
  // class-transformer throws on a `constructor` holding an object: such a field is refused first.
  const inherited = inheritedName(plain);
  if (inherited !== undefined) {
    return { ok: false, problems: [{ field: inherited, message: 'is not a profile field' }] };
  }
  const instance = plainToInstance(cls, plain);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
  return errors.length === 0 ? { ok: true, value: instance } : { ok: false, problems: fieldProblems(errors) };
}

/** The repository's input from a validated DTO (drops class instances and absent fields). */
export function toProfileInput(dto: PartnerProfileDto): PartnerProfileInput {
  const settings: PartnerSettings = {};
  for (const [key, value] of Object.entries(dto.settings ?? {})) {
    if (value !== undefined) {
      (settings as Record<string, unknown>)[key] = value;
    }
  }
  return {
    id: dto.id,
    name: dto.name,
    ...(dto.enabled !== undefined ? { enabled: dto.enabled } : {}),
    locationOrganisationId: dto.locationOrganisationId,
    platformAccount: dto.platformAccount ?? null,
    settings,
  };
}
