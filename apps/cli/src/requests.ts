/**
 * Command-line options → the query parameters and bodies of the admin API, typed by its OpenAPI document.
 * Pure: no I/O, so every mapping is unit-tested. The gateway validates values and names the bad field.
 */

import type { paths, Schemas } from '@dockbridge/api-client';
import type { SEARCH_MAX_LIMIT as SEARCH_LIMIT } from '@dockbridge/audit';

/** Something wrong with the command line itself: exit code 2, nothing sent. */
export class UsageError extends Error {}

/** The search filter shared by `messages list` and bulk `messages replay` (MessageFilterDto). */
export interface FilterOptions {
  /** Comma list of statuses, as typed. */
  status?: string;
  /** Comma list of channels (api, sftp, http-edi, webhook, replay, export), as typed. */
  channel?: string;
  partner?: string;
  from?: string;
  to?: string;
  document?: string;
  /** An SFTP upload's file name. */
  file?: string;
  /** An interchange control number (ISA13). */
  interchange?: string;
}

export interface ListOptions extends FilterOptions {
  limit?: string;
  cursor?: string;
}

export interface ReplayOptions extends FilterOptions {
  failedOnly?: boolean;
  mapping?: string;
  /** Edit-and-replay: the corrected payload's text (read from --payload-file by the caller). */
  payload?: string;
  reason?: string;
  operator?: string;
  /** One message: deliver even to organisations outside the partner's profile (recorded with operator and reason). */
  overrideOrganisations?: boolean;
  /** Deliver even over newer writes to the same targets (a replay otherwise orders as its original). */
  force?: boolean;
  /** Bulk: also messages whose latest replay was delivered. */
  includeReplayed?: boolean;
  /** Bulk only; undefined means the API's default, a dry run. */
  dryRun?: boolean;
  /** Bulk, real run: print the run's id and return instead of waiting for it (checked here, not sent). */
  detach?: boolean;
}

export type SearchQuery = NonNullable<paths['/v1/admin/messages']['get']['parameters']['query']>;
export type ActivityQuery = NonNullable<paths['/v1/admin/activity']['get']['parameters']['query']>;
type Mapping = NonNullable<Schemas['ReplayDto']['mapping']>;
type X12ContentType = keyof paths['/v1/edi']['post']['requestBody']['content'];

// The search's cap is not in the document: a copy typed by the gateway's value (a change there fails to compile here).
export const SEARCH_MAX_LIMIT: typeof SEARCH_LIMIT = 500;
export const MAPPING_CHOICES = ['original', 'current'] as const satisfies readonly Mapping[];
export const X12_CONTENT_TYPE = 'application/edi-x12' satisfies X12ContentType;

/**
 * A value as the operator typed it, sent as typed: the gateway checks it against the type the document
 * gives (a status, a number) and names the field, so the CLI does not check it a second time.
 */
export const asTyped = <T>(typed: string | string[] | undefined) => typed as T | undefined;

const commaList = (typed: string | undefined) => {
  const list = typed
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list?.length ? list : undefined;
};

const filterOf = (options: FilterOptions) => ({
  status: asTyped<SearchQuery['status']>(commaList(options.status)),
  channel: asTyped<SearchQuery['channel']>(commaList(options.channel)),
  partner: options.partner,
  from: options.from,
  to: options.to,
  documentId: options.document,
  fileName: options.file,
  interchange: options.interchange,
});

const hasFilter = (options: FilterOptions) => Object.values(filterOf(options)).some((v) => v !== undefined);

/** Drops undefined members so bodies and queries carry only what the operator typed. */
const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

export function searchQuery(options: ListOptions): SearchQuery {
  let limit: number | undefined;
  if (options.limit !== undefined) {
    limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_MAX_LIMIT) {
      throw new UsageError(`--limit must be a whole number from 1 to ${SEARCH_MAX_LIMIT}`);
    }
  }
  return defined({ ...filterOf(options), limit, cursor: options.cursor });
}

/** One message (`id` given) or bulk by filter; options that the chosen endpoint does not take are usage errors. */
export function replayRequest(
  id: string | undefined,
  options: ReplayOptions,
): { bulk: false; id: string; body: Schemas['ReplayDto'] } | { bulk: true; body: Schemas['BulkReplayDto'] } {
  const mapping = options.mapping;
  if (mapping !== undefined && !(MAPPING_CHOICES as readonly string[]).includes(mapping)) {
    throw new UsageError(`--mapping must be one of ${MAPPING_CHOICES.join(', ')}`);
  }
  const mode = options.failedOnly ? ('failed-only' as const) : undefined; // undefined: the API's default, rerun
  const common = { mode, reason: options.reason, operator: options.operator, force: options.force };
  if (id !== undefined) {
    if (hasFilter(options)) {
      throw new UsageError(
        'give a message id or filters (--status, --channel, --partner, --from, --to, --document, --file, --interchange), not both',
      );
    }
    if (options.dryRun !== undefined) {
      throw new UsageError('--dry-run and --no-dry-run apply to bulk replay only (filters instead of an id)');
    }
    if (options.detach) {
      throw new UsageError('--detach applies to bulk replay only (filters instead of an id)');
    }
    const body = {
      ...common,
      mapping: mapping as Mapping | undefined,
      payload: options.payload,
      overrideOrganisations: options.overrideOrganisations,
    };
    return { bulk: false, id, body: defined(body) };
  }
  if (options.detach && options.dryRun !== false) {
    throw new UsageError('--detach applies to a real bulk replay only (with --no-dry-run): a dry run answers at once');
  }
  if (!hasFilter(options)) {
    throw new UsageError(
      'give a message id, or at least one filter (--status, --channel, --partner, --from, --to, --document, --file, --interchange) for a bulk replay',
    );
  }
  if (options.payload !== undefined) {
    throw new UsageError('--payload-file applies to one message only (give its id)');
  }
  if (options.overrideOrganisations) {
    throw new UsageError('--override-organisations applies to one message only (give its id)');
  }
  return {
    bulk: true,
    body: defined({
      ...defined(filterOf(options)),
      ...common,
      mapping: mapping as Mapping | undefined,
      dryRun: options.dryRun,
      includeReplayed: options.includeReplayed,
    }),
  };
}

/** How many bulk replay runs to list; none given: the gateway's default. */
export function replayRunsLimit(limit?: string): number | undefined {
  if (limit === undefined) {
    return undefined;
  }
  const n = Number(limit);
  if (!Number.isInteger(n) || n < 1 || n > 100) {
    throw new UsageError('--limit must be a whole number from 1 to 100');
  }
  return n;
}

/** X12 starts with ISA (after a BOM or blank lines); anything else is sent as canonical JSON. */
export const isX12 = (text: string): boolean => /^[\uFEFF\s]*ISA/.test(text);

/**
 * `send`: a file as its partner would send it: X12 to /v1/edi, anything else to /v1/messages (JSON).
 * `fileName` is recorded with an X12 upload, so the message is found by it (`messages list --file`).
 */
export function upload(
  text: string,
  fileName?: string,
): { x12: true; fileName?: string } | { x12: false; message: Schemas['CanonicalMessageSchema'] } {
  if (isX12(text)) {
    // The gateway applies the file-name rule (isPartnerFileName) and says what is wrong with a name.
    return { x12: true, fileName: fileName || undefined };
  }
  try {
    // Parsed to check it is JSON; the gateway checks it is a canonical message, and gets the file's own text.
    return { x12: false, message: JSON.parse(text) };
  } catch (error) {
    throw new UsageError(`the file is neither X12 (starting with ISA) nor JSON: ${(error as Error).message}`);
  }
}

/** A named token with a role; `expires` is an ISO 8601 date-time (the gateway checks both). */
export function operatorBody(name: string, role: string, expires?: string): Schemas['IssueOperatorTokenDto'] {
  return { name, role: role as Schemas['IssueOperatorTokenDto']['role'], ...(expires && { expiresAt: expires }) };
}

/** The activity log, newest first; `target` such as partner:acme or message:<id>. */
export function activityQuery(options: { target?: string; limit?: string; cursor?: string }): ActivityQuery {
  return defined({ target: options.target, limit: asTyped<number>(options.limit), cursor: options.cursor });
}
