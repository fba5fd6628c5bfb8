import { ClientError, GraphQLClient } from 'graphql-request';
import { SandboxState } from '../apps/sandbox/src/state/sandbox-state';
import { readSeed } from '../apps/sandbox/src/state/seed';
import { DEMO, DEMO_SEED_PATH, RunningSandbox, startSandbox } from './support/sandbox';

/** The demo seed plus a token that acts for Main DC but may not view its bookings. */
const NO_VIEW_TOKEN = 'test-no-view-token';
const seed = readSeed(DEMO_SEED_PATH);
seed.tokens.push({
  token: NO_VIEW_TOKEN,
  organisationIds: [DEMO.mainDc],
  permissions: ['CreateBookings', 'ViewDocuments'],
});

const STATUS = {
  approved: '5a1e0000-0000-4000-8000-000000000002',
  arrived: '5a1e0000-0000-4000-8000-000000000003',
  completed: '5a1e0000-0000-4000-8000-000000000005',
};

const BOOKING_FIELDS = `id pin status { id name description } carrier { id name description } requestedTime bookedTime duration reassignedFrom
  location { id name } tasks { id direction documentId loads { name quantity loadTag } }`;
const CREATE = `mutation Create($org: UUID!, $booking: BookingInput, $ref: BookingEntityRefInput) {
  createBooking(organisationId: $org, booking: $booking, bookingEntityRef: $ref) }`;
const GET = `query Get($id: ID!) { booking(id: $id) { ${BOOKING_FIELDS} } }`;
const UPDATE_STATUS = `mutation Status($org: UUID!, $id: ID!, $statusId: UUID, $ref: BookingStatusEntityRefInput, $fields: [FieldDataInput!], $forms: [FormSubmissionInput!]) {
  updateBookingStatus(organisationId: $org, bookingId: $id, statusId: $statusId, statusReference: $ref, fields: $fields, formSubmissions: $forms) }`;
const UPDATE_TASKS = `mutation Tasks($org: UUID!, $id: ID!, $add: [TaskInput!]!, $delete: [ID!]!, $time: Timestamp!, $areaId: UUID, $headerLoads: [LoadQuantityInput!]) {
  updateBookingTasks(organisationId: $org, bookingId: $id, addTasks: $add, deleteTasks: $delete, time: $time, areaId: $areaId, headerLoads: $headerLoads) }`;
const UPDATE_VEHICLE = `mutation Vehicle($org: UUID!, $id: UUID!, $vehicle: VehicleInput) { updateVehicle(organisationId: $org, vehicleId: $id, vehicle: $vehicle) }`;
const DOCUMENTS = `query Docs($org: UUID!, $filter: DocumentsFilterInput, $start: Int, $count: Int, $ordering: DocumentOrdering, $ascending: Boolean) {
  documents(organisationId: $org, filter: $filter, start: $start, count: $count, ordering: $ordering, ascending: $ascending) {
    start pageSize totalPages totalRecords data { id description updateDate } } }`;

interface BookingView {
  id: string;
  pin: string | null;
  status: { id: string; name: string; description: string | null };
  carrier: { id: string; name: string };
  requestedTime: string;
  bookedTime: string | null;
  duration: number;
  reassignedFrom: string | null;
  location: { id: string; name: string };
  tasks: {
    id: string;
    direction: string;
    documentId: string | null;
    loads: { name: string; quantity: number; loadTag: string | null }[];
  }[];
}

interface GraphqlFailure {
  status: number;
  codes: string[];
  messages: string;
  errors: { message: string; path?: string[]; extensions: { code: string } }[];
}

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ seed });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const client = (token: string = DEMO.tokens.location) =>
  new GraphQLClient(`${sandbox.url}/api/v1/graphql`, { headers: { authorization: `Bearer ${token}` } });

/** The GraphQL errors of a request that must fail. */
async function failure(request: Promise<unknown>): Promise<GraphqlFailure> {
  try {
    await request;
  } catch (error) {
    if (!(error instanceof ClientError)) {
      throw error;
    }
    const errors = (error.response.errors ?? []) as unknown as GraphqlFailure['errors'];
    return {
      status: error.response.status,
      codes: errors.map((e) => e.extensions.code),
      messages: errors.map((e) => e.message).join(' | '),
      errors,
    };
  }
  throw new Error('expected the request to fail');
}

function inbound(overrides: Record<string, unknown> = {}) {
  return {
    carrierId: DEMO.fastFreight,
    requestedTime: '2026-03-02T08:00:00Z',
    duration: 60,
    tasks: [
      {
        direction: 'Inbound',
        senderId: DEMO.kettleFoods,
        receiverId: DEMO.mainDc,
        loads: [{ name: 'Pallet', quantity: 3, loadTag: 'SKU-1' }],
      },
    ],
    ...overrides,
  };
}

async function create(booking: Record<string, unknown>, org: string = DEMO.mainDc, token?: string): Promise<string> {
  const result = await client(token).request<{ createBooking: string }>(CREATE, { org, booking });
  return result.createBooking;
}

async function get(id: string, token?: string): Promise<BookingView> {
  return (await client(token).request<{ booking: BookingView }>(GET, { id })).booking;
}

async function putDocument(document: Record<string, unknown>): Promise<void> {
  const response = await sandbox.call(
    'PUT',
    `/api/v2/organisations/${DEMO.mainDc}/documents/${String(document.id)}?upsert=true`,
    {
      body: { direction: 'Inbound', occupant: { id: DEMO.mainDc }, offsite: { id: DEMO.kettleFoods }, ...document },
    },
  );
  expect([200, 201]).toContain(response.status);
}

describe('GraphQL endpoint', () => {
  it.each([
    ['missing', null],
    ['invalid', 'no-such-token'],
    ['expired', DEMO.tokens.expired],
  ])('answers HTTP 401 with a REST error body for a %s token', async (_case, token) => {
    const response = await sandbox.call('POST', '/api/v1/graphql', {
      token,
      body: { query: '{ booking(id: "x") { id } }' },
    });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: string; details: string[] };
    expect(body.error).toBe('Unauthorized');
    expect(body.details.length).toBeGreaterThan(0);
    if (token) {
      expect((await failure(client(token).request('{ booking(id: "x") { id } }'))).status).toBe(401);
    }
  });

  it('answers 400 for a malformed JSON body or a missing query', async () => {
    expect((await sandbox.call('POST', '/api/v1/graphql', { raw: '{"query": ' })).status).toBe(400);
    const response = await sandbox.call('POST', '/api/v1/graphql', { body: { variables: {} } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { details: string[] }).details.join()).toContain('query');
  });

  it('reports parse, validation and variable errors with HTTP 200 and a code', async () => {
    const parse = await sandbox.call('POST', '/api/v1/graphql', { body: { query: '{ booking(id: ' } });
    expect(parse.status).toBe(200);
    expect(((await parse.json()) as GraphqlFailure).errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');

    expect((await failure(client().request('{ booking(id: "x") { nope } }'))).codes).toEqual([
      'GRAPHQL_VALIDATION_FAILED',
    ]);
    expect(
      (await failure(client().request('{ documents(organisationId: "not-a-uuid") { totalRecords } }'))).codes,
    ).toEqual(['GRAPHQL_VALIDATION_FAILED']);

    const badUuid = await failure(client().request(DOCUMENTS, { org: 'not-a-uuid' }));
    expect(badUuid.status).toBe(200);
    expect(badUuid.codes).toEqual(['BAD_USER_INPUT']);
    const badTime = await failure(
      client().request(CREATE, { org: DEMO.mainDc, booking: inbound({ requestedTime: 'tomorrow at 8' }) }),
    );
    expect(badTime.codes).toEqual(['BAD_USER_INPUT']);
    expect(badTime.messages).toContain('Timestamp');
  });
});

describe('createBooking and booking', () => {
  it('creates an approved booking at the location and returns it by id', async () => {
    const id = await create(inbound({ requestedTime: '2026-03-02T09:00:00+01:00' }));
    expect(id).toMatch(/^MDB-26-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    const booking = await get(id);
    expect(booking).toMatchObject({
      id,
      status: { id: STATUS.approved, name: 'Approved' },
      carrier: { id: DEMO.fastFreight, name: 'Fast Freight' },
      requestedTime: '2026-03-02T08:00:00.000Z',
      bookedTime: '2026-03-02T08:00:00.000Z',
      duration: 60,
      reassignedFrom: null,
      location: { id: DEMO.mainDc, name: 'Main DC' },
    });
    expect(booking.pin).toMatch(/^\d{5}$/);
    expect(booking.tasks).toHaveLength(1);
    expect(booking.tasks[0]).toMatchObject({
      direction: 'Inbound',
      documentId: null,
      loads: [{ name: 'Pallet', quantity: 3, loadTag: 'SKU-1' }],
    });
    expect(booking.tasks[0].id).toMatch(/^MDT-26-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  });

  it('locates a carrier-made booking at the receiver of its inbound task, visible to both sides', async () => {
    const id = await create(inbound(), DEMO.fastFreight, DEMO.tokens.carrier);
    expect((await get(id, DEMO.tokens.carrier)).location.id).toBe(DEMO.mainDc);
    expect((await get(id, DEMO.tokens.readonly)).carrier.name).toBe('Fast Freight');
  });

  it('locates an outbound-only carrier booking at the sender', async () => {
    const booking = inbound({
      tasks: [{ direction: 'Outbound', senderId: DEMO.mainDc, receiverId: DEMO.harbourStores, loads: [] }],
    });
    const id = await create(booking, DEMO.fastFreight, DEMO.tokens.carrier);
    expect((await get(id, DEMO.tokens.carrier)).location.name).toBe('Main DC');
  });

  it('with capacity 2 leaves the third overlapping booking Submitted and approves a non-overlapping one', async () => {
    const a = await create(inbound({ requestedTime: '2026-03-02T08:00:00Z' }));
    const b = await create(inbound({ requestedTime: '2026-03-02T08:30:00Z' }));
    const c = await create(inbound({ requestedTime: '2026-03-02T08:45:00Z' }));
    const d = await create(inbound({ requestedTime: '2026-03-02T09:30:00Z', duration: 30 }));
    const statuses = await Promise.all([a, b, c, d].map(async (id) => (await get(id)).status.name));
    expect(statuses).toEqual(['Approved', 'Approved', 'Submitted', 'Approved']);
    const submitted = await get(c);
    expect(submitted.pin).toBeNull();
    expect(submitted.bookedTime).toBeNull();
  });

  it('rejects a booking that breaks the location configuration with BAD_USER_INPUT naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [inbound({ carrierId: DEMO.kettleFoods }), 'booking.carrierId'],
      [
        inbound({ tasks: [{ direction: 'Inbound', senderId: DEMO.kettleFoods, loads: [] }] }),
        'booking.tasks[0].receiverId',
      ],
      [
        inbound({ tasks: [{ direction: 'Outbound', receiverId: DEMO.harbourStores, loads: [] }] }),
        'booking.tasks[0].senderId',
      ],
      [inbound({ areaId: '00000000-0000-4000-8000-000000000000' }), 'booking.areaId'],
      [inbound({ duration: 0 }), 'booking.duration'],
      [inbound({ tasks: [] }), 'booking.tasks'],
    ];
    for (const [booking, field] of cases) {
      const error = await failure(client().request(CREATE, { org: DEMO.mainDc, booking }));
      expect(error.codes).toEqual(['BAD_USER_INPUT']);
      expect(error.messages).toContain(field);
    }
  });

  it('needs exactly one of booking and bookingEntityRef', async () => {
    expect((await failure(client().request(CREATE, { org: DEMO.mainDc }))).codes).toEqual(['BAD_USER_INPUT']);
    const ref = { carrier: { name: 'Fast Freight' }, requestedTime: '2026-03-02T08:00:00Z', duration: 30, tasks: [] };
    expect((await failure(client().request(CREATE, { org: DEMO.mainDc, booking: inbound(), ref }))).codes).toEqual([
      'BAD_USER_INPUT',
    ]);
  });

  it('answers FORBIDDEN for an organisation the token does not act for, or without CreateBookings', async () => {
    const wrongOrg = await failure(client().request(CREATE, { org: DEMO.fastFreight, booking: inbound() }));
    expect(wrongOrg.codes).toEqual(['FORBIDDEN']);
    expect(wrongOrg.errors[0].path).toEqual(['createBooking']);
    expect(
      (await failure(client(DEMO.tokens.readonly).request(CREATE, { org: DEMO.mainDc, booking: inbound() }))).codes,
    ).toEqual(['FORBIDDEN']);
  });

  it('booking: NOT_FOUND for an unknown id or a booking at none of the token organisations, FORBIDDEN without the view permission', async () => {
    expect((await failure(client().request(GET, { id: 'MDB-26-AAAA-AAAA' }))).codes).toEqual(['NOT_FOUND']);
    const blue = await create(inbound({ carrierId: DEMO.blueLine }));
    expect((await failure(client(DEMO.tokens.carrier).request(GET, { id: blue }))).codes).toEqual(['NOT_FOUND']);
    const error = await failure(client(NO_VIEW_TOKEN).request(GET, { id: blue }));
    expect(error.codes).toEqual(['FORBIDDEN']);
    expect(error.messages).toContain('ViewLocationBookings');
  });
});

describe('createBooking with bookingEntityRef', () => {
  const ref = (overrides: Record<string, unknown> = {}) => ({
    carrier: { coreName: 'SCAC', coreId: 'FFRT' },
    requestedTime: '2026-03-02T08:00:00Z',
    duration: 45,
    area: { name: 'Inbound Docks' },
    vehicle: { name: 'Truck 1' },
    tasks: [
      {
        direction: 'Inbound',
        sender: { name: 'Kettle Foods' },
        receiver: { coreId: 'DC01' },
        loads: [{ name: 'Pallet', quantity: 2 }],
      },
    ],
    ...overrides,
  });

  it('resolves carrier, parties, area and vehicle by Core ID and name', async () => {
    const { createBooking } = await client(DEMO.tokens.carrier).request<{ createBooking: string }>(CREATE, {
      org: DEMO.fastFreight,
      ref: ref(),
    });
    const booking = await get(createBooking, DEMO.tokens.carrier);
    expect(booking).toMatchObject({
      carrier: { id: DEMO.fastFreight },
      location: { id: DEMO.mainDc },
      duration: 45,
      status: { name: 'Approved' },
    });
    const stored = sandbox.app.get(SandboxState).bookings.get(createBooking)!;
    expect(stored).toMatchObject({ areaId: DEMO.inboundDocks, vehicleId: DEMO.truck1 });
    expect(stored.tasks[0]).toMatchObject({ senderId: DEMO.kettleFoods, receiverId: DEMO.mainDc });
  });

  it('names each reference that matches nothing', async () => {
    const unknown = ref({
      carrier: { name: 'Nobody Haulage' },
      tasks: [{ direction: 'Inbound', sender: { name: 'Ghost Supplies' }, receiver: { id: DEMO.mainDc }, loads: [] }],
    });
    const error = await failure(client().request(CREATE, { org: DEMO.mainDc, ref: unknown }));
    expect(error.codes).toEqual(['BAD_USER_INPUT']);
    expect(error.messages).toContain('bookingEntityRef.carrier');
    expect(error.messages).toContain('Nobody Haulage');
    expect(error.messages).toContain('bookingEntityRef.tasks[0].sender');
    const badArea = await failure(
      client().request(CREATE, {
        org: DEMO.mainDc,
        ref: ref({ area: { name: 'Dock 99' }, vehicle: { name: 'Hovercraft' } }),
      }),
    );
    expect(badArea.messages).toContain('Dock 99');
    expect(badArea.messages).toContain('Hovercraft');
  });
});

describe('document-backed tasks', () => {
  const docTask = (documentId: string, loads: unknown[] = []) => ({ direction: 'Inbound', documentId, loads });
  const withDoc = (documentId: string, loads?: unknown[], requestedTime = '2026-03-02T08:00:00Z') =>
    inbound({ requestedTime, tasks: [docTask(documentId, loads)] });
  const bookingError = async (booking: Record<string, unknown>) =>
    failure(client().request(CREATE, { org: DEMO.mainDc, booking }));

  beforeEach(async () => {
    const validDates = { begin: '2026-03-01T00:00:00Z', end: '2026-03-31T23:59:59Z' };
    const loads = [
      { name: 'Pallet', quantity: 10 },
      { name: 'Carton', quantity: 4, loadTag: 'CT-1' },
    ];
    await putDocument({ id: 'PO-FIXED', loads, validDates, settings: { mode: 'Fixed', maxUses: 1 } });
    await putDocument({ id: 'PO-FLEX', loads, validDates, settings: { mode: 'Flexible' } });
    await putDocument({ id: 'PO-FREE', loads, settings: { mode: 'Free' } });
  });

  it('pre-fills loads and parties from the document and counts the use', async () => {
    const id = await create(withDoc('PO-FIXED'));
    const booking = await get(id);
    expect(booking.tasks[0]).toMatchObject({
      documentId: 'PO-FIXED',
      loads: [
        { name: 'Pallet', quantity: 10 },
        { name: 'Carton', quantity: 4, loadTag: 'CT-1' },
      ],
    });
    const stored = sandbox.app.get(SandboxState).bookings.get(id)!;
    expect(stored.tasks[0]).toMatchObject({ senderId: DEMO.kettleFoods, receiverId: DEMO.mainDc });
  });

  it('accepts Fixed loads as the document has them, Flexible quantities changed and Free loads changed', async () => {
    await create(
      withDoc('PO-FIXED', [
        { name: 'Carton', quantity: 4, loadTag: 'CT-1' },
        { name: 'Pallet', quantity: 10 },
      ]),
    );
    const flex = await create(
      withDoc('PO-FLEX', [
        { name: 'Pallet', quantity: 7 },
        { name: 'Carton', quantity: 1 },
      ]),
    );
    expect((await get(flex)).tasks[0].loads.map((l) => l.quantity)).toEqual([7, 1]);
    await create(withDoc('PO-FREE', [{ name: 'Drum', quantity: 2 }]));
  });

  it('rejects a requested time outside validDates', async () => {
    const error = await bookingError(withDoc('PO-FLEX', [], '2026-04-02T08:00:00Z'));
    expect(error.codes).toEqual(['BAD_USER_INPUT']);
    expect(error.messages).toContain('validDates');
  });

  it('rejects a use beyond maxUses', async () => {
    await create(withDoc('PO-FIXED'));
    const error = await bookingError(withDoc('PO-FIXED', [], '2026-03-03T08:00:00Z'));
    expect(error.codes).toEqual(['BAD_USER_INPUT']);
    expect(error.messages).toContain('maxUses');
  });

  it('rejects changed loads of a Fixed document and changed load types of a Flexible one', async () => {
    const fixed = await bookingError(
      withDoc('PO-FIXED', [
        { name: 'Pallet', quantity: 11 },
        { name: 'Carton', quantity: 4, loadTag: 'CT-1' },
      ]),
    );
    expect(fixed.codes).toEqual(['BAD_USER_INPUT']);
    expect(fixed.messages).toContain('Fixed');
    const flexible = await bookingError(
      withDoc('PO-FLEX', [
        { name: 'Pallet', quantity: 10 },
        { name: 'Drum', quantity: 4 },
      ]),
    );
    expect(flexible.codes).toEqual(['BAD_USER_INPUT']);
    expect(flexible.messages).toContain('Flexible');
  });

  it('rejects a document that does not exist at the location, or whose direction differs', async () => {
    expect((await bookingError(withDoc('PO-NONE'))).messages).toContain('PO-NONE');
    await putDocument({ id: 'ASN-OUT', direction: 'Outbound' });
    expect((await bookingError(withDoc('ASN-OUT'))).messages).toContain('Outbound');
  });

  it('does not count a use when the booking is rejected', async () => {
    await bookingError(inbound({ tasks: [docTask('PO-FIXED'), { direction: 'Inbound', loads: [] }] }));
    await create(withDoc('PO-FIXED'));
  });
});

describe('updateBookingStatus', () => {
  const move = (id: string, variables: Record<string, unknown>, org: string = DEMO.mainDc, token?: string) =>
    client(token).request(UPDATE_STATUS, { org, id, ...variables });

  it('moves to a following status, requiring a field that is then supplied in a later call', async () => {
    const id = await create(inbound());
    const missing = await failure(move(id, { statusId: STATUS.arrived }));
    expect(missing.codes).toEqual(['BAD_USER_INPUT']);
    expect(missing.messages).toContain('trailerNumber');
    expect((await get(id)).status.name).toBe('Approved');

    await move(id, { statusId: STATUS.arrived, fields: [{ key: 'trailerNumber', value: 'TR-9' }] });
    expect((await get(id)).status.name).toBe('Arrived');
    await move(id, { ref: { name: 'Unloading' } });
    expect((await get(id)).status).toMatchObject({ name: 'Unloading', description: 'At the dock' });
  });

  it('accepts required fields supplied earlier, at creation or through a form submission', async () => {
    const early = await create(inbound({ fields: [{ key: 'trailerNumber', value: 'TR-1' }] }));
    await move(early, { statusId: STATUS.arrived });
    expect((await get(early)).status.name).toBe('Arrived');

    const form = await create(inbound({ requestedTime: '2026-03-05T08:00:00Z' }));
    await move(form, {
      ref: { name: 'Arrived' },
      forms: [
        {
          formId: '0f000000-0000-4000-8000-000000000001',
          name: 'Gate check',
          fields: [{ key: 'trailerNumber', value: 'TR-2' }],
        },
      ],
    });
    expect((await get(form)).status.name).toBe('Arrived');
  });

  it('allows an exception status from anywhere, for carriers too', async () => {
    const id = await create(inbound());
    await move(id, { ref: { name: 'Cancelled' } }, DEMO.fastFreight, DEMO.tokens.carrier);
    expect((await get(id)).status.name).toBe('Cancelled');
  });

  it('rejects a status that does not follow, an unknown status, and a carrier move to a status not available to carriers', async () => {
    const id = await create(inbound());
    const skip = await failure(move(id, { statusId: STATUS.completed }));
    expect(skip.codes).toEqual(['BAD_USER_INPUT']);
    expect(skip.messages).toContain('cannot move to Completed');
    expect((await failure(move(id, { ref: { name: 'Teleported' } }))).messages).toContain('Teleported');
    expect((await failure(move(id, { statusId: '00000000-0000-4000-8000-000000000000' }))).codes).toEqual([
      'BAD_USER_INPUT',
    ]);
    expect((await failure(move(id, {}))).codes).toEqual(['BAD_USER_INPUT']);

    await create(inbound());
    const third = await create(inbound());
    expect((await get(third)).status.name).toBe('Submitted');
    const carrier = await failure(move(third, { ref: { name: 'Rejected' } }, DEMO.fastFreight, DEMO.tokens.carrier));
    expect(carrier.codes).toEqual(['BAD_USER_INPUT']);
    expect(carrier.messages).toContain('not available to carriers');
    await move(third, { ref: { name: 'Rejected' } });
    expect((await get(third)).status.name).toBe('Rejected');
  });

  it('lets the location approve a Submitted booking, giving it a pin', async () => {
    await create(inbound());
    await create(inbound());
    const third = await create(inbound());
    await move(third, { ref: { name: 'Approved' } });
    const booking = await get(third);
    expect(booking.status.name).toBe('Approved');
    expect(booking.pin).toMatch(/^\d{5}$/);
    expect(booking.bookedTime).toBe(booking.requestedTime);
  });

  it('answers FORBIDDEN without Participate* or for a foreign organisation, NOT_FOUND for a booking not at organisationId', async () => {
    const id = await create(inbound());
    expect((await failure(move(id, { ref: { name: 'Arrived' } }, DEMO.mainDc, DEMO.tokens.readonly))).codes).toEqual([
      'FORBIDDEN',
    ]);
    expect((await failure(move(id, { ref: { name: 'Cancelled' } }, DEMO.mainDc, DEMO.tokens.carrier))).codes).toEqual([
      'FORBIDDEN',
    ]);
    expect((await failure(move(id, { ref: { name: 'Cancelled' } }, DEMO.crossDock))).codes).toEqual(['NOT_FOUND']);
    expect((await failure(move('MDB-26-ZZZZ-ZZZZ', { ref: { name: 'Cancelled' } }))).codes).toEqual(['NOT_FOUND']);
    const blue = await create(inbound({ carrierId: DEMO.blueLine }));
    expect(
      (await failure(move(blue, { ref: { name: 'Cancelled' } }, DEMO.fastFreight, DEMO.tokens.carrier))).codes,
    ).toEqual(['NOT_FOUND']);
  });
});

describe('updateBookingTasks', () => {
  const update = (id: string, variables: Record<string, unknown>, org: string = DEMO.mainDc, token?: string) =>
    client(token).request(UPDATE_TASKS, { org, id, add: [], delete: [], time: '2026-03-02T08:00:00Z', ...variables });
  const newTask = {
    direction: 'Outbound',
    senderId: DEMO.mainDc,
    receiverId: DEMO.harbourStores,
    loads: [{ name: 'Cage', quantity: 5 }],
  };

  it('adds and deletes tasks, moves the time and replaces header loads', async () => {
    const id = await create(inbound({ headerLoads: [{ name: 'Pallet', quantity: 3 }] }));
    const [original] = (await get(id)).tasks;
    await update(id, {
      add: [newTask],
      delete: [original.id],
      time: '2026-03-03T10:00:00Z',
      areaId: DEMO.inboundDocks,
      headerLoads: [{ name: 'Cage', quantity: 5 }],
    });
    const booking = await get(id);
    expect(booking.tasks).toHaveLength(1);
    expect(booking.tasks[0]).toMatchObject({ direction: 'Outbound', loads: [{ name: 'Cage', quantity: 5 }] });
    expect(booking.tasks[0].id).not.toBe(original.id);
    expect(booking).toMatchObject({
      requestedTime: '2026-03-03T10:00:00.000Z',
      bookedTime: '2026-03-03T10:00:00.000Z',
      status: { name: 'Approved' },
    });
    const stored = sandbox.app.get(SandboxState).bookings.get(id)!;
    expect(stored).toMatchObject({ areaId: DEMO.inboundDocks, headerLoads: [{ name: 'Cage', quantity: 5 }] });
  });

  it('re-evaluates: a Submitted booking moved to a free time is approved, an Approved one moved into a full slot goes back to Submitted', async () => {
    await create(inbound());
    await create(inbound());
    const third = await create(inbound());
    const free = await create(inbound({ requestedTime: '2026-03-02T12:00:00Z' }));
    expect((await get(third)).status.name).toBe('Submitted');

    await update(third, { time: '2026-03-02T14:00:00Z' });
    expect((await get(third)).status.name).toBe('Approved');

    await update(free, { time: '2026-03-02T08:15:00Z' });
    const moved = await get(free);
    expect(moved.status.name).toBe('Submitted');
    expect(moved.bookedTime).toBeNull();
  });

  it('validates new tasks like createBooking and rejects unknown task ids', async () => {
    await putDocument({
      id: 'PO-ONCE',
      loads: [{ name: 'Pallet', quantity: 1 }],
      settings: { mode: 'Fixed', maxUses: 1 },
    });
    const id = await create(inbound({ tasks: [{ direction: 'Inbound', documentId: 'PO-ONCE', loads: [] }] }));
    const unknown = await failure(update(id, { delete: ['MDT-26-NOPE-NOPE'] }));
    expect(unknown.codes).toEqual(['BAD_USER_INPUT']);
    expect(unknown.messages).toContain('MDT-26-NOPE-NOPE');
    const reuse = await failure(update(id, { add: [{ direction: 'Inbound', documentId: 'PO-ONCE', loads: [] }] }));
    expect(reuse.messages).toContain('maxUses');
    expect((await failure(update(id, { add: [{ direction: 'Inbound', loads: [] }] }))).messages).toContain(
      'addTasks[0].receiverId',
    );
    const [task] = (await get(id)).tasks;
    expect((await failure(update(id, { delete: [task.id] }))).messages).toContain('at least one task');
  });

  it('needs Participate* for organisationId and the booking at it', async () => {
    const id = await create(inbound());
    expect((await failure(update(id, {}, DEMO.mainDc, DEMO.tokens.readonly))).codes).toEqual(['FORBIDDEN']);
    expect((await failure(update(id, {}, DEMO.crossDock))).codes).toEqual(['NOT_FOUND']);
    await update(id, { time: '2026-03-02T09:00:00Z' }, DEMO.fastFreight, DEMO.tokens.carrier);
    expect((await get(id)).requestedTime).toBe('2026-03-02T09:00:00.000Z');
  });
});

describe('updateVehicle', () => {
  const vehicles = () => sandbox.app.get(SandboxState).vehicles;

  it('updates registration and type but not the name', async () => {
    await client(DEMO.tokens.carrier).request(UPDATE_VEHICLE, {
      org: DEMO.fastFreight,
      id: DEMO.truck1,
      vehicle: { name: 'Truck 1', registration: 'FF-202', type: 'Box' },
    });
    expect(vehicles().get(DEMO.truck1)).toMatchObject({ name: 'Truck 1', registration: 'FF-202', type: 'Box' });
    const rename = await failure(
      client(DEMO.tokens.carrier).request(UPDATE_VEHICLE, {
        org: DEMO.fastFreight,
        id: DEMO.truck1,
        vehicle: { name: 'Truck One' },
      }),
    );
    expect(rename.codes).toEqual(['BAD_USER_INPUT']);
    expect(rename.messages).toContain('name');
    expect(vehicles().get(DEMO.truck1)!.name).toBe('Truck 1');
  });

  it('answers NOT_FOUND for a vehicle of another organisation, FORBIDDEN without ManageVehicles or for a foreign organisation', async () => {
    expect(
      (await failure(client().request(UPDATE_VEHICLE, { org: DEMO.mainDc, id: DEMO.truck1, vehicle: { type: 'Box' } })))
        .codes,
    ).toEqual(['NOT_FOUND']);
    expect(
      (await failure(client(DEMO.tokens.readonly).request(UPDATE_VEHICLE, { org: DEMO.mainDc, id: DEMO.truck1 })))
        .codes,
    ).toEqual(['FORBIDDEN']);
    expect((await failure(client().request(UPDATE_VEHICLE, { org: DEMO.fastFreight, id: DEMO.truck1 }))).codes).toEqual(
      ['FORBIDDEN'],
    );
  });
});

describe('documents query', () => {
  interface DocumentQuery {
    start: number;
    pageSize: number;
    totalPages: number;
    totalRecords: number;
    data: { id: string; description: string | null; updateDate: string }[];
  }
  const list = async (variables: Record<string, unknown> = {}, token?: string) =>
    (await client(token).request<{ documents: DocumentQuery }>(DOCUMENTS, { org: DEMO.mainDc, ...variables }))
      .documents;
  const ids = (query: DocumentQuery) => query.data.map((d) => d.id);

  beforeEach(async () => {
    // Written in this order, so updateDate order differs from id order; PO-B is updated last.
    for (const [id, direction, type, status] of [
      ['PO-C', 'Inbound', 'PurchaseOrder', 'Open'],
      ['PO-A', 'Inbound', 'PurchaseOrder', 'Closed'],
      ['ASN-E', 'Outbound', 'ASN', 'Open'],
      ['PO-B', 'Inbound', 'PurchaseOrder', 'Open'],
      ['PO-D', 'Inbound', 'PurchaseOrder', 'Open'],
    ]) {
      await putDocument({ id, direction, description: `doc ${id}`, type: { name: type }, status: { name: status } });
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await putDocument({
      id: 'PO-B',
      direction: 'Inbound',
      description: 'doc PO-B v2',
      type: { name: 'PurchaseOrder' },
      status: { name: 'Open' },
    });
  });

  it('lists by id descending by default, with paging metadata', async () => {
    const all = await list();
    expect(all).toMatchObject({ start: 0, pageSize: 100, totalPages: 1, totalRecords: 5 });
    expect(ids(all)).toEqual(['PO-D', 'PO-C', 'PO-B', 'PO-A', 'ASN-E']);
    expect(all.data[2]).toMatchObject({ description: 'doc PO-B v2' });
    expect(all.data[0].updateDate).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);

    const page = await list({ start: 2, count: 2, ascending: true });
    expect(page).toMatchObject({ start: 2, pageSize: 2, totalPages: 3, totalRecords: 5 });
    expect(ids(page)).toEqual(['PO-B', 'PO-C']);
    expect(ids(await list({ start: 10 }))).toEqual([]);
  });

  it('orders by UpdateDate', async () => {
    expect(ids(await list({ ordering: 'UpdateDate', ascending: true }))).toEqual([
      'PO-C',
      'PO-A',
      'ASN-E',
      'PO-D',
      'PO-B',
    ]);
    expect(ids(await list({ ordering: 'UpdateDate' }))[0]).toBe('PO-B');
  });

  it('filters by ids, direction, type, status and updatedSince', async () => {
    expect(ids(await list({ filter: { ids: ['PO-A', 'ASN-E', 'NOPE'] }, ascending: true }))).toEqual(['ASN-E', 'PO-A']);
    expect(ids(await list({ filter: { direction: 'Outbound' } }))).toEqual(['ASN-E']);
    expect(ids(await list({ filter: { typeName: 'PurchaseOrder', statusName: 'Open' } }))).toEqual([
      'PO-D',
      'PO-C',
      'PO-B',
    ]);
    const all = await list();
    const pod = all.data.find((d) => d.id === 'PO-D')!;
    expect(ids(await list({ filter: { updatedSince: pod.updateDate }, ascending: true }))).toEqual(['PO-B', 'PO-D']);
  });

  it('rejects a count over 1000 naming count, and needs ViewDocuments for the organisation', async () => {
    const tooMany = await failure(list({ count: 1001 }));
    expect(tooMany.codes).toEqual(['BAD_USER_INPUT']);
    expect(tooMany.messages).toContain('count');
    expect((await list({ count: 1000 }, DEMO.tokens.readonly)).totalRecords).toBe(5);
    expect((await failure(list({}, DEMO.tokens.carrier))).codes).toEqual(['FORBIDDEN']);
    expect((await failure(list({ org: DEMO.crossDock }))).codes).toEqual(['BAD_USER_INPUT']);
  });
});
