/**
 * Text output of the CLI. Pure: API answers in, lines out (unit-tested).
 * The types are the answers as the OpenAPI document describes them (@dockbridge/api-client).
 */
import type { Schemas } from '@dockbridge/api-client';
import type { AsJson, EdiPreviewView } from '@dockbridge/pipeline';

export type MessageSummary = Schemas['MessageSummarySchema'];
export type MessagePage = Schemas['MessagePageSchema'];
export type Operation = Schemas['OperationSchema'];
export type Attempt = Schemas['AttemptSchema'];
export type MessageFile = Schemas['MessageFileSchema'];
export type MessageDetail = Schemas['MessageDetailSchema'];
export type ReplayResult = Schemas['ReplayResultSchema'];
export type EndedMessage = Schemas['EndedMessageSchema'];
export type BulkReplayResult = Schemas['BulkReplayDryRunSchema'] | Schemas['BulkReplayStartedSchema'];
export type BulkReplayStarted = Schemas['BulkReplayStartedSchema'];
export type ReplayRun = Schemas['ReplayRunSchema'];
export type EdiPreview = Schemas['EdiPreviewSchema'];
// The document leaves a diagnostic and a document open ({[key]: unknown}): the preview's view names their fields.
type PreviewView = AsJson<EdiPreviewView>;
export type Diagnostic = PreviewView['transactionSets'][number]['diagnostics'][number];
type PreviewDocument = PreviewView['documents'][number];

/** Statuses a run ends in. */
export const RUN_OVER: readonly string[] = ['completed', 'failed'];

/** One line, at most `max` characters (an ellipsis marks a cut). */
export function excerpt(text: string | null | undefined, max: number): string {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** ISO 8601 to `2026-11-01 12:34:56Z` (UTC, to the second); anything unparseable is shown as given. */
export function time(iso: string | null | undefined): string {
  if (!iso) {
    return '';
  }
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
  if (page.items.length === 0) {
    return ['No messages match.'];
  }
  const rows = page.items.map((m) => [
    m.id,
    time(m.receivedAt),
    m.partnerId,
    m.channel,
    m.status,
    excerpt(m.statusReason, REASON_COLUMN_CHARS),
  ]);
  const lines = table(['ID', 'RECEIVED', 'PARTNER', 'CHANNEL', 'STATUS', 'REASON'], rows);
  lines.push(
    '',
    page.nextCursor
      ? `${plural(page.items.length, 'message')}; more with --cursor ${page.nextCursor}`
      : plural(page.items.length, 'message'),
  );
  return lines;
}

const operationTarget = (op: Operation) =>
  [op.targetId, op.organisationId && `at ${op.organisationId}`].filter(Boolean).join(' ');

function formatAttempt(a: Attempt): string {
  const parts = [
    time(a.startedAt),
    a.outcome,
    a.httpStatus === null ? 'no HTTP status' : `HTTP ${a.httpStatus}`,
    `${a.durationMs} ms`,
  ];
  const error = a.errorExcerpt ? `  ${excerpt(a.errorExcerpt, 200)}` : '';
  return `      ${parts.join('  ')}${error}`;
}

/** An outbound file still there has not been fetched (partners remove what they fetch). */
function fileState(f: MessageFile): string {
  const fetched = f.fetchedAt ? `fetched ${time(f.fetchedAt)}` : '';
  if (f.removedAt) {
    return [fetched, `removed ${time(f.removedAt)}`].filter(Boolean).join(', ');
  }
  return fetched || (f.folder === 'outbound' ? 'not fetched yet' : 'present');
}

export function formatMessageDetail(detail: MessageDetail): string[] {
  const m = detail.message;
  const lines = [`Message ${m.id}`];
  const field = (name: string, value: string) => lines.push(`  ${name.padEnd(10)}${value}`);
  field('status', m.statusReason ? `${m.status} (${excerpt(m.statusReason, 300)})` : m.status);
  field('partner', m.partnerId);
  field('channel', m.channel);
  field('received', time(m.receivedAt));
  field('updated', time(m.updatedAt));
  field('content', `${m.contentType}, ${m.payloadBytes} bytes, sha256 ${m.sha256}`);
  if (m.replayOf) {
    field('replay of', m.replayOf);
  }
  if (m.metadata && Object.keys(m.metadata).length) {
    field('metadata', excerpt(JSON.stringify(m.metadata), 300));
  }

  const { total, byStatus } = detail.operationCounts;
  const counted = Object.entries(byStatus)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const shown = detail.operations.length;
  const range =
    shown < total && shown > 0 ? `#${detail.operations[0].seq}–#${detail.operations[shown - 1].seq} of ` : '';
  lines.push('', `Operations (${range}${total}${counted && total > 0 ? `: ${counted}` : ''})`);
  for (const op of detail.operations) {
    const outcome = op.errorClass ? `${op.status} (${op.errorClass})` : op.status;
    lines.push(
      `  #${op.seq} ${op.kind} ${operationTarget(op)}: ${outcome}, ${plural(op.attemptCount, 'attempt')}`.replace(
        / :/,
        ':',
      ),
    );
    if (op.lastError) {
      lines.push(`      last error: ${excerpt(op.lastError, 300)}`);
    }
    for (const attempt of op.attempts ?? []) {
      lines.push(formatAttempt(attempt));
    }
  }

  if (detail.nextOperationsAfter !== null) {
    lines.push(`  more with --after ${detail.nextOperationsAfter}`);
  }

  lines.push('', `Events (${detail.events.length})`);
  for (const e of detail.events) {
    const change = e.fromStatus ? `${e.fromStatus} -> ${e.toStatus}` : e.toStatus;
    lines.push(`  ${time(e.at)}  ${change}  by ${e.actor}${e.reason ? `: ${excerpt(e.reason, 200)}` : ''}`);
  }
  if (detail.files?.length) {
    lines.push(
      '',
      `Files (${detail.fileCount > detail.files.length ? `the first ${detail.files.length} of ${detail.fileCount}` : detail.files.length})`,
    );
    const rows = detail.files.map((f) => [
      `${f.folder}/${f.name}`,
      f.kind ?? 'upload',
      `${f.size} bytes`,
      time(f.createdAt),
      fileState(f),
    ]);
    lines.push(...table(['FILE', 'KIND', 'SIZE', 'WRITTEN', 'STATE'], rows).map((line) => `  ${line}`));
  }
  lines.push(
    '',
    m.payloadTruncated ? '(--payload prints the whole raw payload)' : '(--payload prints the raw payload)',
  );
  return lines;
}

export function formatReplay(result: ReplayResult): string[] {
  return [
    `Replayed ${result.replayOf} as new message ${result.messageId} (${result.status}).`,
    `Follow it: dockbridge messages show ${result.messageId}`,
  ];
}

export function formatEnded(result: EndedMessage): string[] {
  return [
    `Ended ${result.ended} operation(s) of message ${result.messageId}: it is ${result.status}.`,
    `Replay it later if it should go after all: dockbridge messages replay ${result.messageId}`,
  ];
}

export function formatBulkReplay(result: BulkReplayResult): string[] {
  if (result.dryRun) {
    const skipped = result.skipped?.length
      ? [
          `${plural(result.skipped.length, 'message')} would be skipped:`,
          ...result.skipped.map((s) => `  ${s.id}  ${s.reason}`),
        ]
      : [];
    const capped = result.limitReached
      ? [`Only the first ${result.limitReached} matching messages are looked at: narrow the filter for the rest.`]
      : [];
    return [
      `Dry run: ${plural(result.matching, 'message')} ${result.matching === 1 ? 'matches' : 'match'}; nothing was replayed.`,
      ...skipped,
      ...capped,
      'Add --no-dry-run to replay them.',
    ];
  }
  return formatReplayStarted(result);
}

/** A run queued and left to run (`--detach`). */
export function formatReplayStarted(started: BulkReplayStarted): string[] {
  return [
    `Bulk replay run ${started.runId} ${started.status}.`,
    `Follow it: dockbridge replays show ${started.runId} --wait`,
  ];
}

const number = (n: number) => n.toLocaleString('en');

/** `[#########-----------]`: `done` of `total` in `width` characters (empty while the total is unknown). */
export function progressBar(done: number, total: number | null, width = 30): string {
  const filled = total ? Math.min(width, Math.floor((done / total) * width)) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/** One line of a run's progress: the bar on a terminal, the same line once per change otherwise. */
export function formatRunProgress(run: ReplayRun): string {
  const of =
    run.total === null
      ? `${number(run.done)}`
      : `${number(run.done)}/${number(run.total)}${run.total ? ` (${Math.floor((run.done / run.total) * 100)}%)` : ''}`;
  return `${run.status.padEnd(9)} ${progressBar(run.done, run.total)} ${of}  replayed ${number(run.replayed)}, skipped ${number(run.skipped)}`;
}

/** A run: who asked, where it stands, its figures, the cap when reached, what was skipped and why. */
export function formatReplayRun(run: ReplayRun): string[] {
  const lines = [
    `Bulk replay run ${run.runId}: ${run.status} (asked by ${run.actor} at ${time(run.createdAt)}${run.reason ? `: ${run.reason}` : ''})`,
  ];
  const total = run.total === null ? 'not counted yet' : number(run.total);
  if (run.status === 'completed') {
    lines.push(
      `Replayed ${number(run.replayed)} message${run.replayed === 1 ? '' : 's'}; ${number(run.skipped)} skipped (${number(run.done)} looked at, finished ${time(run.finishedAt)}).`,
    );
  } else {
    lines.push(
      `${number(run.done)} of ${total} looked at: ${number(run.replayed)} replayed, ${number(run.skipped)} skipped.`,
    );
  }
  if (run.limitReached) {
    lines.push(
      `Limit reached: only the first ${number(run.limit)} matching messages are looked at; narrow the filter (--from/--to) and run again for the rest.`,
    );
  }
  if (run.error) {
    lines.push(`Error: ${run.error}`);
  }
  if (run.skips.length) {
    lines.push(
      run.skips.length < run.skipped
        ? `Skipped (the first ${run.skips.length} of ${number(run.skipped)}):`
        : 'Skipped:',
    );
    lines.push(...run.skips.map((s) => `  ${s.id}: ${s.reason}`));
  }
  return lines;
}

export function formatReplayRunList(runs: ReplayRun[]): string[] {
  if (runs.length === 0) {
    return ['No bulk replay runs.'];
  }
  const rows = runs.map((r) => [
    r.runId,
    time(r.createdAt),
    r.status,
    r.total === null ? `${number(r.done)}/?` : `${number(r.done)}/${number(r.total)}`,
    number(r.replayed),
    number(r.skipped),
    r.limitReached ? 'yes' : '',
    r.actor,
  ]);
  return table(['RUN', 'CREATED', 'STATUS', 'DONE', 'REPLAYED', 'SKIPPED', 'LIMIT', 'BY'], rows);
}

function formatDiagnostic(d: Diagnostic): string {
  const where = [
    d.segmentTag && `${d.segmentTag}${d.segmentPosition !== undefined ? ` (segment ${d.segmentPosition})` : ''}`,
    d.element !== undefined && `element ${d.element}`,
  ]
    .filter(Boolean)
    .join(' ');
  return `      ${d.level}${where ? ` ${where}` : ''}: ${d.message}`;
}

export function formatPreview(preview: EdiPreview): string[] {
  const listed = preview.interchanges.length;
  const total = preview.summary.interchanges;
  const lines = [`Interchanges (${listed < total ? `the first ${listed} of ${total}` : total})`];
  for (const i of preview.interchanges) {
    const verdict = i.refused ? 'refused' : i.duplicate ? 'duplicate in this file' : 'accepted';
    lines.push(`  sender ${i.senderId} control ${i.control}: ${verdict}${i.reason ? ` (${i.reason})` : ''}`);
  }
  const { sets, accepted, rejected } = preview.summary;
  const shown = preview.transactionSets.length;
  const first = shown ? Number(preview.nextSetsAfter ?? sets) - shown + 1 : 0;
  lines.push(
    '',
    shown < sets
      ? `Transaction sets (${first}–${first + shown - 1} of ${sets}: ${accepted} accepted, ${rejected} rejected)`
      : `Transaction sets (${sets})`,
  );
  for (const set of preview.transactionSets) {
    const verdict = set.interchangeRefused
      ? 'refused with its interchange'
      : set.envelopeRejected
        ? 'rejected by the envelope check'
        : set.rejected
          ? 'rejected'
          : set.notes?.length
            ? 'accepted with errors'
            : 'accepted';
    lines.push(
      `  ${set.setId} control ${set.transactionControl}${set.documentId ? ` document ${set.documentId}` : ''}: ${verdict}`,
    );
    for (const d of set.diagnostics as Diagnostic[]) {
      lines.push(formatDiagnostic(d));
    }
    for (const note of set.notes ?? []) {
      lines.push(`      note: ${note}`);
    }
  }
  if (preview.nextSetsAfter !== null) {
    lines.push(`  more with --after ${preview.nextSetsAfter}`);
  }
  lines.push('', `Documents (${preview.documents.length})`);
  for (const op of preview.documents as PreviewDocument[]) {
    const id = 'document' in op ? op.document.id : 'documentId' in op ? op.documentId : '';
    lines.push(`  ${op.kind} ${id}${op.organisationId ? ` at ${op.organisationId}` : ''}`.trimEnd());
  }
  if (preview.acknowledgments.length) {
    lines.push(
      '',
      `Acknowledgments: ${preview.acknowledgments.map((a) => `${a.kind} for ${a.acknowledges}`).join(', ')}`,
    );
  }
  if (preview.problems.length) {
    lines.push('', `Problems (${preview.problems.length})`, ...preview.problems.map((p) => `  ${p}`));
  }
  return lines;
}

/** The gateway's `error` and each of its `details`, for stderr. */
export function formatGatewayError(status: number, error: string, details: string[], hint?: string): string[] {
  return [`error: ${error} (HTTP ${status})`, ...details.map((d) => `  ${d}`), ...(hint ? [hint] : [])];
}

/** Replaces every secret in what goes to stderr (errors, traces): an error from a gateway or proxy could echo one back. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  return secrets.reduce<string>(
    (out, secret) => (secret && secret.length >= 4 ? out.split(secret).join('***') : out),
    text,
  );
}

export type PartnerSummary = Schemas['PartnerSchema'];
export type ApiKeyView = Schemas['ApiKeySchema'];

/** What a partner can send: EDI (with its sender ids), webhooks (with the verification), exports. */
function ingressOf(partner: PartnerSummary): string {
  const parts: string[] = [];
  if (partner.settings.edi) {
    parts.push(`edi(${(partner.settings.edi.senderIds ?? []).join(',') || 'no sender id'})`);
  }
  if (partner.settings.webhook) {
    parts.push(`webhook(${partner.settings.webhook.verification ?? '?'})`);
  }
  if (partner.settings.exports?.length) {
    parts.push(`exports(${partner.settings.exports.length})`);
  }
  return parts.join(' ') || 'api only';
}

/** `file`, `api`, or `api!` when a partner file names it and is ignored (a conflict). */
const sourceOf = (partner: PartnerSummary): string => (partner.conflict ? `${partner.source}!` : partner.source);

export function formatPartnerList(partners: PartnerSummary[]): string[] {
  if (partners.length === 0) {
    return ['No partners.'];
  }
  const conflicts = partners.filter((p) => p.conflict).length;
  return [
    ...table(
      ['ID', 'NAME', 'ENABLED', 'LOCATION', 'SOURCE', 'INGRESS'],
      partners.map((p) => [
        p.id,
        p.name,
        p.enabled ? 'yes' : 'no',
        p.locationOrganisationId,
        sourceOf(p),
        ingressOf(p),
      ]),
    ),
    '',
    plural(partners.length, 'partner'),
    ...(conflicts
      ? [
          `${plural(conflicts, 'partner')} owned by the API with a partner file that is ignored (api!): see \`dockbridge partners show <id>\``,
        ]
      : []),
  ];
}

/** Who owns the partner, and a file the gateway ignores for it. */
function ownerLines(partner: PartnerSummary): string[] {
  const owner =
    partner.source === 'file'
      ? `owned by its file ${partner.file ?? '(unknown)'}: change the file, or adopt it (POST /v1/admin/partners/${partner.id}/adopt)`
      : 'owned by the admin API';
  const conflict = partner.conflict
    ? [
        `  conflict: ${partner.conflict.file} names this partner and is ignored (seen ${time(partner.conflict.detectedAt)}); remove the file, or give the partner back to it (POST /v1/admin/partners/${partner.id}/release)`,
      ]
    : [];
  return [`  ${owner}`, ...conflict];
}

export function formatPartner(partner: Schemas['PartnerWithKeysSchema']): string[] {
  const keyState = (k: ApiKeyView) =>
    k.revokedAt ? `revoked ${time(k.revokedAt)}` : k.expiresAt ? `expires ${time(k.expiresAt)}` : 'active';
  return [
    `Partner ${partner.id}: ${partner.name}${partner.enabled ? '' : ' (disabled)'}`,
    `  location ${partner.locationOrganisationId}${partner.platformAccount ? `, platform account ${partner.platformAccount}` : ''}`,
    `  ingress ${ingressOf(partner)}; source ${partner.source}, updated ${time(partner.updatedAt)}`,
    ...ownerLines(partner),
    '',
    `API keys (${partner.apiKeys.length})`,
    ...partner.apiKeys.map(
      (k) =>
        `  ${k.keyPrefix ? `dbk_${k.keyPrefix}…` : '(imported by hash)'}  ${k.label}  ${keyState(k)}${k.lastUsedAt ? `, last used ${time(k.lastUsedAt)}` : ''}`,
    ),
  ];
}

export type PartnerMessageStatus = Schemas['PartnerMessageStatusSchema'];

export function formatSent(status: PartnerMessageStatus): string[] {
  return [
    `Message ${status.messageId}: ${status.status}${status.reason ? ` (${status.reason})` : ''}`,
    ...status.operations.map(
      (op) => `  #${op.seq} ${op.kind} ${op.target ?? ''}: ${op.status}${op.error ? `: ${op.error}` : ''}`,
    ),
  ];
}
