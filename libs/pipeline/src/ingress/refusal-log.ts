import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { BeforeApplicationShutdown, Injectable, Logger, Optional } from '@nestjs/common';
import { MessageMetadata, MessageRepository, storableText } from '@dockbridge/audit';
import { AppConfig } from '@dockbridge/config';
import { PipelineMetrics } from '../pipeline-metrics';
import { WEBHOOK_CONTENT_TYPE } from '../translate/translators';

export interface Refusal {
  partnerId: string;
  /** Why, as recorded (never a secret). */
  reason: string;
  /** What kind of refusal, to count them by in a summary: `verification`, `too large`. */
  kind: string;
  /** The body as received (null when it was not read): only a diagnosis of it is kept (see `diagnosis`). */
  body: Buffer | null;
  headers?: IncomingHttpHeaders;
  /** Headers that carry the partner's secret (its signature or API-key header): never kept, even if allowlisted. */
  secretHeaders?: (string | undefined)[];
  metadata: MessageMetadata;
}

/** Bytes of a refused body kept as its excerpt: enough to see what a sender sent, never the whole of it. */
export const REFUSAL_EXCERPT_BYTES = 1024;
/** Request headers kept with a refusal: an allowlist (partners name their own secret-bearing headers). */
const REFUSAL_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'user-agent',
  'x-request-id',
  'webhook-id',
  'webhook-timestamp',
];

/** The headers that carry a partner's webhook secret: its HMAC signature header and its API-key header (the Standard Webhooks signature is never allowlisted). */
export const secretHeadersOf = (settings: {
  signatureHeader?: string;
  apiKeyHeader?: string;
}): (string | undefined)[] => [settings.signatureHeader, settings.apiKeyHeader];

/** What a refused request needs for diagnosis: a bounded excerpt, the size and SHA-256 of the body, the safe headers. */
export function diagnosis(
  body: Buffer | null,
  headers: IncomingHttpHeaders = {},
  secretHeaders: (string | undefined)[] = [],
): { rawPayload: string; metadata: MessageMetadata } {
  const secret = new Set(secretHeaders.filter(Boolean).map((name) => name!.toLowerCase()));
  const safe = REFUSAL_HEADERS.filter((name) => !secret.has(name) && typeof headers[name] === 'string');
  const kept = Object.fromEntries(safe.map((name) => [name, String(headers[name]).slice(0, 200)]));
  if (!body) {
    return { rawPayload: '', metadata: { headers: kept } };
  }
  const excerpt = body.subarray(0, REFUSAL_EXCERPT_BYTES);
  return {
    rawPayload: storableText(excerpt.toString('utf8')),
    metadata: {
      size: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
      excerptBytes: excerpt.length,
      headers: kept,
    },
  };
}

interface Window {
  startedAt: number;
  recorded: number;
  /** Bytes recorded in this window (excerpts, reasons and metadata, as UTF-8). */
  bytes: number;
  /** Refusals past the limit in this window, by kind. */
  suppressed: Map<string, number>;
  timer?: NodeJS.Timeout;
}

const WINDOW_MS = 60_000;

/**
 * Refused webhooks (failed verification, too large, not UTF-8) are recorded with their reason and
 * never processed, each as a diagnosis (`diagnosis`: an excerpt of at most REFUSAL_EXCERPT_BYTES,
 * size, hash, safe headers), never the whole body. A flood of them (a misconfigured sender, an
 * attack) must not grow the audit store or load the database without bound: per partner and
 * minute, refusals are recorded one by one up to `gateway.refusalsPerMinute` and
 * `gateway.refusalBytesPerMinute` of records, the rest counted and recorded as one summary when the
 * minute ends. Partners without an endpoint are never recorded, so this holds one entry per known
 * partner.
 */
@Injectable()
export class RefusalLog implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Ingress');
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly messages: MessageRepository,
    private readonly config: AppConfig,
    @Optional() private readonly metrics?: PipelineMetrics,
  ) {}

  async record(refusal: Refusal, now = Date.now()): Promise<void> {
    // Counted whether or not it is recorded one by one (over the limit, the summary row counts it too).
    this.metrics?.refused.inc({ partner: refusal.partnerId, kind: refusal.kind });
    let window = this.windows.get(refusal.partnerId);
    // A minute over: its summary is written while this refusal opens the next one (close() takes
    // the old window out at once, so concurrent refusals all land in the new one).
    let closing: Promise<void> | undefined;
    if (window && now - window.startedAt >= WINDOW_MS) {
      closing = this.close(refusal.partnerId);
      window = undefined;
    }
    if (!window) {
      window = { startedAt: now, recorded: 0, bytes: 0, suppressed: new Map() };
      this.windows.set(refusal.partnerId, window);
    }
    const { rawPayload, metadata } = diagnosis(refusal.body, refusal.headers, refusal.secretHeaders);
    const record: MessageMetadata = { ...refusal.metadata, ...metadata, refusedAtIngress: true };
    // Bytes as stored, not characters: an excerpt of invalid UTF-8 is three bytes a character.
    const cost =
      Buffer.byteLength(rawPayload) + Buffer.byteLength(JSON.stringify(record)) + Buffer.byteLength(refusal.reason);
    const { refusalsPerMinute, refusalBytesPerMinute } = this.config.gateway;
    if (window.recorded < refusalsPerMinute && window.bytes + cost <= refusalBytesPerMinute) {
      window.recorded++;
      window.bytes += cost;
      await closing;
      await this.messages.record({
        partnerId: refusal.partnerId,
        channel: 'webhook',
        contentType: WEBHOOK_CONTENT_TYPE,
        actor: 'gateway',
        rawPayload,
        status: 'rejected',
        statusReason: refusal.reason,
        metadata: record,
      });
      return;
    }
    window.suppressed.set(refusal.kind, (window.suppressed.get(refusal.kind) ?? 0) + 1);
    window.timer ??= setTimeout(() => void this.close(refusal.partnerId), window.startedAt + WINDOW_MS - now).unref();
    await closing;
  }

  /** Records the summaries of every open window (shutdown; tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.windows.keys()].map((partnerId) => this.close(partnerId)));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** Ends a partner's window, recording the summary of what it suppressed. */
  private async close(partnerId: string): Promise<void> {
    const window = this.windows.get(partnerId);
    if (!window) {
      return;
    }
    this.windows.delete(partnerId);
    clearTimeout(window.timer);
    const total = [...window.suppressed.values()].reduce((sum, n) => sum + n, 0);
    if (total === 0) {
      return;
    }
    const byKind = [...window.suppressed].map(([kind, n]) => `${n} ${kind}`).join(', ');
    const from = new Date(window.startedAt).toISOString();
    const reason = `${total} more webhooks refused in the minute from ${from} (${byKind}), counted, not recorded one by one`;
    this.logger.warn({ msg: 'webhook refusals over the recording limit', partnerId, suppressed: total, from });
    try {
      await this.messages.record({
        partnerId,
        channel: 'webhook',
        contentType: WEBHOOK_CONTENT_TYPE,
        actor: 'gateway',
        rawPayload: '',
        status: 'rejected',
        statusReason: reason,
        metadata: {
          refusedAtIngress: true,
          suppressed: total,
          suppressedByKind: Object.fromEntries(window.suppressed),
          windowStartedAt: from,
        },
      });
    } catch (error) {
      this.logger.warn({
        msg: 'refusal summary not recorded',
        partnerId,
        suppressed: total,
        error: (error as Error).message,
      });
    }
  }
}
