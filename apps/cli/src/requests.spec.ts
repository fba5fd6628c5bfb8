import {
  activityQuery,
  isX12,
  operatorBody,
  replayRequest,
  replayRunsLimit,
  searchQuery,
  upload,
  UsageError,
} from './requests';

// What goes on the wire (paths, escaping, query strings, headers) is checked against a real HTTP server in client.spec.ts.

describe('searchQuery', () => {
  it('maps every filter to the query the admin search takes, in order', () => {
    const query = searchQuery({
      status: 'failed, partially_failed',
      channel: 'webhook,api',
      partner: 'acme-wms',
      from: '2026-11-01T00:00:00Z',
      to: '2026-11-02T00:00:00Z',
      document: 'PO 1',
      file: 'ASN 0001.edi',
      interchange: '123',
      limit: '20',
      cursor: 'c0ffee00-0000-4000-8000-000000000000',
    });
    expect(Object.entries(query)).toEqual(
      Object.entries({
        status: ['failed', 'partially_failed'],
        channel: ['webhook', 'api'],
        partner: 'acme-wms',
        from: '2026-11-01T00:00:00Z',
        to: '2026-11-02T00:00:00Z',
        documentId: 'PO 1',
        fileName: 'ASN 0001.edi',
        interchange: '123',
        limit: 20,
        cursor: 'c0ffee00-0000-4000-8000-000000000000',
      }),
    );
  });

  it('sends no query without options, and drops an empty status list', () => {
    expect(searchQuery({})).toEqual({});
    expect(searchQuery({ status: ' , ' })).toEqual({});
  });

  it.each(['0', '501', '2.5', 'ten'])('refuses --limit %s as a usage error', (limit) => {
    expect(() => searchQuery({ limit })).toThrow(UsageError);
  });
});

describe('replayRequest', () => {
  const id = '3f2c1d00-0000-4000-8000-000000000001';

  it('replays one message with the API defaults when no option is given (rerun, original mapping)', () => {
    expect(replayRequest(id, {})).toEqual({ bulk: false, id, body: {} });
  });

  it('maps --failed-only, --mapping, the payload, --reason and --operator of one message', () => {
    expect(
      replayRequest(id, { failedOnly: true, mapping: 'current', reason: 'platform back', operator: 'jo' }).body,
    ).toEqual({ mode: 'failed-only', mapping: 'current', reason: 'platform back', operator: 'jo' });
    expect(replayRequest(id, { payload: '{"operations":[]}' }).body).toEqual({ payload: '{"operations":[]}' });
    expect(replayRequest(id, { overrideOrganisations: true, reason: 'moved' }).body).toEqual({
      overrideOrganisations: true,
      reason: 'moved',
    });
    expect(replayRequest(id, { force: true }).body).toEqual({ force: true });
    expect(() => replayRequest(undefined, { status: 'failed', overrideOrganisations: true })).toThrow(
      /one message only/,
    );
  });

  it('takes the EDI filters (file name, interchange) for a bulk replay too', () => {
    expect(replayRequest(undefined, { file: 'ASN.edi', interchange: '000000042' }).body).toEqual({
      fileName: 'ASN.edi',
      interchange: '000000042',
    });
    expect(() => replayRequest('c0ffee00-0000-4000-8000-000000000000', { interchange: '42' })).toThrow(UsageError);
  });

  it('turns filters without an id into a bulk replay, a dry run unless told otherwise', () => {
    expect(replayRequest(undefined, { status: 'failed,partially_failed', partner: 'acme', document: 'PO-1' })).toEqual({
      bulk: true,
      body: { status: ['failed', 'partially_failed'], partner: 'acme', documentId: 'PO-1' },
    });
    expect(
      replayRequest(undefined, {
        status: 'failed',
        from: '2026-11-01T00:00:00Z',
        to: '2026-11-02T00:00:00Z',
        dryRun: false,
        failedOnly: true,
        reason: 'r',
        operator: 'o',
      }).body,
    ).toEqual({
      status: ['failed'],
      from: '2026-11-01T00:00:00Z',
      to: '2026-11-02T00:00:00Z',
      dryRun: false,
      mode: 'failed-only',
      reason: 'r',
      operator: 'o',
    });
    expect(replayRequest(undefined, { partner: 'acme', dryRun: true }).body).toEqual({ partner: 'acme', dryRun: true });
    expect(replayRequest(undefined, { channel: 'webhook', mapping: 'current', dryRun: false }).body).toEqual({
      channel: ['webhook'],
      mapping: 'current',
      dryRun: false,
    });
  });

  it.each([
    ['an id with filters', id, { status: 'failed' }, /not both/],
    ['an id with --dry-run', id, { dryRun: true }, /bulk replay only/],
    ['an id with --no-dry-run', id, { dryRun: false }, /bulk replay only/],
    ['neither id nor filter', undefined, { dryRun: false }, /at least one filter/],
    ['bulk with a payload', undefined, { status: 'failed', payload: 'x' }, /one message only/],
    ['an unknown mapping', id, { mapping: 'latest' }, /--mapping must be one of original, current/],
    ['--detach with an id', id, { detach: true }, /bulk replay only/],
    ['--detach with a dry run', undefined, { status: 'failed', detach: true }, /real bulk replay only/],
  ])('refuses %s as a usage error', (_name, messageId, options, reason) => {
    expect(() => replayRequest(messageId, options)).toThrow(UsageError);
    expect(() => replayRequest(messageId, options)).toThrow(reason);
  });
});

describe('replay runs', () => {
  it("lists the newest (the gateway's default count unless told), --detach never sent", () => {
    expect(replayRunsLimit()).toBeUndefined();
    expect(replayRunsLimit('5')).toBe(5);
    expect(() => replayRunsLimit('101')).toThrow(UsageError);
    expect(replayRequest(undefined, { status: 'failed', dryRun: false, detach: true }).body).toEqual({
      status: ['failed'],
      dryRun: false,
    });
  });
});

describe('upload', () => {
  it('tells X12 (ISA first, after a BOM or blank lines) from JSON, and refuses anything else', () => {
    expect(isX12('\uFEFF\r\n  ISA*00*')).toBe(true);
    expect(isX12('{"ISA":1}')).toBe(false);
    expect(upload('ISA*00*~')).toEqual({ x12: true });
    expect(upload('{"operations":[]}')).toEqual({ x12: false, message: { operations: [] } });
    expect(() => upload('GS*PO*')).toThrow(UsageError);
    expect(() => upload('GS*PO*')).toThrow(/neither X12 \(starting with ISA\) nor JSON/);
  });

  it('names an X12 upload after its file (found again by it); JSON has no name to carry', () => {
    expect(upload('ISA*00*~', 'ASN 0001.edi')).toEqual({ x12: true, fileName: 'ASN 0001.edi' });
    expect(upload('{"operations":[]}', 'po.json')).toEqual({ x12: false, message: { operations: [] } });
    // The gateway alone applies the file-name rule, and names the problem (400) for a name it refuses.
    expect(upload('ISA*00*~', 'tab\there.edi')).toEqual({ x12: true, fileName: 'tab\there.edi' });
  });
});

describe('operators and activity', () => {
  it('issues a token with a role, an expiry only when given', () => {
    expect(operatorBody('dana', 'viewer')).toEqual({ name: 'dana', role: 'viewer' });
    expect(operatorBody('dana', 'admin', '2027-01-01T00:00:00Z')).toEqual({
      name: 'dana',
      role: 'admin',
      expiresAt: '2027-01-01T00:00:00Z',
    });
  });

  it('reads the activity log with what was typed only, as typed (the gateway checks the limit)', () => {
    expect(activityQuery({})).toEqual({});
    expect(Object.entries(activityQuery({ cursor: 'c', limit: 'ten', target: 'partner:acme' }))).toEqual([
      ['target', 'partner:acme'],
      ['limit', 'ten'],
      ['cursor', 'c'],
    ]);
  });
});
