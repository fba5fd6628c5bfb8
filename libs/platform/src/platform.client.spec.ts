import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FieldNode, Kind, OperationDefinitionNode, parse, print, SelectionSetNode } from 'graphql';
import { PlatformCallError } from './platform-error';
import { MAX_PAGE_SIZE, PlatformClient } from './platform.client';

/** What the platform was sent. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A platform on 127.0.0.1 that records each request and answers with `answer` (JSON unless a string). */
class FakePlatform {
  readonly seen: Seen[] = [];
  answer: (seen: Seen) => Answer | 'hang' = () => ({ body: {} });
  private readonly server: Server;
  private readonly hanging: ServerResponse[] = [];

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const seen = {
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        };
        this.seen.push(seen);
        const answer = this.answer(seen);
        if (answer === 'hang') {
          this.hanging.push(res);
          return;
        }
        const { status = 200, headers = {}, body } = answer;
        const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text);
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get last(): Seen {
    return this.seen[this.seen.length - 1];
  }

  async stop(): Promise<void> {
    this.hanging.forEach((res) => res.destroy());
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const ORG = '3f1d8a9e-2b4c-4d5e-8f60-718293a4b5c6';
const ORG_PATH = `/api/v2/organisations/${ORG}`;
const DOCUMENT = { id: 'PO 1/2', direction: 'Inbound' as const, occupant: { id: ORG } };

let platform: FakePlatform;
let baseUrl: string;
let client: PlatformClient;

beforeEach(async () => {
  platform = new FakePlatform();
  baseUrl = await platform.start();
  client = new PlatformClient({ baseUrl: `${baseUrl}//`, token: 'secret-token', timeoutMs: 2000 });
});

afterEach(async () => {
  await client.close();
  await platform.stop();
});

const failureOf = async (call: Promise<unknown>): Promise<PlatformCallError> => {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformCallError);
  return error as PlatformCallError;
};

describe('PlatformClient: REST documents', () => {
  it('upserts with PUT ?upsert=true, the token, JSON, and the id escaped; 201 is created, 200 updated', async () => {
    platform.answer = () => ({ status: 201, body: {} });
    await expect(client.upsertDocument(ORG, DOCUMENT)).resolves.toBe('created');
    expect(platform.last).toMatchObject({
      method: 'PUT',
      url: `${ORG_PATH}/documents/PO%201%2F2?upsert=true`,
      headers: {
        authorization: 'Bearer secret-token',
        accept: 'application/json',
        'content-type': 'application/json',
      },
    });
    expect(JSON.parse(platform.last.body)).toEqual(DOCUMENT);
    platform.answer = () => ({ status: 200, body: {} });
    await expect(client.upsertDocument(ORG, DOCUMENT, { enableBaseOrgs: true, selfCoreId: 'DC 01' })).resolves.toBe(
      'updated',
    );
    expect(platform.last.url).toBe(`${ORG_PATH}/documents/PO%201%2F2?upsert=true&enableBaseOrgs=true&selfCoreId=DC+01`);
  });

  it('puts and creates documents, sending the reference options only when set', async () => {
    platform.answer = () => ({ status: 201, body: {} });
    await expect(client.putDocument(ORG, DOCUMENT, { enableBaseOrgs: false })).resolves.toBe('created');
    expect(platform.last).toMatchObject({ method: 'PUT', url: `${ORG_PATH}/documents/PO%201%2F2` });
    platform.answer = () => ({ status: 200, body: {} });
    await expect(client.putDocument(ORG, DOCUMENT)).resolves.toBe('updated');
    platform.answer = () => ({ status: 201, body: { ...DOCUMENT, createDate: 'now' } });
    await expect(client.createDocument(ORG, DOCUMENT, { selfCoreId: 'DC01' })).resolves.toMatchObject({
      createDate: 'now',
    });
    expect(platform.last).toMatchObject({ method: 'POST', url: `${ORG_PATH}/documents?selfCoreId=DC01` });
    expect(JSON.parse(platform.last.body)).toEqual(DOCUMENT);
  });

  it('gets, lists and deletes documents; a call without a body sends no content-type', async () => {
    platform.answer = () => ({ body: { id: 'PO-1' } });
    await expect(client.getDocument(ORG, 'PO-1')).resolves.toEqual({ id: 'PO-1' });
    expect(platform.last).toMatchObject({ method: 'GET', url: `${ORG_PATH}/documents/PO-1`, body: '' });
    expect(platform.last.headers['content-type']).toBeUndefined();
    platform.answer = () => ({ body: { start: 0, data: [] } });
    await expect(client.listDocuments(ORG, { pageNumber: 2, pageSize: 50 })).resolves.toEqual({ start: 0, data: [] });
    expect(platform.last).toMatchObject({ method: 'GET', url: `${ORG_PATH}/documents?pageNumber=2&pageSize=50` });
    await client.listDocuments(ORG);
    expect(platform.last.url).toBe(`${ORG_PATH}/documents`);
    platform.answer = () => ({ status: 204 });
    await expect(client.deleteDocument(ORG, 'PO-1')).resolves.toBeUndefined();
    expect(platform.last).toMatchObject({ method: 'DELETE', url: `${ORG_PATH}/documents/PO-1` });
  });
});

describe('PlatformClient: REST batch jobs and the bookings export', () => {
  it('submits, lists, reads and cancels document jobs at their paths', async () => {
    const job = { id: 'job 1', status: 'Queued' };
    platform.answer = () => ({ body: job });
    await expect(client.submitUpsertJob(ORG, [DOCUMENT], { enableBaseOrgs: true })).resolves.toEqual(job);
    expect(platform.last).toMatchObject({ method: 'POST', url: `${ORG_PATH}/document-jobs/?enableBaseOrgs=true` });
    expect(JSON.parse(platform.last.body)).toEqual([DOCUMENT]);
    await expect(client.submitDeleteJob(ORG, ['PO-1', 'PO-2'])).resolves.toEqual(job);
    expect(platform.last).toMatchObject({ method: 'DELETE', url: `${ORG_PATH}/document-jobs/documents` });
    expect(JSON.parse(platform.last.body)).toEqual(['PO-1', 'PO-2']);
    platform.answer = () => ({ body: [job] });
    await expect(client.listJobs(ORG)).resolves.toEqual([job]);
    expect(platform.last).toMatchObject({ method: 'GET', url: `${ORG_PATH}/document-jobs/` });
    platform.answer = () => ({ body: job });
    await expect(client.getJob(ORG, 'job 1')).resolves.toEqual(job);
    expect(platform.last).toMatchObject({ method: 'GET', url: `${ORG_PATH}/document-jobs/job%201` });
    platform.answer = () => ({ body: [{ id: 'PO-1', status: 'Created' }] });
    await expect(client.getJobResult(ORG, 'job 1')).resolves.toEqual([{ id: 'PO-1', status: 'Created' }]);
    expect(platform.last).toMatchObject({ method: 'GET', url: `${ORG_PATH}/document-jobs/job%201/result` });
    platform.answer = () => ({ body: { ...job, status: 'Cancelled' } });
    await expect(client.cancelJob(ORG, 'job 1')).resolves.toEqual({ ...job, status: 'Cancelled' });
    expect(platform.last).toMatchObject({ method: 'DELETE', url: `${ORG_PATH}/document-jobs/job%201` });
    platform.answer = () => ({ status: 204 });
    await expect(client.cancelJob(ORG, 'job 1')).resolves.toBeUndefined();
  });

  it('exports bookings as JSON rows or CSV text, a page at a time', async () => {
    const request = { layoutId: 'L1', filter: { status: 'Booked' } };
    platform.answer = () => ({ body: { data: [{ Id: 'B1' }] } });
    await expect(client.exportBookings(request, { skip: 10, count: 5 })).resolves.toEqual([{ Id: 'B1' }]);
    expect(platform.last).toMatchObject({ method: 'POST', url: '/api/v2/bookings?skip=10&count=5' });
    expect(JSON.parse(platform.last.body)).toEqual(request);
    platform.answer = () => ({ body: 'Id\nB1\n' });
    await expect(client.exportBookings({ ...request, format: 'csv' })).resolves.toBe('Id\nB1\n');
    expect(platform.last.url).toBe('/api/v2/bookings');
  });

  it('exports every booking, paging until a short page, at most 1000 a page', async () => {
    const rows = Array.from({ length: 5 }, (_, i) => ({ Id: `B${i}` }));
    platform.answer = ({ url }) => {
      const query = new URL(url, baseUrl).searchParams;
      const skip = Number(query.get('skip'));
      return { body: { data: rows.slice(skip, skip + Number(query.get('count'))) } };
    };
    await expect(client.exportAllBookings({ layoutId: 'L1' }, 2)).resolves.toEqual(rows);
    expect(platform.seen.map((s) => s.url)).toEqual([
      '/api/v2/bookings?skip=0&count=2',
      '/api/v2/bookings?skip=2&count=2',
      '/api/v2/bookings?skip=4&count=2',
    ]);
    expect(platform.seen.map((s) => JSON.parse(s.body).format)).toEqual(['json', 'json', 'json']);
    platform.seen.length = 0;
    await expect(client.exportAllBookings({ layoutId: 'L1' }, 5)).resolves.toEqual(rows);
    expect(platform.seen.map((s) => s.url)).toEqual([
      '/api/v2/bookings?skip=0&count=5',
      '/api/v2/bookings?skip=5&count=5',
    ]);
    platform.seen.length = 0;
    await client.exportAllBookings({ layoutId: 'L1' }, 5000);
    expect(platform.seen.map((s) => s.url)).toEqual([`/api/v2/bookings?skip=0&count=${MAX_PAGE_SIZE}`]);
    // Past maxRows it stops asking: the page that went past is the last one read.
    platform.seen.length = 0;
    await expect(client.exportAllBookings({ layoutId: 'L1' }, 2, 3)).resolves.toEqual(rows.slice(0, 4));
    expect(platform.seen).toHaveLength(2);
  });
});

describe('PlatformClient: REST failures', () => {
  it("turns an error status into a PlatformCallError with the platform's reason, class and Retry-After", async () => {
    platform.answer = () => ({ status: 400, body: { error: 'invalid document', details: ['direction: unknown'] } });
    expect(await failureOf(client.upsertDocument(ORG, DOCUMENT))).toMatchObject({
      errorClass: 'permanent',
      operation: 'upsert document',
      reason: 'invalid document: direction: unknown',
      status: 400,
      retryAfterMs: undefined,
    });
    platform.answer = () => ({ status: 429, headers: { 'retry-after': '7' }, body: 'slow down' });
    expect(await failureOf(client.getJob(ORG, 'j'))).toMatchObject({
      errorClass: 'retryable',
      operation: 'get job',
      reason: 'slow down',
      status: 429,
      retryAfterMs: 7000,
    });
    platform.answer = () => ({ status: 401, body: '' });
    expect(await failureOf(client.deleteDocument(ORG, 'PO-1'))).toMatchObject({
      errorClass: 'auth',
      reason: '(empty response body)',
      status: 401,
    });
    platform.answer = () => ({ status: 302, headers: { location: '/elsewhere' }, body: '' });
    expect(await failureOf(client.getDocument(ORG, 'PO-1'))).toMatchObject({ errorClass: 'permanent', status: 302 });
  });

  it('makes a refused connection retryable, naming it', async () => {
    await platform.stop();
    const error = await failureOf(client.getDocument(ORG, 'PO-1'));
    expect(error).toMatchObject({ errorClass: 'retryable', operation: 'get document', status: undefined });
    expect(error.reason).toMatch(/^ECONNREFUSED: /);
  });

  it('times out a call that gets no answer, allowing for the upload of its body at 1 MiB/s', async () => {
    const quick = new PlatformClient({ baseUrl, token: 't', timeoutMs: 100 });
    platform.answer = () => 'hang';
    try {
      expect(await failureOf(quick.getDocument(ORG, 'PO-1'))).toMatchObject({
        errorClass: 'retryable',
        reason: 'no answer within 100 ms',
      });
      const description = 'x'.repeat(3000); // the body is ~3.1 KiB: 4 ms more
      const error = await failureOf(quick.upsertDocument(ORG, { ...DOCUMENT, description }));
      expect(error.reason).toBe('no answer within 104 ms');
    } finally {
      await quick.close();
    }
  });

  it('closes its connections once, however often it is asked', async () => {
    const closing = client.close();
    expect(client.close()).toBe(closing);
    await closing;
  });
});

/** The operation a GraphQL request names and the root field it selects, with the arguments it passes. */
function operationOf(seen: Seen) {
  const sent = JSON.parse(seen.body) as { query: string; variables: Record<string, unknown> };
  const document = parse(sent.query);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const field = operation.selectionSet.selections[0] as FieldNode;
  return {
    type: operation.operation,
    name: operation.name?.value,
    declared: (operation.variableDefinitions ?? []).map((v) => `${v.variable.name.value}: ${print(v.type)}`),
    field: field.name.value,
    arguments: Object.fromEntries((field.arguments ?? []).map((a) => [a.name.value, print(a.value)])),
    selection: field.selectionSet ? fieldsOf(field.selectionSet) : undefined,
    variables: sent.variables,
  };
}

/** A selection set as nested field names: `['id', {status: ['id', 'name']}]`. */
function fieldsOf(set: SelectionSetNode): unknown[] {
  return set.selections.map((s) => {
    if (s.kind !== Kind.FIELD) {
      throw new Error('only fields are expected');
    }
    return s.selectionSet ? { [s.name.value]: fieldsOf(s.selectionSet) } : s.name.value;
  });
}

/** Each argument passes the variable of its own name. */
const passedThrough = (...names: string[]) => Object.fromEntries(names.map((n) => [n, `$${n}`]));

describe('PlatformClient: GraphQL bookings', () => {
  it('reads a booking by id with every field of Booking', async () => {
    const booking = { id: 'B1', pin: '1234' };
    platform.answer = () => ({ body: { data: { booking } } });
    await expect(client.booking('B1')).resolves.toEqual(booking);
    expect(platform.last).toMatchObject({
      method: 'POST',
      url: '/api/v1/graphql',
      headers: { authorization: 'Bearer secret-token' },
    });
    expect(operationOf(platform.last)).toEqual({
      type: 'query',
      name: 'Booking',
      declared: ['id: ID!'],
      field: 'booking',
      arguments: passedThrough('id'),
      selection: [
        'id',
        'pin',
        'requestedTime',
        'bookedTime',
        'duration',
        'reassignedFrom',
        { status: ['id', 'name', 'description'] },
        { carrier: ['id', 'name', 'description'] },
        { location: ['id', 'name'] },
        { tasks: ['id', 'direction', 'documentId', { loads: ['name', 'quantity', 'loadTag'] }] },
      ],
      variables: { id: 'B1' },
    });
  });

  it('queries documents with the filter and paging given, leaving out what is not', async () => {
    const page = { start: 0, pageSize: 1, totalPages: 1, totalRecords: 1, data: [] };
    platform.answer = () => ({ body: { data: { documents: page } } });
    await expect(
      client.documents(ORG, { filter: { typeName: 'PO' }, count: 10, ascending: undefined }),
    ).resolves.toEqual(page);
    expect(operationOf(platform.last)).toMatchObject({
      type: 'query',
      name: 'Documents',
      declared: [
        'organisationId: UUID!',
        'filter: DocumentsFilterInput',
        'start: Int',
        'count: Int',
        'ordering: DocumentOrdering',
        'ascending: Boolean',
      ],
      field: 'documents',
      arguments: passedThrough('organisationId', 'filter', 'start', 'count', 'ordering', 'ascending'),
      selection: ['start', 'pageSize', 'totalPages', 'totalRecords', { data: ['id', 'description', 'updateDate'] }],
      variables: { organisationId: ORG, filter: { typeName: 'PO' }, count: 10 },
    });
    await client.documents(ORG);
    expect(operationOf(platform.last).variables).toEqual({ organisationId: ORG });
  });

  it('creates a booking from a BookingInput or a BookingEntityRefInput and returns its id', async () => {
    platform.answer = () => ({ body: { data: { createBooking: 'B9' } } });
    const booking = { carrierId: 'C1', requestedTime: '2026-11-22T08:00:00Z', duration: 30, tasks: [] };
    await expect(client.createBooking(ORG, { booking })).resolves.toBe('B9');
    expect(operationOf(platform.last)).toEqual({
      type: 'mutation',
      name: 'CreateBooking',
      declared: ['organisationId: UUID!', 'booking: BookingInput', 'bookingEntityRef: BookingEntityRefInput'],
      field: 'createBooking',
      arguments: passedThrough('organisationId', 'booking', 'bookingEntityRef'),
      selection: undefined,
      variables: { organisationId: ORG, booking },
    });
    const bookingEntityRef = { ...booking, carrierId: undefined, carrier: { name: 'Fast Freight' } };
    await client.createBooking(ORG, { bookingEntityRef });
    expect(operationOf(platform.last).variables).toEqual({
      organisationId: ORG,
      bookingEntityRef: {
        requestedTime: booking.requestedTime,
        duration: 30,
        tasks: [],
        carrier: { name: 'Fast Freight' },
      },
    });
  });

  it('updates a booking status, its tasks and a vehicle', async () => {
    platform.answer = () => ({ body: { data: { ok: true } } });
    await expect(
      client.updateBookingStatus(ORG, { bookingId: 'B1', statusReference: { name: 'Arrived' } }),
    ).resolves.toBeUndefined();
    expect(operationOf(platform.last)).toEqual({
      type: 'mutation',
      name: 'UpdateBookingStatus',
      declared: [
        'organisationId: UUID!',
        'bookingId: ID!',
        'statusId: UUID',
        'fields: [FieldDataInput!]',
        'formSubmissions: [FormSubmissionInput!]',
        'statusReference: BookingStatusEntityRefInput',
      ],
      field: 'updateBookingStatus',
      arguments: passedThrough(
        'organisationId',
        'bookingId',
        'statusId',
        'fields',
        'formSubmissions',
        'statusReference',
      ),
      selection: undefined,
      variables: { organisationId: ORG, bookingId: 'B1', statusReference: { name: 'Arrived' } },
    });
    const tasks = { bookingId: 'B1', addTasks: [], deleteTasks: ['T1'], time: '2026-11-22T08:00:00Z' };
    await expect(client.updateBookingTasks(ORG, tasks)).resolves.toBeUndefined();
    expect(operationOf(platform.last)).toEqual({
      type: 'mutation',
      name: 'UpdateBookingTasks',
      declared: [
        'organisationId: UUID!',
        'bookingId: ID!',
        'addTasks: [TaskInput!]!',
        'deleteTasks: [ID!]!',
        'time: Timestamp!',
        'areaId: UUID',
        'headerLoads: [LoadQuantityInput!]',
      ],
      field: 'updateBookingTasks',
      arguments: passedThrough(
        'organisationId',
        'bookingId',
        'addTasks',
        'deleteTasks',
        'time',
        'areaId',
        'headerLoads',
      ),
      selection: undefined,
      variables: { organisationId: ORG, ...tasks },
    });
    await expect(client.updateVehicle(ORG, 'V1', { registration: 'AB-12' })).resolves.toBeUndefined();
    expect(operationOf(platform.last)).toEqual({
      type: 'mutation',
      name: 'UpdateVehicle',
      declared: ['organisationId: UUID!', 'vehicleId: UUID!', 'vehicle: VehicleInput'],
      field: 'updateVehicle',
      arguments: passedThrough('organisationId', 'vehicleId', 'vehicle'),
      selection: undefined,
      variables: { organisationId: ORG, vehicleId: 'V1', vehicle: { registration: 'AB-12' } },
    });
  });
});

describe('PlatformClient: GraphQL failures', () => {
  it('classifies GraphQL errors by the code of the first, with every message', async () => {
    platform.answer = () => ({
      body: {
        data: null,
        errors: [
          { message: 'no such status', extensions: { code: 'BAD_USER_INPUT' } },
          { message: 'and another', extensions: { code: 'UNAUTHENTICATED' } },
        ],
      },
    });
    expect(await failureOf(client.updateBookingStatus(ORG, { bookingId: 'B1' }))).toMatchObject({
      errorClass: 'permanent',
      operation: 'graphql updateBookingStatus',
      reason: 'no such status; and another',
      status: 200,
      graphqlCode: 'BAD_USER_INPUT',
      retryAfterMs: undefined,
    });
    platform.answer = () => ({
      body: { errors: [{ message: 'token expired', extensions: { code: 'UNAUTHENTICATED' } }] },
    });
    expect(await failureOf(client.booking('B1'))).toMatchObject({ errorClass: 'auth', graphqlCode: 'UNAUTHENTICATED' });
    platform.answer = () => ({ body: { errors: [{ message: 'odd' }] } });
    expect(await failureOf(client.booking('B1'))).toMatchObject({ errorClass: 'permanent', graphqlCode: undefined });
  });

  it('classifies an HTTP error by its status, with Retry-After, its errors or its body as the reason', async () => {
    platform.answer = () => ({ status: 503, headers: { 'retry-after': '3' }, body: { error: 'maintenance' } });
    expect(await failureOf(client.createBooking(ORG, { booking: {} as never }))).toMatchObject({
      errorClass: 'retryable',
      operation: 'graphql createBooking',
      reason: 'maintenance',
      status: 503,
      retryAfterMs: 3000,
      graphqlCode: undefined,
    });
    platform.answer = () => ({ status: 403, body: { errors: [{ message: 'not yours' }, { message: 'at all' }] } });
    expect(await failureOf(client.updateVehicle(ORG, 'V1', {}))).toMatchObject({
      errorClass: 'auth',
      reason: 'not yours; at all',
      status: 403,
    });
    platform.answer = () => ({ status: 500, body: '' });
    expect(await failureOf(client.booking('B1'))).toMatchObject({ errorClass: 'retryable', status: 500 });
  });

  it('makes a transport failure or a timeout retryable', async () => {
    const quick = new PlatformClient({ baseUrl, token: 't', timeoutMs: 100 });
    platform.answer = () => 'hang';
    try {
      expect(await failureOf(quick.booking('B1'))).toMatchObject({
        errorClass: 'retryable',
        operation: 'graphql booking',
        reason: 'no answer within 100 ms',
      });
    } finally {
      await quick.close();
    }
    await platform.stop();
    const error = await failureOf(client.booking('B1'));
    expect(error).toMatchObject({ errorClass: 'retryable', operation: 'graphql booking' });
    expect(error.reason).toMatch(/^ECONNREFUSED: /);
  });
});
