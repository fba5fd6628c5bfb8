import { ClientError, GraphQLClient } from 'graphql-request';
import { Agent, Dispatcher, request } from 'undici';
import type {
  Booking,
  BookingEntityRefInput,
  BookingInput,
  BookingsExportRequest,
  DocumentOrdering,
  DocumentsFilterInput,
  UpdateBookingStatusInput,
  UpdateBookingTasksInput,
  VehicleInput,
} from './booking.types';
import { Readable } from 'node:stream';
import type {
  Document,
  DocumentInput,
  DocumentJob,
  DocumentJobResultEntry,
  DocumentQuery,
  DocumentStream,
} from './document.types';
import {
  classifyGraphqlCode,
  classifyStatus,
  fromTransportFailure,
  parseRetryAfter,
  PlatformCallError,
  reasonFromBody,
  truncate,
} from './platform-error';

export interface PlatformClientOptions {
  /** e.g. `https://platform.example` (no trailing `/api/...`). */
  baseUrl: string;
  /** Bearer token. Never logged, never part of an error. */
  token: string;
  /** Per-call timeout; a call without an answer by then is a retryable failure. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface ReferenceOptions {
  enableBaseOrgs?: boolean;
  selfCoreId?: string;
}

export type WriteOutcome = 'created' | 'updated';

/** The largest page the platform serves (documents list, GraphQL documents, bookings export). */
export const MAX_PAGE_SIZE = 1000;
export const MAX_BATCH_DOCUMENTS = 25_000;

const BOOKING_FIELDS = `id pin requestedTime bookedTime duration reassignedFrom
  status { id name description } carrier { id name description } location { id name }
  tasks { id direction documentId loads { name quantity loadTag } }`;

interface RawResponse {
  status: number;
  text: string;
}

/** The slowest upload the timeout allows for: 1 MiB/s (bytes per millisecond). */
const SLOWEST_UPLOAD_BYTES_PER_MS = 1024;

/** Bytes of a streamed body gathered per write: fewer, larger writes than one per document. */
const STREAM_WRITE_BYTES = 64 * 1024;

/** `[a,b,...]` from the JSON texts of its items, in writes of about STREAM_WRITE_BYTES. */
async function* jsonArray(items: AsyncIterable<string>): AsyncGenerator<string> {
  let pending = '[';
  let first = true;
  for await (const item of items) {
    pending += first ? item : `,${item}`;
    first = false;
    if (pending.length >= STREAM_WRITE_BYTES) {
      yield pending;
      pending = '';
    }
  }
  yield `${pending}]`;
}

/**
 * Typed client for every platform operation: REST documents, batch jobs and bookings export
 * (fetch, keep-alive), and GraphQL bookings (graphql-request). Every failure is a PlatformCallError.
 */
export class PlatformClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  /** REST calls go through undici's request API on keep-alive connections: a tenth of fetch's CPU per call. */
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  private readonly graphql: GraphQLClient;

  constructor(private readonly options: PlatformClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.fetchImpl = options.fetch ?? fetch;
    this.graphql = new GraphQLClient(`${this.baseUrl}/api/v1/graphql`, {
      headers: () => ({ authorization: `Bearer ${this.options.token}` }),
      fetch: this.fetchImpl,
    });
  }

  // ---- REST documents -------------------------------------------------------------------------

  async listDocuments(
    organisationId: string,
    page: { pageNumber?: number; pageSize?: number } = {},
  ): Promise<DocumentQuery> {
    const response = await this.rest(
      'list documents',
      'GET',
      `/api/v2/organisations/${enc(organisationId)}/documents`,
      { query: page },
    );
    return JSON.parse(response.text);
  }

  async getDocument(organisationId: string, documentId: string): Promise<Document> {
    return JSON.parse((await this.rest('get document', 'GET', this.documentPath(organisationId, documentId))).text);
  }

  /** POST: creates; an existing id is a permanent 409. */
  async createDocument(
    organisationId: string,
    document: DocumentInput,
    options: ReferenceOptions = {},
  ): Promise<Document> {
    const path = `/api/v2/organisations/${enc(organisationId)}/documents`;
    return JSON.parse(
      (await this.rest('create document', 'POST', path, { query: references(options), body: document })).text,
    );
  }

  /** PUT: replaces an existing document (404 when missing). */
  async putDocument(
    organisationId: string,
    document: DocumentInput,
    options: ReferenceOptions = {},
  ): Promise<WriteOutcome> {
    const response = await this.rest('put document', 'PUT', this.documentPath(organisationId, document.id), {
      query: references(options),
      body: document,
    });
    return response.status === 201 ? 'created' : 'updated';
  }

  /** PUT ?upsert=true: the idempotent write every delivery uses. */
  async upsertDocument(
    organisationId: string,
    document: DocumentInput,
    options: ReferenceOptions = {},
  ): Promise<WriteOutcome> {
    const query = { upsert: true, ...references(options) };
    const response = await this.rest('upsert document', 'PUT', this.documentPath(organisationId, document.id), {
      query,
      body: document,
    });
    return response.status === 201 ? 'created' : 'updated';
  }

  async deleteDocument(organisationId: string, documentId: string): Promise<void> {
    await this.rest('delete document', 'DELETE', this.documentPath(organisationId, documentId));
  }

  // ---- REST batch jobs ------------------------------------------------------------------------

  /** A batch job of documents: given whole, or as a stream of their JSON (sent as it is read, never one string). */
  async submitUpsertJob(
    organisationId: string,
    documents: DocumentInput[] | DocumentStream,
    options: ReferenceOptions = {},
  ): Promise<DocumentJob> {
    const path = `/api/v2/organisations/${enc(organisationId)}/document-jobs/`;
    const body = Array.isArray(documents) ? { body: documents } : { stream: documents };
    return JSON.parse(
      (await this.rest('submit upsert job', 'POST', path, { query: references(options), ...body })).text,
    );
  }

  async submitDeleteJob(organisationId: string, documentIds: string[]): Promise<DocumentJob> {
    const path = `/api/v2/organisations/${enc(organisationId)}/document-jobs/documents`;
    return JSON.parse((await this.rest('submit delete job', 'DELETE', path, { body: documentIds })).text);
  }

  async listJobs(organisationId: string): Promise<DocumentJob[]> {
    return JSON.parse(
      (await this.rest('list jobs', 'GET', `/api/v2/organisations/${enc(organisationId)}/document-jobs/`)).text,
    );
  }

  async getJob(organisationId: string, jobId: string): Promise<DocumentJob> {
    return JSON.parse((await this.rest('get job', 'GET', this.jobPath(organisationId, jobId))).text);
  }

  async getJobResult(organisationId: string, jobId: string): Promise<DocumentJobResultEntry[]> {
    return JSON.parse((await this.rest('get job result', 'GET', `${this.jobPath(organisationId, jobId)}/result`)).text);
  }

  async cancelJob(organisationId: string, jobId: string): Promise<DocumentJob | undefined> {
    const response = await this.rest('cancel job', 'DELETE', this.jobPath(organisationId, jobId));
    return response.text ? JSON.parse(response.text) : undefined;
  }

  // ---- REST bookings export -------------------------------------------------------------------

  /** One page of the export: rows keyed by the layout's column names. */
  async exportBookings(
    request: BookingsExportRequest & { format?: 'json' },
    page?: { skip?: number; count?: number },
  ): Promise<Record<string, unknown>[]>;
  async exportBookings(
    request: BookingsExportRequest & { format: 'csv' },
    page?: { skip?: number; count?: number },
  ): Promise<string>;
  async exportBookings(
    request: BookingsExportRequest,
    page: { skip?: number; count?: number } = {},
  ): Promise<Record<string, unknown>[] | string> {
    const response = await this.rest('export bookings', 'POST', '/api/v2/bookings', { query: page, body: request });
    return request.format === 'csv'
      ? response.text
      : (JSON.parse(response.text) as { data: Record<string, unknown>[] }).data;
  }

  /**
   * Every row of an export, paging with skip/count (at most 1000 a page) until a short page; it stops
   * reading once it has more than `maxRows` (the caller sees the export is longer than it holds).
   */
  async exportAllBookings(
    request: BookingsExportRequest & { format?: 'json' },
    pageSize = MAX_PAGE_SIZE,
    maxRows = Infinity,
  ): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    const count = Math.min(pageSize, MAX_PAGE_SIZE);
    for (let skip = 0; ; skip += count) {
      const page = await this.exportBookings({ ...request, format: 'json' }, { skip, count });
      rows.push(...page);
      if (page.length < count || rows.length > maxRows) {
        return rows;
      }
    }
  }

  // ---- GraphQL --------------------------------------------------------------------------------

  async booking(id: string): Promise<Booking | null> {
    const data = await this.gql<{ booking: Booking | null }>(
      'booking',
      `query Booking($id: ID!) { booking(id: $id) { ${BOOKING_FIELDS} } }`,
      { id },
    );
    return data.booking;
  }

  async documents(
    organisationId: string,
    args: {
      filter?: DocumentsFilterInput;
      start?: number;
      count?: number;
      ordering?: DocumentOrdering;
      ascending?: boolean;
    } = {},
  ): Promise<DocumentQuery<{ id: string; description: string | null; updateDate: string }>> {
    const query = `query Documents($organisationId: UUID!, $filter: DocumentsFilterInput, $start: Int, $count: Int, $ordering: DocumentOrdering, $ascending: Boolean) {
      documents(organisationId: $organisationId, filter: $filter, start: $start, count: $count, ordering: $ordering, ascending: $ascending) {
        start pageSize totalPages totalRecords data { id description updateDate } } }`;
    return (
      await this.gql<{ documents: DocumentQuery<{ id: string; description: string | null; updateDate: string }> }>(
        'documents',
        query,
        { organisationId, ...args },
      )
    ).documents;
  }

  /** createBooking with a BookingInput or a BookingEntityRefInput (names in place of UUIDs); returns the booking id. */
  async createBooking(
    organisationId: string,
    input: { booking: BookingInput } | { bookingEntityRef: BookingEntityRefInput },
  ): Promise<string> {
    const query = `mutation CreateBooking($organisationId: UUID!, $booking: BookingInput, $bookingEntityRef: BookingEntityRefInput) {
      createBooking(organisationId: $organisationId, booking: $booking, bookingEntityRef: $bookingEntityRef) }`;
    return (await this.gql<{ createBooking: string }>('createBooking', query, { organisationId, ...input }))
      .createBooking;
  }

  async updateBookingStatus(organisationId: string, input: UpdateBookingStatusInput): Promise<void> {
    const query = `mutation UpdateBookingStatus($organisationId: UUID!, $bookingId: ID!, $statusId: UUID, $fields: [FieldDataInput!],
      $formSubmissions: [FormSubmissionInput!], $statusReference: BookingStatusEntityRefInput) {
      updateBookingStatus(organisationId: $organisationId, bookingId: $bookingId, statusId: $statusId, fields: $fields,
        formSubmissions: $formSubmissions, statusReference: $statusReference) }`;
    await this.gql('updateBookingStatus', query, { organisationId, ...input });
  }

  async updateBookingTasks(organisationId: string, input: UpdateBookingTasksInput): Promise<void> {
    const query = `mutation UpdateBookingTasks($organisationId: UUID!, $bookingId: ID!, $addTasks: [TaskInput!]!, $deleteTasks: [ID!]!,
      $time: Timestamp!, $areaId: UUID, $headerLoads: [LoadQuantityInput!]) {
      updateBookingTasks(organisationId: $organisationId, bookingId: $bookingId, addTasks: $addTasks, deleteTasks: $deleteTasks,
        time: $time, areaId: $areaId, headerLoads: $headerLoads) }`;
    await this.gql('updateBookingTasks', query, { organisationId, ...input });
  }

  async updateVehicle(organisationId: string, vehicleId: string, vehicle: VehicleInput): Promise<void> {
    const query = `mutation UpdateVehicle($organisationId: UUID!, $vehicleId: UUID!, $vehicle: VehicleInput) {
      updateVehicle(organisationId: $organisationId, vehicleId: $vehicleId, vehicle: $vehicle) }`;
    await this.gql('updateVehicle', query, { organisationId, vehicleId, vehicle });
  }

  // ---- transport ------------------------------------------------------------------------------

  private documentPath(organisationId: string, documentId: string) {
    return `/api/v2/organisations/${enc(organisationId)}/documents/${enc(documentId)}`;
  }

  private jobPath(organisationId: string, jobId: string) {
    return `/api/v2/organisations/${enc(organisationId)}/document-jobs/${enc(jobId)}`;
  }

  private async rest(
    operation: string,
    method: string,
    path: string,
    {
      query,
      body,
      stream,
    }: { query?: Record<string, string | number | boolean | undefined>; body?: unknown; stream?: DocumentStream } = {},
  ): Promise<RawResponse> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) {
        search.set(key, String(value));
      }
    }
    const url = `${this.baseUrl}${path}${search.size ? `?${search}` : ''}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // A 25,000-document batch is ~52 MiB: the time to send it is added to the timeout, or it would always run out.
    const bytes = stream?.bytes ?? payload?.length ?? 0;
    const timeoutMs = this.timeoutMs + Math.ceil(bytes / SLOWEST_UPLOAD_BYTES_PER_MS);
    let status: number;
    let text: string;
    let retryAfter: string | string[] | undefined;
    try {
      const response = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          accept: 'application/json',
          ...(body === undefined && !stream ? {} : { 'content-type': 'application/json' }),
        },
        body: stream ? Readable.from(jsonArray(stream.json)) : payload,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.statusCode;
      retryAfter = response.headers['retry-after'];
      text = await response.body.text();
    } catch (error) {
      throw fromTransportFailure(operation, error, timeoutMs);
    }
    if (status >= 200 && status < 300) {
      return { status, text };
    }
    throw new PlatformCallError(
      classifyStatus(status),
      operation,
      reasonFromBody(text),
      status,
      parseRetryAfter((Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null),
    );
  }

  private closing?: Promise<void>;

  /** Closes the keep-alive connections (application shutdown); closing again waits for the same close. */
  close(): Promise<void> {
    return (this.closing ??= this.agent.close());
  }

  private async gql<T>(operationName: string, document: string, variables: Record<string, unknown>): Promise<T> {
    const operation = `graphql ${operationName}`;
    try {
      return await this.graphql.request<T>({
        document,
        variables: stripUndefined(variables),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      if (!(error instanceof ClientError)) {
        throw fromTransportFailure(operation, error, this.timeoutMs);
      }
      const { status, errors, headers } = error.response;
      const retryAfterMs = parseRetryAfter(headers?.get?.('retry-after') ?? null);
      if (status !== 200 || !errors?.length) {
        const reason = errors?.length
          ? errors.map((e) => e.message).join('; ')
          : reasonFromBody(String((error.response as { body?: unknown }).body ?? error.message));
        throw new PlatformCallError(classifyStatus(status), operation, truncate(reason), status, retryAfterMs);
      }
      const first = errors[0] as { message: string; extensions?: { code?: string } };
      const code = first.extensions?.code;
      throw new PlatformCallError(
        classifyGraphqlCode(code),
        operation,
        truncate(errors.map((e) => e.message).join('; ')),
        status,
        retryAfterMs,
        code,
      );
    }
  }
}

const enc = encodeURIComponent;

const references = (options: ReferenceOptions) => ({
  enableBaseOrgs: options.enableBaseOrgs || undefined,
  selfCoreId: options.selfCoreId,
});

const stripUndefined = (value: Record<string, unknown>) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
