import { Inject, Injectable, Optional } from '@nestjs/common';
import { UnrecoverableError } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { MessageMetadata, MessageRepository } from '@dockbridge/audit';
import {
  PartnerExportSettings,
  PartnerFileRepository,
  PartnerRepository,
  WebhookSecretRepository,
} from '@dockbridge/partners';
import { MAX_PAGE_SIZE, PlatformAccounts, PlatformCallError, PlatformClient } from '@dockbridge/platform';

import type { ExportJobData } from '../queues';

/** Token for the fetch an export posts with (only tests provide one). */
export const EXPORT_FETCH = Symbol('ExportFetch');

const POST_TIMEOUT_MS = 30_000;

/** Records of a CSV text: line breaks outside quotes (RFC 4180 fields may hold line breaks). */
export function csvRecords(text: string): string[] {
  const records: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === '\n') {
      records.push(text.slice(start, text[i - 1] === '\r' ? i - 1 : i));
      start = i + 1;
    }
  }
  if (start < text.length) {
    records.push(text.slice(start));
  }
  return records;
}

/**
 * Rows one export run holds: it is collected whole, to be stored and signed (~500 bytes a CSV row,
 * several times that as JSON objects), by a worker of 192 MiB. A filter that matches more fails the
 * run for good, saying so, rather than the worker.
 */
export const MAX_EXPORT_ROWS = 50_000;

const tooManyRows = () =>
  new UnrecoverableError(
    `the export matches more than ${MAX_EXPORT_ROWS} bookings, more than one run holds: narrow its filter (settings.exports[].filter)`,
  );

/**
 * A scheduled bookings export: pages through the platform's export (skip/count ≤ 1000) to the end,
 * joins the pages into one file, records it as a message (channel `export`: the audit of what was
 * sent), and delivers it to the partner's SFTP outbound folder and/or its URL, signed with
 * Standard Webhooks. A platform failure is thrown back to the queue's retry policy.
 */
@Injectable()
export class RunExport {
  constructor(
    private readonly partners: PartnerRepository,
    private readonly messages: MessageRepository,
    private readonly files: PartnerFileRepository,
    private readonly secrets: WebhookSecretRepository,
    private readonly accounts: PlatformAccounts,
    // Tests give a fetch of their own; the application, none (the global one).
    @Optional() @Inject(EXPORT_FETCH) private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async execute(
    job: ExportJobData,
    runAt = new Date(),
    remember: (messageId: string) => Promise<void> = async () => undefined,
  ): Promise<{ messageId: string; rows: number } | 'unscheduled'> {
    const partner = await this.partners.findById(job.partnerId);
    const settings = partner?.settings.exports?.find((e) => e.id === job.exportId);
    if (!partner || !partner.enabled || !settings) {
      return 'unscheduled';
    }

    // A retried run delivers the file it recorded (one message per run, its events show every try).
    let message = job.messageId ? await this.messages.findById(job.messageId) : null;
    if (message?.status === 'delivered') {
      return { messageId: message.id, rows: message.metadata.rows ?? 0 };
    }
    if (!message) {
      const client = this.accounts.clientFor(partner.locationOrganisationId, partner.platformAccount);
      if (!client) {
        throw new PlatformCallError(
          'auth',
          'export bookings',
          `no platform account is configured for organisation ${partner.locationOrganisationId}`,
        );
      }
      const { content, rows, pages } = await this.collect(client, settings);
      const contentType = settings.format === 'csv' ? 'text/csv' : 'application/json';
      const fileName = `export_${settings.id}_${runAt.toISOString().replace(/[-:.]/g, '').slice(0, 18)}.${settings.format}`;
      message = await this.messages.record({
        partnerId: partner.id,
        channel: 'export',
        rawPayload: content,
        contentType,
        metadata: { exportId: settings.id, fileName, rows, pages },
        actor: 'worker',
      });
      await remember(message.id);
    }
    const { rawPayload: content, contentType } = message;
    // An export run's message is recorded above with all three.
    const {
      fileName: name,
      rows,
      pages,
    } = message.metadata as Required<Pick<MessageMetadata, 'fileName' | 'rows' | 'pages'>>;
    try {
      if (settings.sftp !== false) {
        await this.files.put(partner.id, 'outbound', name, Buffer.from(content, 'utf8'), {
          messageId: message.id,
          kind: 'export',
        });
      }
      if (settings.url) {
        await this.post(partner.id, settings.url, message.id, content, contentType, new Date());
      }
      await this.messages.transition(
        message.id,
        'delivered',
        'worker',
        `${rows} rows in ${pages} pages${settings.sftp !== false ? `, outbound/${name}` : ''}${settings.url ? `, posted to ${new URL(settings.url).host}` : ''}`,
      );
    } catch (error) {
      await this.messages.transition(message.id, 'failed', 'worker', (error as Error).message);
      throw error;
    }
    return { messageId: message.id, rows };
  }

  /**
   * A run that gave up before it had a file (the platform refused the export, say) is audited too:
   * a failed export message with the reason and no file. A run that had one failed on its message.
   */
  async recordFailedRun(job: ExportJobData, runAt: Date, error: unknown): Promise<void> {
    if (job.messageId) {
      return;
    }
    const format = (await this.partners.findById(job.partnerId))?.settings.exports?.find(
      (e) => e.id === job.exportId,
    )?.format;
    const message = await this.messages.record({
      partnerId: job.partnerId,
      channel: 'export',
      rawPayload: '',
      contentType: format === 'csv' ? 'text/csv' : 'application/json',
      metadata: { exportId: job.exportId, runAt: runAt.toISOString(), rows: 0 },
      actor: 'worker',
    });
    await this.messages.transition(
      message.id,
      'failed',
      'worker',
      `the export run failed before it had a file: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  private async collect(
    client: PlatformClient,
    settings: PartnerExportSettings,
  ): Promise<{ content: string; rows: number; pages: number }> {
    const request = { layoutId: settings.layoutId, filter: settings.filter, viewAs: settings.viewAs ?? 'bookings' };
    if (settings.format === 'json') {
      const data = await client.exportAllBookings(request, MAX_PAGE_SIZE, MAX_EXPORT_ROWS);
      if (data.length > MAX_EXPORT_ROWS) {
        throw tooManyRows();
      }
      return {
        content: JSON.stringify({ data }),
        rows: data.length,
        pages: Math.floor(data.length / MAX_PAGE_SIZE) + 1,
      };
    }
    let header: string | undefined;
    const lines: string[] = [];
    for (let skip = 0, pages = 1; ; skip += MAX_PAGE_SIZE, pages++) {
      const [first, ...records] = csvRecords(
        await client.exportBookings({ ...request, format: 'csv' }, { skip, count: MAX_PAGE_SIZE }),
      );
      header ??= first;
      lines.push(...records);
      if (lines.length > MAX_EXPORT_ROWS) {
        throw tooManyRows();
      }
      if (records.length < MAX_PAGE_SIZE) {
        return { content: [header ?? '', ...lines].join('\r\n') + '\r\n', rows: lines.length, pages };
      }
    }
  }

  private async post(
    partnerId: string,
    url: string,
    messageId: string,
    content: string,
    contentType: string,
    now: Date,
  ): Promise<void> {
    const [secret] = await this.secrets.activeSecrets(partnerId);
    if (!secret) {
      throw new Error(`partner ${partnerId} has no active webhook secret to sign the export with`);
    }
    const signature = new Webhook(secret).sign(messageId, now, content);
    const host = new URL(url).host;
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          'webhook-id': messageId,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body: content,
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
    } catch (error) {
      // Named by host and cause only: the URL itself may carry credentials.
      const e = error as { name?: string; message?: string; cause?: { code?: string } };
      const cause =
        e?.name === 'TimeoutError'
          ? `no answer within ${POST_TIMEOUT_MS} ms`
          : (e?.cause?.code ??
            String(e?.message ?? error)
              .split(url)
              .join(host)
              .replace(/\/\/[^\s/@]*@/g, '//'));
      throw new Error(`posting the export to ${host} failed: ${cause}`);
    }
    if (!response.ok) {
      throw new Error(`posting the export to ${host} answered HTTP ${response.status}`);
    }
  }
}
