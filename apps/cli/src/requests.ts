/**
 * Command-line options → admin API requests. Pure: no I/O, so every mapping is unit-tested.
 * Options mirror apps/gateway/src/admin/admin.dto.ts; the gateway validates values and names the bad field.
 */

import type { SEARCH_MAX_LIMIT as SEARCH_LIMIT } from '@dockbridge/audit';
import type { X12_CONTENT_TYPE as X12 } from '@dockbridge/pipeline';

/** An HTTP request to the gateway, relative to its base URL. */
export interface GatewayRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** A JSON body (object) or a raw text body (string, sent with `contentType`). */
  body?: unknown;
  contentType?: string;
  /** Answered with the body as text, not JSON (a payload download). */
  raw?: boolean;
}

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

// Copies of the gateway's values (this thin client loads no lib), typed by them: a change there fails to compile here.
export const SEARCH_MAX_LIMIT: typeof SEARCH_LIMIT = 500;
export const MAPPING_CHOICES = ['original', 'current'] as const;
export const X12_CONTENT_TYPE: typeof X12 = 'application/edi-x12';

const commaList = (typed: string | undefined) => {
  const list = typed
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list?.length ? list : undefined;
};

const filterOf = (options: FilterOptions) => ({
  status: commaList(options.status),
  channel: commaList(options.channel),
  partner: options.partner,
  from: options.from,
  to: options.to,
  documentId: options.document,
  fileName: options.file,
  interchange: options.interchange,
});

const hasFilter = (options: FilterOptions) => Object.values(filterOf(options)).some((v) => v !== undefined);

/** Drops undefined members so bodies and queries carry only what the operator typed. */
const defined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;

export function searchRequest(options: ListOptions): GatewayRequest {
  const query = new URLSearchParams();
  const filter = filterOf(options);
  if (filter.status) {
    query.set('status', filter.status.join(','));
  }
  if (filter.channel) {
    query.set('channel', filter.channel.join(','));
  }
  for (const key of ['partner', 'from', 'to', 'documentId', 'fileName', 'interchange'] as const) {
    if (filter[key] !== undefined) {
      query.set(key, filter[key]);
    }
  }
  if (options.limit !== undefined) {
    const limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_MAX_LIMIT) {
      throw new UsageError(`--limit must be a whole number from 1 to ${SEARCH_MAX_LIMIT}`);
    }
    query.set('limit', String(limit));
  }
  if (options.cursor !== undefined) {
    query.set('cursor', options.cursor);
  }
  const search = query.toString();
  return { method: 'GET', path: `/v1/admin/messages${search ? `?${search}` : ''}` };
}

/** A message's detail; `after` pages through its operations (the seq a previous page ended at). */
export function detailRequest(id: string, after?: string): GatewayRequest {
  const query = after === undefined ? '' : `?${new URLSearchParams({ operationsAfter: after })}`;
  return { method: 'GET', path: `/v1/admin/messages/${encodeURIComponent(id)}${query}` };
}

/** A message's whole payload, exactly as received (the detail carries its first MiB only). */
export function payloadRequest(id: string): GatewayRequest {
  return { method: 'GET', path: `/v1/admin/messages/${encodeURIComponent(id)}/payload`, raw: true };
}

/** One message (`id` given) or bulk by filter; options that the chosen endpoint does not take are usage errors. */
export function replayRequest(id: string | undefined, options: ReplayOptions): GatewayRequest {
  if (options.mapping !== undefined && !(MAPPING_CHOICES as readonly string[]).includes(options.mapping)) {
    throw new UsageError(`--mapping must be one of ${MAPPING_CHOICES.join(', ')}`);
  }
  const mode = options.failedOnly ? 'failed-only' : undefined; // undefined: the API's default, rerun
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
      mapping: options.mapping,
      payload: options.payload,
      overrideOrganisations: options.overrideOrganisations,
    };
    return { method: 'POST', path: `/v1/admin/messages/${encodeURIComponent(id)}/replay`, body: defined(body) };
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
    method: 'POST',
    path: '/v1/admin/messages/replay',
    body: defined({
      ...defined(filterOf(options)),
      ...common,
      mapping: options.mapping,
      dryRun: options.dryRun,
      includeReplayed: options.includeReplayed,
    }),
  };
}

/** A bulk replay run: its status, progress and result. */
export function replayRunRequest(runId: string): GatewayRequest {
  return { method: 'GET', path: `/v1/admin/replays/${encodeURIComponent(runId)}` };
}

/** The newest bulk replay runs. */
export function replayRunsRequest(limit?: string): GatewayRequest {
  if (limit === undefined) {
    return { method: 'GET', path: '/v1/admin/replays' };
  }
  const n = Number(limit);
  if (!Number.isInteger(n) || n < 1 || n > 100) {
    throw new UsageError('--limit must be a whole number from 1 to 100');
  }
  return { method: 'GET', path: `/v1/admin/replays?limit=${n}` };
}

/** An EDI dry run; `after` pages through its sets (the index a previous page ended at). */
export function previewRequest(x12Text: string, after?: string): GatewayRequest {
  const query = after === undefined ? '' : `?${new URLSearchParams({ setsAfter: after })}`;
  return { method: 'POST', path: `/v1/edi/preview${query}`, body: x12Text, contentType: X12_CONTENT_TYPE };
}

export function partnersRequest(): GatewayRequest {
  return { method: 'GET', path: '/v1/admin/partners' };
}

export function partnerRequest(id: string): GatewayRequest {
  return { method: 'GET', path: `/v1/admin/partners/${encodeURIComponent(id)}` };
}

/** X12 starts with ISA (after a BOM or blank lines); anything else is sent as canonical JSON. */
export const isX12 = (text: string): boolean => /^[\uFEFF\s]*ISA/.test(text);

/**
 * `send`: a file as its partner would send it: X12 to /v1/edi, anything else to /v1/messages (JSON).
 * `fileName` is recorded with an X12 upload, so the message is found by it (`messages list --file`).
 */
export function sendRequest(text: string, fileName?: string): GatewayRequest {
  if (isX12(text)) {
    // The gateway applies the file-name rule (isPartnerFileName) and says what is wrong with a name.
    const query = fileName ? `?${new URLSearchParams({ fileName })}` : '';
    return { method: 'POST', path: `/v1/edi${query}`, body: text, contentType: X12_CONTENT_TYPE };
  }
  try {
    JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the file is neither X12 (starting with ISA) nor JSON: ${(error as Error).message}`);
  }
  return { method: 'POST', path: '/v1/messages', body: text, contentType: 'application/json' };
}

/** A partner's own view of one message (its status and each operation's outcome). */
export function messageStatusRequest(id: string): GatewayRequest {
  return { method: 'GET', path: `/v1/messages/${encodeURIComponent(id)}` };
}

/** Who the token belongs to. */
export function meRequest(): GatewayRequest {
  return { method: 'GET', path: '/v1/admin/me' };
}

export function operatorsRequest(): GatewayRequest {
  return { method: 'GET', path: '/v1/admin/operators' };
}

/** A named token with a role; `expires` is an ISO 8601 date-time (the gateway checks it). */
export function issueOperatorRequest(name: string, role: string, expires?: string): GatewayRequest {
  return { method: 'POST', path: '/v1/admin/operators', body: { name, role, ...(expires && { expiresAt: expires }) } };
}

export function revokeOperatorRequest(id: string): GatewayRequest {
  return { method: 'DELETE', path: `/v1/admin/operators/${encodeURIComponent(id)}` };
}

/** The activity log, newest first; `target` such as partner:acme or message:<id>. */
export function activityRequest(options: { target?: string; limit?: string; cursor?: string }): GatewayRequest {
  const query = new URLSearchParams();
  for (const key of ['target', 'limit', 'cursor'] as const) {
    if (options[key] !== undefined) {
      query.set(key, options[key]);
    }
  }
  const text = query.toString();
  return { method: 'GET', path: `/v1/admin/activity${text ? `?${text}` : ''}` };
}
