import type { Schemas } from './api/client';

export type MessageStatus = Schemas['MessageSummarySchema']['status'];
export type MessageChannel = Schemas['MessageSummarySchema']['channel'];

export const STATUSES: MessageStatus[] = [
  'received',
  'translating',
  'delivering',
  'delivered',
  'partially_failed',
  'failed',
  'rejected',
  'duplicate',
  'superseded',
];
export const CHANNELS: MessageChannel[] = ['api', 'sftp', 'http-edi', 'webhook', 'replay', 'export'];

/** The message filter of the search and of bulk replay, as the page's query keeps it (text values). */
export interface MessageFilter {
  status?: MessageStatus[];
  channel?: MessageChannel[];
  partner?: string;
  from?: string;
  to?: string;
  documentId?: string;
  fileName?: string;
  interchange?: string;
  /** Words in the message's reason. */
  text?: string;
}

export const FILTER_KEYS = ['partner', 'from', 'to', 'documentId', 'fileName', 'interchange', 'text'] as const;

export function filterOf(query: URLSearchParams): MessageFilter {
  const list = <T extends string>(key: string, allowed: T[]) => {
    const values = (query.get(key) ?? '').split(',').filter((v): v is T => (allowed as string[]).includes(v));
    return values.length ? values : undefined;
  };
  const filter: MessageFilter = { status: list('status', STATUSES), channel: list('channel', CHANNELS) };
  for (const key of FILTER_KEYS) {
    const value = query.get(key)?.trim();
    if (value) {
      filter[key] = value;
    }
  }
  return filter;
}

export function queryOf(filter: MessageFilter): Record<string, string | undefined> {
  return {
    status: filter.status?.join(','),
    channel: filter.channel?.join(','),
    ...Object.fromEntries(FILTER_KEYS.map((key) => [key, filter[key]])),
  };
}

/** `from`/`to` are typed as local date-times in the form and sent as ISO 8601. */
export const isoOf = (local: string | undefined): string | undefined =>
  local ? new Date(local).toISOString() : undefined;

export const apiFilter = (filter: MessageFilter) => ({ ...filter, from: isoOf(filter.from), to: isoOf(filter.to) });
