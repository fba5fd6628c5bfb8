/**
 * Who owns a profile: its `config/partners/*.yaml` file, or the admin API. A file-owned partner is
 * changed by editing its file (the API answers 409); an API-owned one is never changed by a file
 * (the import reports the file as a conflict). `POST /v1/admin/partners/:id/adopt` hands a
 * file-owned partner to the API.
 */
export const PARTNER_SOURCES = ['file', 'api'] as const;
export type PartnerSource = (typeof PARTNER_SOURCES)[number];

/** Where an API key came from: a partner file (`apiKeys` / `apiKeyHashes`) or the admin API. */
export const API_KEY_SOURCES = ['config', 'api'] as const;
export type ApiKeySource = (typeof API_KEY_SOURCES)[number];

/** A partner file the last import ignored because the admin API owns the partner. */
export interface PartnerFileConflict {
  file: string;
  /** When the import found it (the last start that saw the file). */
  detectedAt: Date;
}

/** How this partner's operations are delivered to the platform (each overrides the app-wide default). */
export interface PartnerDeliverySettings {
  /** Resolve OrgRefs against base organisations too (platform query parameter `enableBaseOrgs`). */
  enableBaseOrgs?: boolean;
  /** The Core ID the location is known by to this partner (platform query parameter `selfCoreId`). */
  selfCoreId?: string;
  /** A message with at least this many document upserts for one location goes through batch jobs. */
  batchThreshold?: number;
}

/**
 * Everything a partner's traffic is handled with, stored as jsonb (`partner.settings`). Delivery
 * settings sit at the top level; each ingress kind adds ONE named section when it is built:
 * `edi` (ISA/GS ids, mapping overrides), `webhook` (verification scheme, size limit, JSONata
 * mapping), `sftp` (user, public keys), `directory` (party lookups). Secret material (webhook
 * secrets, SFTP password hashes) never goes here: it gets its own table like `partner_api_key`,
 * because settings are shown to operators as they are.
 */
export interface PartnerSettings extends PartnerDeliverySettings {
  /** Platform organisations (uuids) this partner may act on besides its location; see organisationsOf. */
  organisations?: string[];
  edi?: PartnerEdiSettings;
  webhook?: PartnerWebhookSettings;
  /** Scheduled bookings exports delivered to this partner. */
  exports?: PartnerExportSettings[];
  /** Parties this partner names by code or SCAC, resolved to fixed platform organisations. */
  directory?: DirectoryEntry[];
}

/** An OrgRef as the directory stores it: a platform UUID (`id`), or a Core ID (`coreName` + `coreId`); validated by DirectoryOrgRefDto. */
export interface DirectoryOrgRef {
  id?: string;
  coreName?: string;
  coreId?: string;
}

/** `(qualifier, code)` of an N1 loop (N103/N104), or a SCAC, → a fixed organisation. */
export interface DirectoryEntry {
  qualifier?: string;
  code?: string;
  scac?: string;
  organisation: DirectoryOrgRef;
}

/** How this partner's X12 is read and mapped (`settings.edi`). */
export interface PartnerEdiSettings {
  /** ISA06 ids this partner sends with; an interchange from another id is refused (TA1). */
  senderIds: string[];
  /** `coreName` of parties the directory does not know: the partner's naming scheme. */
  coreName: string;
  /** Codes (N104 or N102) naming the location: decide Inbound (ship-to) or Outbound (ship-from). */
  locationCodes?: string[];
  defaultDirection?: 'Inbound' | 'Outbound';
  documentSettings?: { mode?: 'Free' | 'Fixed' | 'Flexible'; maxUses?: number };
  defaultLoadName?: string;
  /** Product id qualifiers in order of preference for load tags (default SK, VP, VN, VA, BP, IN, CB, UP, EN, UK). */
  loadTagQualifiers?: string[];
  /** An interchange with the same sender and ISA13 within this many days is a duplicate (default 30). */
  duplicateWindowDays?: number;
  /** `999` (implementation acknowledgment) instead of a 997 for this partner's 5010 interchanges; default `997`. */
  acknowledgment?: '997' | '999';
  /** Our ISA05/ISA06 in 997/999/TA1; default: the qualifier and id the partner addressed (its ISA07/ISA08). */
  interchangeId?: { qualifier: string; id: string };
  /** Reject (AK5 R, nothing delivered) sets with segment syntax errors; default false: accepted with errors (AK5 E). */
  rejectSetsWithSegmentErrors?: boolean;
}

/** A partner as the rest of dockbridge sees it. */
export interface PartnerProfile {
  /** Slug, e.g. `acme-wms`; also the `partner_id` of its messages. */
  id: string;
  name: string;
  enabled: boolean;
  /** The platform location (organisation uuid) this partner delivers to by default. */
  locationOrganisationId: string;
  /** Name of a platform account in the configuration (`platform.accounts[].name`); null = the account that lists the location, else the default token. */
  platformAccount: string | null;
  settings: PartnerSettings;
  /** Who owns the profile: its file ('file') or the admin API ('api'); see PARTNER_SOURCES. */
  source: PartnerSource;
  /** The file that owns the partner (source 'file'); null for an API-owned one. */
  file: string | null;
  /** Set when the last import found a file for this API-owned partner and ignored it; null otherwise. */
  conflict: PartnerFileConflict | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The organisations a partner may act on: its location, plus those its profile names. Every
 * operation to any other is refused (at ingress, or by translation for mapped webhooks and replays).
 */
export function organisationsOf(
  partner: Pick<PartnerProfile, 'locationOrganisationId' | 'settings'>,
): ReadonlySet<string> {
  return new Set(
    [partner.locationOrganisationId, ...(partner.settings.organisations ?? [])].map((id) => id.toLowerCase()),
  );
}

/**
 * What `PartnerRepository.upsert` writes. `enabled` left out means "true for a new partner,
 * unchanged for an existing one", so re-importing config does not undo an operator's disable.
 */
export interface PartnerProfileInput {
  id: string;
  name: string;
  enabled?: boolean;
  locationOrganisationId: string;
  platformAccount?: string | null;
  settings?: PartnerSettings;
}

/** An API key as operators see it: never the key, never its hash. */
export interface ApiKeySummary {
  id: string;
  partnerId: string;
  /** The first 8 characters after `dbk_`; null for a key imported by hash only (unless the file gave it). */
  keyPrefix: string | null;
  label: string;
  source: ApiKeySource;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** A freshly issued key: `key` is the only time the plaintext exists outside the partner's hands. */
export interface IssuedApiKey {
  key: string;
  record: ApiKeySummary;
}

/** A key that config declares for a partner, already hashed (see `loadPartnerFiles`). */
export interface ConfigApiKey {
  label: string;
  /** Lowercase hex SHA-256 of the whole key. */
  sha256: string;
  keyPrefix: string | null;
}

/** How this partner's webhooks are verified and deduplicated (`settings.webhook`). Secrets live in their own table. */
export interface PartnerWebhookSettings {
  /** `standard-webhooks` (webhook-id/-timestamp/-signature), `hmac` (one signature header), or `api-key` (a header holding one of the secrets). */
  verification: 'standard-webhooks' | 'hmac' | 'api-key';
  /** hmac: the header carrying the signature, its algorithm, encoding and optional prefix (e.g. `sha256=`). */
  signatureHeader?: string;
  algorithm?: 'sha256' | 'sha512';
  encoding?: 'hex' | 'base64';
  prefix?: string;
  /** api-key: the header carrying the key. */
  apiKeyHeader?: string;
  /** Largest body accepted, bytes (default 1 MiB, at most MAX_WEBHOOK_BODY_BYTES); larger → 413. */
  maxBodyBytes?: number;
  /** Standard Webhooks timestamp tolerance, seconds (default 300). */
  toleranceSeconds?: number;
  /** Where the idempotency key is: a header (default `webhook-id`) or a JSONata path into the body. */
  idempotencyHeader?: string;
  idempotencyPath?: string;
}

/** A scheduled bookings export (`settings.exports[]`): the platform's export, paged to the end, delivered as one file. */
export interface PartnerExportSettings {
  /** Names the schedule and its files, e.g. `daily-bookings`. */
  id: string;
  /** Every this many milliseconds, or a cron pattern (`0 6 * * *`). */
  everyMs?: number;
  cron?: string;
  layoutId: string;
  filter?: Record<string, unknown>;
  viewAs?: 'bookings' | 'tasks';
  format: 'csv' | 'json';
  /** Put the file in the partner's SFTP outbound folder (default true). */
  sftp?: boolean;
  /** Also POST it here, signed with Standard Webhooks using the partner's newest active webhook secret. */
  url?: string;
}

/** A webhook body's size limit when the partner names none. */
export const DEFAULT_WEBHOOK_BODY_BYTES = 1024 * 1024;
/** The largest limit a partner may set (the webhook route reads up to this much). */
export const MAX_WEBHOOK_BODY_BYTES = 64 * 1024 * 1024;
