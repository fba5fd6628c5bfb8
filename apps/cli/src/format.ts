/**
 * Text output of the CLI. Pure: API answers in, lines out (unit-tested).
 * The wire types below are the admin API's JSON (libs/audit entities with dates as ISO strings).
 */

export interface MessageSummary {
  id: string;
  partnerId: string;
  channel: string;
  contentType: string;
  sha256: string;
  status: string;
  statusReason: string | null;
  replayOf: string | null;
  receivedAt: string;
  updatedAt: string;
  metadata: Record<string, unknown>;
}

export interface MessagePage {
  items: MessageSummary[];
  nextCursor: string | null;
}

export interface Attempt {
  startedAt: string;
  durationMs: number;
  httpStatus: number | null;
  outcome: string;
  errorExcerpt: string | null;
  requestSummary: string | null;
}

export interface Operation {
  seq: number;
  kind: string;
  organisationId: string | null;
  targetId: string | null;
  status: string;
  lastError: string | null;
  errorClass: string | null;
  attemptCount: number;
  attempts: Attempt[];
}

export interface MessageEvent {
  at: string;
  fromStatus: string | null;
  toStatus: string;
  actor: string;
  reason: string | null;
}

/** A partner file of a message: the upload it came from, a 997/TA1 or export written for it. */
export interface MessageFile {
  folder: string;
  name: string;
  kind: string | null;
  size: number;
  createdAt: string;
  /** The partner removed it (fetched, as a rule) or a newer file of the same name replaced it. */
  removedAt: string | null;
}

export interface MessageDetail {
  message: MessageSummary & { rawPayload: string };
  operations: Operation[];
  events: MessageEvent[];
  /** Absent from gateways older than this field. */
  files?: MessageFile[];
}

export interface ReplayResult {
  messageId: string;
  replayOf: string;
  status: string;
}

export type BulkReplayResult =
  | { dryRun: true; matching: number; skipped?: { id: string; reason: string }[]; limitReached?: number }
  | { dryRun: false; replayed: number; messageIds: string[]; skipped: { id: string; reason: string }[]; limitReached?: number };

export interface Diagnostic {
  level: string;
  transactionControl: string;
  segmentPosition?: number;
  segmentTag?: string;
  element?: number;
  message: string;
}

export interface EdiPreview {
  interchanges: { senderId: string; control: string; refused: boolean; duplicate?: boolean; reason?: string }[];
  transactionSets: { transactionControl: string; setId: string; documentId?: string; rejected: boolean; envelopeRejected?: boolean; diagnostics: Diagnostic[]; notes?: string[] }[];
  documents: { kind: string; organisationId?: string; document?: { id?: string }; documentId?: string }[];
  acknowledgments: { kind: string; acknowledges: string; content: string }[];
  problems: string[];
}

/** One line, at most `max` characters (an ellipsis marks a cut). */
export function excerpt(text: string | null | undefined, max: number): string {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** ISO 8601 to `2026-11-01 12:34:56Z` (UTC, to the second); anything unparseable is shown as given. */
export function time(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const REASON_COLUMN_CHARS = 60;

export function formatMessageList(page: MessagePage): string[] {
  if (page.items.length === 0) return ['No messages match.'];
  const rows = page.items.map((m) => [m.id, time(m.receivedAt), m.partnerId, m.channel, m.status, excerpt(m.statusReason, REASON_COLUMN_CHARS)]);
  const lines = table(['ID', 'RECEIVED', 'PARTNER', 'CHANNEL', 'STATUS', 'REASON'], rows);
  lines.push('', page.nextCursor ? `${plural(page.items.length, 'message')}; more with --cursor ${page.nextCursor}` : plural(page.items.length, 'message'));
  return lines;
}

const operationTarget = (op: Operation) => [op.targetId, op.organisationId && `at ${op.organisationId}`].filter(Boolean).join(' ');

function formatAttempt(a: Attempt): string {
  const parts = [time(a.startedAt), a.outcome, a.httpStatus === null ? 'no HTTP status' : `HTTP ${a.httpStatus}`, `${a.durationMs} ms`];
  const error = a.errorExcerpt ? `  ${excerpt(a.errorExcerpt, 200)}` : '';
  return `      ${parts.join('  ')}${error}`;
}

/** An outbound file still there has not been fetched (partners remove what they fetch). */
const fileState = (f: MessageFile) => (f.removedAt ? `removed ${time(f.removedAt)}` : f.folder === 'outbound' ? 'not fetched yet' : 'present');

export function formatMessageDetail(detail: MessageDetail): string[] {
  const m = detail.message;
  const lines = [`Message ${m.id}`];
  const field = (name: string, value: string) => lines.push(`  ${name.padEnd(10)}${value}`);
  field('status', m.statusReason ? `${m.status} (${excerpt(m.statusReason, 300)})` : m.status);
  field('partner', m.partnerId);
  field('channel', m.channel);
  field('received', time(m.receivedAt));
  field('updated', time(m.updatedAt));
  field('content', `${m.contentType}, ${Buffer.byteLength(m.rawPayload ?? '', 'utf8')} bytes, sha256 ${m.sha256}`);
  if (m.replayOf) field('replay of', m.replayOf);
  if (m.metadata && Object.keys(m.metadata).length) field('metadata', excerpt(JSON.stringify(m.metadata), 300));

  lines.push('', `Operations (${detail.operations.length})`);
  for (const op of detail.operations) {
    const outcome = op.errorClass ? `${op.status} (${op.errorClass})` : op.status;
    lines.push(`  #${op.seq} ${op.kind} ${operationTarget(op)}: ${outcome}, ${plural(op.attemptCount, 'attempt')}`.replace(/ :/, ':'));
    if (op.lastError) lines.push(`      last error: ${excerpt(op.lastError, 300)}`);
    for (const attempt of op.attempts ?? []) lines.push(formatAttempt(attempt));
  }

  lines.push('', `Events (${detail.events.length})`);
  for (const e of detail.events) {
    const change = e.fromStatus ? `${e.fromStatus} -> ${e.toStatus}` : e.toStatus;
    lines.push(`  ${time(e.at)}  ${change}  by ${e.actor}${e.reason ? `: ${excerpt(e.reason, 200)}` : ''}`);
  }
  if (detail.files?.length) {
    lines.push('', `Files (${detail.files.length})`);
    const rows = detail.files.map((f) => [`${f.folder}/${f.name}`, f.kind ?? 'upload', `${f.size} bytes`, time(f.createdAt), fileState(f)]);
    lines.push(...table(['FILE', 'KIND', 'SIZE', 'WRITTEN', 'STATE'], rows).map((line) => `  ${line}`));
  }
  lines.push('', '(--payload prints the raw payload)');
  return lines;
}

export function formatReplay(result: ReplayResult): string[] {
  return [`Replayed ${result.replayOf} as new message ${result.messageId} (${result.status}).`, `Follow it: dockbridge messages show ${result.messageId}`];
}

export function formatBulkReplay(result: BulkReplayResult): string[] {
  if (result.dryRun) {
    const skipped = result.skipped?.length ? [`${plural(result.skipped.length, 'message')} would be skipped:`, ...result.skipped.map((s) => `  ${s.id}  ${s.reason}`)] : [];
    const capped = result.limitReached ? [`Only the first ${result.limitReached} matching messages are looked at: narrow the filter for the rest.`] : [];
    return [`Dry run: ${plural(result.matching, 'message')} ${result.matching === 1 ? 'matches' : 'match'}; nothing was replayed.`, ...skipped, ...capped, 'Add --no-dry-run to replay them.'];
  }
  const lines = [`Replayed ${plural(result.replayed, 'message')}; ${result.skipped.length} skipped.`, ...result.messageIds.map((id) => `  ${id}`)];
  if (result.skipped.length) lines.push('Skipped:', ...result.skipped.map((s) => `  ${s.id}: ${s.reason}`));
  return lines;
}

function formatDiagnostic(d: Diagnostic): string {
  const where = [d.segmentTag && `${d.segmentTag}${d.segmentPosition !== undefined ? ` (segment ${d.segmentPosition})` : ''}`, d.element !== undefined && `element ${d.element}`]
    .filter(Boolean)
    .join(' ');
  return `      ${d.level}${where ? ` ${where}` : ''}: ${d.message}`;
}

export function formatPreview(preview: EdiPreview): string[] {
  const lines = [`Interchanges (${preview.interchanges.length})`];
  for (const i of preview.interchanges) {
    const verdict = i.refused ? 'refused' : i.duplicate ? 'duplicate in this file' : 'accepted';
    lines.push(`  sender ${i.senderId} control ${i.control}: ${verdict}${i.reason ? ` (${i.reason})` : ''}`);
  }
  lines.push('', `Transaction sets (${preview.transactionSets.length})`);
  for (const set of preview.transactionSets) {
    const verdict = set.envelopeRejected ? 'rejected by the envelope check' : set.rejected ? 'rejected' : 'accepted';
    lines.push(`  ${set.setId} control ${set.transactionControl}${set.documentId ? ` document ${set.documentId}` : ''}: ${verdict}`);
    for (const d of set.diagnostics) lines.push(formatDiagnostic(d));
    for (const note of set.notes ?? []) lines.push(`      note: ${note}`);
  }
  lines.push('', `Documents (${preview.documents.length})`);
  for (const op of preview.documents) {
    const id = op.document?.id ?? op.documentId ?? '';
    lines.push(`  ${op.kind} ${id}${op.organisationId ? ` at ${op.organisationId}` : ''}`.trimEnd());
  }
  if (preview.acknowledgments.length) {
    lines.push('', `Acknowledgments: ${preview.acknowledgments.map((a) => `${a.kind} for ${a.acknowledges}`).join(', ')}`);
  }
  if (preview.problems.length) lines.push('', `Problems (${preview.problems.length})`, ...preview.problems.map((p) => `  ${p}`));
  return lines;
}

/** The gateway's `error` and each of its `details`, for stderr. */
export function formatGatewayError(status: number, error: string, details: string[], hint?: string): string[] {
  return [`error: ${error} (HTTP ${status})`, ...details.map((d) => `  ${d}`), ...(hint ? [hint] : [])];
}

/** Replaces every secret in what goes to stderr (errors, traces): an error from a gateway or proxy could echo one back. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return secrets.reduce<string>((out, secret) => (secret && secret.length >= 4 ? out.split(secret).join('***') : out), text);
}

export interface PartnerSummary {
  id: string;
  name: string;
  enabled: boolean;
  locationOrganisationId: string;
  platformAccount: string | null;
  settings: { edi?: { senderIds?: string[] }; webhook?: { verification?: string }; exports?: { id: string }[] };
  /** Who owns the profile: 'file' (its partner file) or 'api' (the admin API). */
  source: string;
  /** The partner file that owns it (source 'file'). */
  file?: string | null;
  /** A partner file the gateway ignored at its last start because the API owns the partner. */
  conflict?: { file: string; detectedAt: string } | null;
  updatedAt: string;
}

export interface ApiKeyView {
  keyPrefix: string | null;
  label: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** What a partner can send: EDI (with its sender ids), webhooks (with the verification), exports. */
function ingressOf(partner: PartnerSummary): string {
  const parts: string[] = [];
  if (partner.settings.edi) parts.push(`edi(${(partner.settings.edi.senderIds ?? []).join(',') || 'no sender id'})`);
  if (partner.settings.webhook) parts.push(`webhook(${partner.settings.webhook.verification ?? '?'})`);
  if (partner.settings.exports?.length) parts.push(`exports(${partner.settings.exports.length})`);
  return parts.join(' ') || 'api only';
}

/** `file`, `api`, or `api!` when a partner file names it and is ignored (a conflict). */
const sourceOf = (partner: PartnerSummary): string => (partner.conflict ? `${partner.source}!` : partner.source);

export function formatPartnerList(partners: PartnerSummary[]): string[] {
  if (partners.length === 0) return ['No partners.'];
  const conflicts = partners.filter((p) => p.conflict).length;
  return [
    ...table(
      ['ID', 'NAME', 'ENABLED', 'LOCATION', 'SOURCE', 'INGRESS'],
      partners.map((p) => [p.id, p.name, p.enabled ? 'yes' : 'no', p.locationOrganisationId, sourceOf(p), ingressOf(p)]),
    ),
    '',
    plural(partners.length, 'partner'),
    ...(conflicts ? [`${plural(conflicts, 'partner')} owned by the API with a partner file that is ignored (api!): see \`dockbridge partners show <id>\``] : []),
  ];
}

/** Who owns the partner, and a file the gateway ignores for it. */
function ownerLines(partner: PartnerSummary): string[] {
  const owner = partner.source === 'file' ? `owned by its file ${partner.file ?? '(unknown)'}: change the file, or adopt it (POST /v1/admin/partners/${partner.id}/adopt)` : 'owned by the admin API';
  const conflict = partner.conflict
    ? [`  conflict: ${partner.conflict.file} names this partner and is ignored (seen ${time(partner.conflict.detectedAt)}); remove the file, or give the partner back to it (POST /v1/admin/partners/${partner.id}/release)`]
    : [];
  return [`  ${owner}`, ...conflict];
}

export function formatPartner(partner: PartnerSummary & { apiKeys: ApiKeyView[] }): string[] {
  const keyState = (k: ApiKeyView) => (k.revokedAt ? `revoked ${time(k.revokedAt)}` : k.expiresAt ? `expires ${time(k.expiresAt)}` : 'active');
  return [
    `Partner ${partner.id}: ${partner.name}${partner.enabled ? '' : ' (disabled)'}`,
    `  location ${partner.locationOrganisationId}${partner.platformAccount ? `, platform account ${partner.platformAccount}` : ''}`,
    `  ingress ${ingressOf(partner)}; source ${partner.source}, updated ${time(partner.updatedAt)}`,
    ...ownerLines(partner),
    '',
    `API keys (${partner.apiKeys.length})`,
    ...partner.apiKeys.map((k) => `  ${k.keyPrefix ? `dbk_${k.keyPrefix}…` : '(imported by hash)'}  ${k.label}  ${keyState(k)}${k.lastUsedAt ? `, last used ${time(k.lastUsedAt)}` : ''}`),
  ];
}

export interface PartnerMessageStatus {
  messageId: string;
  status: string;
  reason: string | null;
  operations: { seq: number; kind: string; target: string | null; status: string; error: string | null; attempts: number }[];
}

export function formatSent(status: PartnerMessageStatus): string[] {
  return [
    `Message ${status.messageId}: ${status.status}${status.reason ? ` (${status.reason})` : ''}`,
    ...status.operations.map((op) => `  #${op.seq} ${op.kind} ${op.target ?? ''}: ${op.status}${op.error ? `: ${op.error}` : ''}`),
  ];
}
