import { GraphQLClient } from 'graphql-request';
import { seedWithBookings } from './support/bookings';
import { DEMO, RunningSandbox, startSandbox } from './support/sandbox';

const TASK_LAYOUT = '1a400000-0000-4000-8000-000000000002';
const CREATE = `mutation Create($org: UUID!, $booking: BookingInput) { createBooking(organisationId: $org, booking: $booking) }`;

type Row = Record<string, string | number>;
interface ExportPage {
  data: Row[];
  skip: number;
  count: number;
  totalRecords: number;
}

async function exportJson(
  sandbox: RunningSandbox,
  body: Record<string, unknown>,
  query = '',
  token?: string,
): Promise<ExportPage> {
  const response = await sandbox.call('POST', `/api/v2/bookings${query}`, { body, token });
  expect(response.status).toBe(200);
  return (await response.json()) as ExportPage;
}

async function exportError(
  sandbox: RunningSandbox,
  body: unknown,
  query = '',
  token?: string | null,
): Promise<{ status: number; details: string }> {
  const response = await sandbox.call('POST', `/api/v2/bookings${query}`, { body, token });
  const parsed = (await response.json()) as { error: string; details: string[] };
  expect(typeof parsed.error).toBe('string');
  return { status: response.status, details: parsed.details.join(' | ') };
}

describe('bookings export', () => {
  let sandbox: RunningSandbox;
  const ids: Record<'b1' | 'b2' | 'b3' | 'b4', string> = { b1: '', b2: '', b3: '', b4: '' };

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  beforeEach(async () => {
    await sandbox.reset();
    const put = await sandbox.call('PUT', `/api/v2/organisations/${DEMO.mainDc}/documents/PO-EXP?upsert=true`, {
      body: {
        id: 'PO-EXP',
        direction: 'Inbound',
        occupant: { id: DEMO.mainDc },
        offsite: { id: DEMO.kettleFoods },
        loads: [{ name: 'Pallet', quantity: 6 }],
      },
    });
    expect(put.status).toBe(201);
    const gql = new GraphQLClient(`${sandbox.url}/api/v1/graphql`, {
      headers: { authorization: `Bearer ${DEMO.tokens.location}` },
    });
    const create = async (booking: Record<string, unknown>) =>
      (
        await gql.request<{ createBooking: string }>(CREATE, {
          org: DEMO.mainDc,
          booking: { carrierId: DEMO.fastFreight, duration: 60, ...booking },
        })
      ).createBooking;
    const inboundTask = (loads: unknown[]) => ({
      direction: 'Inbound',
      senderId: DEMO.kettleFoods,
      receiverId: DEMO.mainDc,
      loads,
    });
    // Created out of time order; the export sorts by requestedTime: b2, b3, b4, b1.
    ids.b1 = await create({
      requestedTime: '2026-03-02T10:00:00Z',
      tasks: [
        inboundTask([
          { name: 'Pallet', quantity: 3 },
          { name: 'Carton', quantity: 2, loadTag: 'CT-1' },
        ]),
        {
          direction: 'Outbound',
          senderId: DEMO.mainDc,
          receiverId: DEMO.harbourStores,
          loads: [{ name: 'Cage', quantity: 4 }],
        },
      ],
    });
    ids.b2 = await create({
      carrierId: DEMO.blueLine,
      requestedTime: '2026-03-02T08:00:00Z',
      tasks: [
        inboundTask([
          { name: 'Box "XL"', quantity: 1 },
          { name: 'Pallet', quantity: 2 },
        ]),
      ],
    });
    ids.b3 = await create({
      requestedTime: '2026-03-02T08:30:00Z',
      tasks: [{ direction: 'Inbound', documentId: 'PO-EXP', loads: [] }],
    });
    ids.b4 = await create({ requestedTime: '2026-03-02T08:45:00Z', tasks: [inboundTask([])] });
  });

  it('returns json rows keyed by the layout columns in order, by requestedTime, with numeric columns summed', async () => {
    const page = await exportJson(sandbox, { layoutId: DEMO.dailyLayout });
    expect(page).toMatchObject({ skip: 0, count: 100, totalRecords: 4 });
    expect(page.data.map((row) => row.Booking)).toEqual([ids.b2, ids.b3, ids.b4, ids.b1]);
    expect(Object.keys(page.data[0])).toEqual(['Booking', 'Status', 'Carrier', 'Requested', 'Pallets']);
    expect(page.data[0]).toEqual({
      Booking: ids.b2,
      Status: 'Approved',
      Carrier: 'Blue Line Haulage',
      Requested: '2026-03-02T08:00:00.000Z',
      Pallets: 3,
    });
    expect(page.data[2]).toMatchObject({ Status: 'Submitted', Pallets: 0 });
    expect(page.data[3]).toMatchObject({ Carrier: 'Fast Freight', Pallets: 9 });
    expect(page.data[1].Pallets).toBe(6);
  });

  it('gives one row per task in the tasks view, with that task only', async () => {
    const page = await exportJson(sandbox, { layoutId: TASK_LAYOUT, viewAs: 'tasks' });
    expect(page.totalRecords).toBe(5);
    const b1Rows = page.data.filter((row) => row.Booking === ids.b1);
    expect(b1Rows.map((row) => [row.Direction, row.Loads, row.Quantity])).toEqual([
      ['Inbound', 'Pallet, Carton', 5],
      ['Outbound', 'Cage', 4],
    ]);
    expect(String(b1Rows[0].Task)).toMatch(/^MDT-26-/);
    expect(b1Rows[0]).toMatchObject({ Location: 'Main DC', Carrier: 'FFRT', Document: '' });
    expect(page.data.find((row) => row.Booking === ids.b3)).toMatchObject({
      Document: 'PO-EXP',
      Loads: 'Pallet',
      Quantity: 6,
    });
  });

  it('returns csv with a header row and RFC 4180 quoting', async () => {
    const response = await sandbox.call('POST', '/api/v2/bookings', {
      body: { layoutId: TASK_LAYOUT, viewAs: 'tasks', format: 'csv' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await response.text()).split('\r\n');
    expect(lines[0]).toBe('Booking,Task,Direction,Document,Location,Carrier,Loads,Quantity');
    expect(lines).toHaveLength(5 + 2); // header, five tasks, and the empty string after the final CRLF
    expect(lines[1]).toMatch(new RegExp(`^${ids.b2},MDT-26-[A-Z0-9-]+,Inbound,,Main DC,BLUE,"Box ""XL"", Pallet",3$`));
  });

  it('filters by status names, requested window, location and carrier', async () => {
    const bookingIds = async (filter: Record<string, unknown>) =>
      (await exportJson(sandbox, { layoutId: DEMO.dailyLayout, filter })).data.map((row) => row.Booking);
    expect(await bookingIds({ statusNames: ['Submitted'] })).toEqual([ids.b4]);
    expect(await bookingIds({ requestedFrom: '2026-03-02T08:30:00Z', requestedTo: '2026-03-02T10:00:00Z' })).toEqual([
      ids.b3,
      ids.b4,
    ]);
    expect(await bookingIds({ carrierId: DEMO.blueLine })).toEqual([ids.b2]);
    expect(await bookingIds({ locationId: DEMO.crossDock })).toEqual([]);
    const unknown = await exportError(sandbox, { layoutId: DEMO.dailyLayout, filter: { colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.details).toContain('filter.colour');
  });

  it("exports only bookings at the token's organisations", async () => {
    const page = await exportJson(sandbox, { layoutId: DEMO.dailyLayout }, '', DEMO.tokens.carrier);
    expect(page.data.map((row) => row.Booking)).toEqual([ids.b3, ids.b4, ids.b1]);
  });

  it('pages with skip and count', async () => {
    const page = await exportJson(sandbox, { layoutId: DEMO.dailyLayout }, '?skip=1&count=2');
    expect(page).toMatchObject({ skip: 1, count: 2, totalRecords: 4 });
    expect(page.data.map((row) => row.Booking)).toEqual([ids.b3, ids.b4]);
    expect((await exportJson(sandbox, { layoutId: DEMO.dailyLayout }, '?skip=10')).data).toEqual([]);
  });

  it('answers 400 naming the parameter for a bad count, skip, layoutId, format or viewAs', async () => {
    const cases: [unknown, string, string][] = [
      [{ layoutId: DEMO.dailyLayout }, '?count=1001', 'count'],
      [{ layoutId: DEMO.dailyLayout }, '?count=0', 'count'],
      [{ layoutId: DEMO.dailyLayout }, '?skip=-1', 'skip'],
      [{}, '', 'layoutId'],
      [{ layoutId: '00000000-0000-4000-8000-000000000000' }, '', 'layoutId'],
      [{ layoutId: DEMO.dailyLayout, format: 'xml' }, '', 'format'],
      [{ layoutId: DEMO.dailyLayout, viewAs: 'rows' }, '', 'viewAs'],
    ];
    for (const [body, query, field] of cases) {
      const error = await exportError(sandbox, body, query);
      expect([error.status, error.details]).toEqual([400, expect.stringContaining(field)]);
    }
  });

  it('answers 403 without ExportBookings and 401 without a valid token', async () => {
    expect((await exportError(sandbox, { layoutId: DEMO.dailyLayout }, '', DEMO.tokens.readonly)).status).toBe(403);
    expect((await exportError(sandbox, { layoutId: DEMO.dailyLayout }, '', null)).status).toBe(401);
    expect((await exportError(sandbox, { layoutId: DEMO.dailyLayout }, '', DEMO.tokens.expired)).status).toBe(401);
  });
});

describe('bookings export of more than 1000 bookings', () => {
  const TOTAL = 1205;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    const seed = seedWithBookings(TOTAL);
    sandbox = await startSandbox({ seed });
  });
  afterAll(() => sandbox.close());

  it('pages through every booking with skip and count, in requestedTime order', async () => {
    const first = await exportJson(sandbox, { layoutId: DEMO.dailyLayout }, '?skip=0&count=1000');
    const second = await exportJson(sandbox, { layoutId: DEMO.dailyLayout }, '?skip=1000&count=1000');
    expect([first.data.length, second.data.length, first.totalRecords, second.totalRecords]).toEqual([
      1000,
      TOTAL - 1000,
      TOTAL,
      TOTAL,
    ]);
    const rows = [...first.data, ...second.data];
    expect(new Set(rows.map((row) => row.Booking)).size).toBe(TOTAL);
    expect(rows.map((row) => row.Booking)).toEqual(
      Array.from({ length: TOTAL }, (_, n) => `MDB-26-SEED-${String(n).padStart(4, '0')}`),
    );
    expect(rows.reduce((sum, row) => sum + (row.Pallets as number), 0)).toBe(
      Array.from({ length: TOTAL }, (_, n) => (n % 5) + 1).reduce((a, b) => a + b, 0),
    );
    expect((await exportJson(sandbox, { layoutId: DEMO.dailyLayout })).data).toHaveLength(100);
  });

  it('pages csv the same way', async () => {
    const response = await sandbox.call('POST', '/api/v2/bookings?skip=1200&count=1000', {
      body: { layoutId: DEMO.dailyLayout, format: 'csv' },
    });
    const lines = (await response.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(1 + 5);
    expect(lines[1].startsWith('MDB-26-SEED-1200,Approved,Fast Freight,')).toBe(true);
  });
});
