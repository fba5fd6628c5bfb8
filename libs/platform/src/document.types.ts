/** The platform's document shapes (platform-interface.md, "Document"). Plain data, no behaviour. */

export const DIRECTIONS = ['Inbound', 'Outbound'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export const DOCUMENT_MODES = ['Free', 'Fixed', 'Flexible'] as const;
export type DocumentMode = (typeof DOCUMENT_MODES)[number];

/** Reference to an organisation: by service id, or by Core ID (name-based id). Exactly one form. */
export type OrgRef = { id: string } | { coreName: string; coreId: string };

export interface Load {
  name: string;
  quantity: number;
  loadTag?: string;
}

export interface DateRange {
  begin?: string;
  end?: string;
}

export interface DocumentInput {
  id: string;
  direction: Direction;
  occupant?: OrgRef;
  offsite?: OrgRef;
  carrier?: OrgRef;
  loads?: Load[];
  settings?: { mode?: DocumentMode; maxUses?: number };
  validDates?: DateRange;
  preferredDates?: DateRange;
  description?: string;
  attributes?: Record<string, string | number | boolean>;
  status?: { name: string };
  type?: { name: string };
}

/** An OrgRef as the platform returns it: resolved to the organisation it names. */
export interface ResolvedOrgRef {
  id: string;
  name: string;
  coreName: string | null;
  coreId: string | null;
}

export interface Document extends Omit<DocumentInput, 'occupant' | 'offsite' | 'carrier'> {
  occupant?: ResolvedOrgRef;
  offsite?: ResolvedOrgRef;
  carrier?: ResolvedOrgRef;
  createDate: string;
  updateDate: string;
}

export interface DocumentQuery<T = Document> {
  start: number;
  pageSize: number;
  totalPages: number;
  totalRecords: number;
  data: T[];
}

export type DocumentJobStatus = 'Queued' | 'Processing' | 'Completed' | 'Cancelled';

export interface DocumentJob {
  id: string;
  createdAt: string;
  status: DocumentJobStatus;
  completedAt: string | null;
  documentCount: number;
  errors: number;
}

export interface DocumentJobResultEntry {
  id: string | null;
  status: 'Created' | 'Updated' | 'Deleted' | 'Failed';
  error?: { code: 'DocumentNotFound' | 'InvalidDocument' | string; message: string };
}

/** REST error body of the platform: a summary and one reason per problem, each naming its field. */
export interface PlatformErrorBody {
  error: string;
  details: string[];
}

/**
 * Documents already serialised, one JSON text each, read as they are sent (a batch of 25,000 is
 * never one string); `bytes` is about what they add up to, for the request's time budget.
 */
export interface DocumentStream {
  json: AsyncIterable<string>;
  bytes: number;
}
