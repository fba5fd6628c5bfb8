import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  API_KEY_SOURCES,
  MAX_WEBHOOK_BODY_BYTES,
  PARTNER_SOURCES,
  type DirectoryEntry,
  type DirectoryOrgRef,
  type IssuedApiKey,
  type PartnerEdiSettings,
  type PartnerExportSettings,
  type PartnerMapping,
  type PartnerProfileDto,
  type PartnerSettings,
  type PartnerWebhookSettings,
  type SftpCredentialSummary,
  type WebhookSecretSummary,
} from '@dockbridge/partners';
import type { ApiKeyView, AsJson, PartnerView, PartnerWithKeysView } from '@dockbridge/pipeline';

/*
 * Schemas of the partner admin endpoints: the profile as it is sent (PartnerProfileDto's fields) and
 * answered (PartnerView), its keys, webhook secrets, mappings and SFTP users. Each implements the type
 * it documents, so a field added there fails to compile here until it is described.
 */

const DATE = { type: String, format: 'date-time' } as const;
const NULLABLE_DATE = { ...DATE, nullable: true } as const;
const UUID = { type: String, format: 'uuid' } as const;

type Edi = AsJson<PartnerEdiSettings>;
type Webhook = AsJson<PartnerWebhookSettings>;
type Export = AsJson<PartnerExportSettings>;
type DocumentSettings = NonNullable<Edi['documentSettings']>;
type InterchangeId = NonNullable<Edi['interchangeId']>;
type Partner = AsJson<PartnerView>;
type Conflict = NonNullable<Partner['conflict']>;
type ProfileBody = Omit<PartnerProfileDto, 'id'>;

export class DocumentSettingsSchema implements DocumentSettings {
  @ApiPropertyOptional({ enum: ['Free', 'Fixed', 'Flexible'] }) mode?: DocumentSettings['mode'];
  @ApiPropertyOptional({ type: 'integer', minimum: 1 }) maxUses?: number;
}

export class InterchangeIdSchema implements InterchangeId {
  @ApiProperty({ description: 'ISA05 qualifier (2 letters or digits)', example: 'ZZ' }) qualifier!: string;
  @ApiProperty({ description: 'ISA06 id, 1 to 15 characters', example: 'DOCKBRIDGE' }) id!: string;
}

export class PartnerEdiSettingsSchema implements Edi {
  @ApiProperty({ type: [String], description: 'ISA06 ids this partner sends with (another is refused with a TA1)' })
  senderIds!: string[];
  @ApiProperty({ description: '`coreName` of parties the directory does not know', example: 'KETTLE' })
  coreName!: string;
  @ApiPropertyOptional({ type: [String], description: 'Codes naming the location (decide Inbound or Outbound)' })
  locationCodes?: string[];
  @ApiPropertyOptional({ enum: ['Inbound', 'Outbound'] }) defaultDirection?: Edi['defaultDirection'];
  @ApiPropertyOptional({ type: () => DocumentSettingsSchema }) documentSettings?: DocumentSettings;
  @ApiPropertyOptional() defaultLoadName?: string;
  @ApiPropertyOptional({ type: [String], description: 'Product id qualifiers in order of preference for load tags' })
  loadTagQualifiers?: string[];
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 3650, description: 'Duplicate window (default 30)' })
  duplicateWindowDays?: number;
  @ApiPropertyOptional({ enum: ['997', '999'], description: "For 5010 interchanges; default '997'" })
  acknowledgment?: Edi['acknowledgment'];
  @ApiPropertyOptional({ type: () => InterchangeIdSchema, description: 'Our ISA05/ISA06 in acknowledgments' })
  interchangeId?: InterchangeId;
  @ApiPropertyOptional({ description: 'Reject sets with segment syntax errors (default: accepted with errors)' })
  rejectSetsWithSegmentErrors?: boolean;
}

export class PartnerWebhookSettingsSchema implements Webhook {
  @ApiProperty({
    enum: ['standard-webhooks', 'hmac', 'api-key'],
    description: 'standard-webhooks (webhook-id/-timestamp/-signature), hmac (one signature header) or api-key',
  })
  verification!: Webhook['verification'];
  @ApiPropertyOptional({ description: 'hmac: the header carrying the signature', example: 'x-tms-signature' })
  signatureHeader?: string;
  @ApiPropertyOptional({ enum: ['sha256', 'sha512'] }) algorithm?: Webhook['algorithm'];
  @ApiPropertyOptional({ enum: ['hex', 'base64'] }) encoding?: Webhook['encoding'];
  @ApiPropertyOptional({ description: 'hmac: a prefix before the signature', example: 'sha256=' }) prefix?: string;
  @ApiPropertyOptional({ description: 'api-key: the header carrying one of the secrets' }) apiKeyHeader?: string;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_WEBHOOK_BODY_BYTES,
    description: 'Largest body accepted (default 1 MiB); larger is 413',
  })
  maxBodyBytes?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 86_400, description: 'Timestamp tolerance (300)' })
  toleranceSeconds?: number;
  @ApiPropertyOptional({ description: 'The header holding the idempotency key (default webhook-id)' })
  idempotencyHeader?: string;
  @ApiPropertyOptional({ description: 'Or a JSONata path into the body holding it' }) idempotencyPath?: string;
}

export class PartnerExportSettingsSchema implements Export {
  @ApiProperty({ description: 'Names the schedule and its files', example: 'daily-bookings' }) id!: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1000, description: 'Every this many ms (or cron)' })
  everyMs?: number;
  @ApiPropertyOptional({ description: 'A cron pattern of 5 or 6 fields (or everyMs)', example: '0 6 * * *' })
  cron?: string;
  @ApiProperty({ format: 'uuid', description: "The platform export's layout" }) layoutId!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: "The platform export's filter" })
  filter?: Export['filter'];
  @ApiPropertyOptional({ enum: ['bookings', 'tasks'] }) viewAs?: Export['viewAs'];
  @ApiProperty({ enum: ['csv', 'json'] }) format!: Export['format'];
  @ApiPropertyOptional({ description: "Put the file in the partner's SFTP outbound folder (default true)" })
  sftp?: boolean;
  @ApiPropertyOptional({ description: 'Also POST it here, signed with Standard Webhooks' }) url?: string;
}

export class DirectoryOrgRefSchema implements DirectoryOrgRef {
  @ApiPropertyOptional({ format: 'uuid', description: 'A platform organisation (or coreName + coreId)' }) id?: string;
  @ApiPropertyOptional() coreName?: string;
  @ApiPropertyOptional() coreId?: string;
}

export class DirectoryEntrySchema implements DirectoryEntry {
  @ApiPropertyOptional({ description: 'N1 qualifier (N103), with code; or scac' }) qualifier?: string;
  @ApiPropertyOptional({ description: 'N1 code (N104)' }) code?: string;
  @ApiPropertyOptional({ description: 'A SCAC, 2 to 4 capital letters or digits' }) scac?: string;
  @ApiProperty({ type: () => DirectoryOrgRefSchema }) organisation!: DirectoryOrgRef;
}

export class PartnerSettingsSchema implements AsJson<PartnerSettings> {
  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'Platform organisations this partner may act on besides its location',
  })
  organisations?: string[];
  @ApiPropertyOptional({ description: 'Resolve OrgRefs against base organisations too' }) enableBaseOrgs?: boolean;
  @ApiPropertyOptional({ description: 'The Core ID the location is known by to this partner' }) selfCoreId?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Upserts per location that go in batch jobs' })
  batchThreshold?: number;
  @ApiPropertyOptional({ type: () => PartnerEdiSettingsSchema }) edi?: Edi;
  @ApiPropertyOptional({ type: () => PartnerWebhookSettingsSchema }) webhook?: Webhook;
  @ApiPropertyOptional({ type: () => [PartnerExportSettingsSchema], description: 'Scheduled bookings exports' })
  exports?: Export[];
  @ApiPropertyOptional({ type: () => [DirectoryEntrySchema], description: 'Parties named by code or SCAC' })
  directory?: DirectoryEntry[];
}

/** `PUT /v1/admin/partners/{id}`: the profile (the id is the path's). */
export class PartnerProfileBodySchema implements ProfileBody {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Acme WMS' }) name!: string;
  @ApiPropertyOptional({ description: 'Absent: true for a new partner, unchanged for an existing one' })
  enabled?: boolean;
  @ApiProperty({ format: 'uuid', description: 'The platform location it delivers to by default' })
  locationOrganisationId!: string;
  @ApiPropertyOptional({ description: 'A platform account of the configuration (platform.accounts[].name)' })
  platformAccount?: string;
  @ApiPropertyOptional({ type: () => PartnerSettingsSchema }) settings?: ProfileBody['settings'];
}

export class PartnerFileConflictSchema implements Conflict {
  @ApiProperty({ description: 'The partner file the last start ignored' }) file!: string;
  @ApiProperty(DATE) detectedAt!: string;
}

export class PartnerSchema implements Partner {
  @ApiProperty({ description: 'Slug; the partner_id of its messages', example: 'acme-wms' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ format: 'uuid' }) locationOrganisationId!: string;
  @ApiProperty({ type: String, nullable: true }) platformAccount!: string | null;
  @ApiProperty({ type: () => PartnerSettingsSchema }) settings!: Partner['settings'];
  @ApiProperty({ enum: PARTNER_SOURCES, description: "Who owns it: its file ('file') or the admin API ('api')" })
  source!: Partner['source'];
  @ApiProperty({ type: String, nullable: true, description: 'The file that owns it (source file)' })
  file!: string | null;
  @ApiProperty({
    type: () => PartnerFileConflictSchema,
    nullable: true,
    description: 'A file the last import ignored because the API owns the partner',
  })
  conflict!: Conflict | null;
  @ApiProperty(DATE) createdAt!: string;
  @ApiProperty(DATE) updatedAt!: string;
}

export class ApiKeySchema implements AsJson<ApiKeyView> {
  @ApiProperty(UUID) id!: string;
  @ApiProperty() partnerId!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The first 8 characters after dbk_' })
  keyPrefix!: string | null;
  @ApiProperty() label!: string;
  @ApiProperty({ enum: API_KEY_SOURCES }) source!: ApiKeyView['source'];
  @ApiProperty(DATE) createdAt!: string;
  @ApiProperty(NULLABLE_DATE) expiresAt!: string | null;
  @ApiProperty(NULLABLE_DATE) revokedAt!: string | null;
  @ApiProperty(NULLABLE_DATE) lastUsedAt!: string | null;
}

export class PartnerWithKeysSchema extends PartnerSchema implements AsJson<PartnerWithKeysView> {
  @ApiProperty({ type: () => [ApiKeySchema], description: 'Its API keys (never the key, never its hash)' })
  apiKeys!: AsJson<ApiKeyView>[];
}

export class IssuedApiKeySchema implements AsJson<IssuedApiKey> {
  @ApiProperty({ description: 'The key: shown in this answer only', example: 'dbk_…' }) key!: string;
  @ApiProperty({ type: () => ApiKeySchema }) record!: AsJson<ApiKeyView>;
}

export class WebhookSecretSchema implements AsJson<WebhookSecretSummary> {
  @ApiProperty(UUID) id!: string;
  @ApiProperty() partnerId!: string;
  @ApiProperty() label!: string;
  @ApiProperty({ description: "sha256: and the first 12 hex digits of the secret's SHA-256", example: 'sha256:…' })
  fingerprint!: string;
  @ApiProperty(DATE) createdAt!: string;
  @ApiProperty(NULLABLE_DATE) expiresAt!: string | null;
  @ApiProperty(NULLABLE_DATE) revokedAt!: string | null;
}

export class AddedWebhookSecretSchema {
  @ApiProperty({ description: 'The secret: shown in this answer only', example: 'whsec_…' }) secret!: string;
  @ApiProperty({ type: () => WebhookSecretSchema }) record!: AsJson<WebhookSecretSummary>;
}

export class PartnerMappingSchema implements AsJson<PartnerMapping> {
  @ApiProperty() partnerId!: string;
  @ApiProperty({ description: 'Versions count from 1' }) version!: number;
  @ApiProperty({ description: 'The JSONata expression' }) expression!: string;
  @ApiProperty(DATE) createdAt!: string;
}

export class SftpUserSchema implements AsJson<SftpCredentialSummary> {
  @ApiProperty(UUID) id!: string;
  @ApiProperty() partnerId!: string;
  @ApiProperty() username!: string;
  @ApiProperty() hasPassword!: boolean;
  @ApiProperty({ type: String, nullable: true, example: 'ssh-ed25519' }) publicKeyType!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'SHA256:…' }) publicKeyFingerprint!: string | null;
  @ApiProperty(DATE) createdAt!: string;
  @ApiProperty(NULLABLE_DATE) revokedAt!: string | null;
}

/** `POST /v1/admin/partners/{id}/enabled`. */
export class EnabledBodySchema {
  @ApiProperty({ description: 'true to accept its traffic, false to refuse it' }) enabled!: boolean;
}

export class MappingErrorSchema {
  @ApiProperty({ example: 'Expected ")", got end of expression' }) message!: string;
  @ApiPropertyOptional({ type: 'integer', description: 'Character offset in the expression' }) position?: number;
  @ApiPropertyOptional({ description: 'The token JSONata stopped at' }) token?: string;
}

/** MappingTrial: one of operations or error is present. */
export class MappingTrialSchema {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object' },
    description: 'The canonical operations the mapping makes of the sample',
  })
  operations?: unknown[];
  @ApiPropertyOptional({ type: () => MappingErrorSchema, description: 'Why it makes none' })
  error?: MappingErrorSchema;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The published version tried; null: the given expression',
  })
  mappingVersion!: number | null;
}
