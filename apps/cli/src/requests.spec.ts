import {
  detailRequest,
  isX12,
  previewRequest,
  replayRequest,
  replayRunRequest,
  replayRunsRequest,
  searchRequest,
  sendRequest,
  UsageError,
} from './requests';

describe('searchRequest', () => {
  it('maps every filter to the query the admin search takes', () => {
    const request = searchRequest({
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
    expect(request.method).toBe('GET');
    const url = new URL(request.path, 'http://gateway');
    expect(url.pathname).toBe('/v1/admin/messages');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      status: 'failed,partially_failed',
      channel: 'webhook,api',
      partner: 'acme-wms',
      from: '2026-11-01T00:00:00Z',
      to: '2026-11-02T00:00:00Z',
      documentId: 'PO 1',
      fileName: 'ASN 0001.edi',
      interchange: '123',
      limit: '20',
      cursor: 'c0ffee00-0000-4000-8000-000000000000',
    });
  });

  it('sends no query without options, and drops an empty status list', () => {
    expect(searchRequest({}).path).toBe('/v1/admin/messages');
    expect(searchRequest({ status: ' , ' }).path).toBe('/v1/admin/messages');
  });

  it.each(['0', '501', '2.5', 'ten'])('refuses --limit %s as a usage error', (limit) => {
    expect(() => searchRequest({ limit })).toThrow(UsageError);
  });
});

describe('detailRequest and previewRequest', () => {
  it('escapes the id into the path', () => {
    expect(detailRequest('a/b')).toEqual({ method: 'GET', path: '/v1/admin/messages/a%2Fb' });
  });

  it('posts the file text as X12', () => {
    expect(previewRequest('ISA*00~')).toEqual({
      method: 'POST',
      path: '/v1/edi/preview',
      body: 'ISA*00~',
      contentType: 'application/edi-x12',
    });
  });
});

describe('replayRequest', () => {
  const id = '3f2c1d00-0000-4000-8000-000000000001';

  it('replays one message with the API defaults when no option is given (rerun, original mapping)', () => {
    expect(replayRequest(id, {})).toEqual({ method: 'POST', path: `/v1/admin/messages/${id}/replay`, body: {} });
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
      method: 'POST',
      path: '/v1/admin/messages/replay',
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
  it('reads a run by id and lists the newest, --detach never sent', () => {
    expect(replayRunRequest('run 1')).toEqual({ method: 'GET', path: '/v1/admin/replays/run%201' });
    expect(replayRunsRequest()).toEqual({ method: 'GET', path: '/v1/admin/replays' });
    expect(replayRunsRequest('5').path).toBe('/v1/admin/replays?limit=5');
    expect(() => replayRunsRequest('101')).toThrow(UsageError);
    expect(replayRequest(undefined, { status: 'failed', dryRun: false, detach: true }).body).toEqual({
      status: ['failed'],
      dryRun: false,
    });
  });
});

describe('sendRequest', () => {
  it('tells X12 (ISA first, after a BOM or blank lines) from JSON, and refuses anything else', () => {
    expect(isX12('\uFEFF\r\n  ISA*00*')).toBe(true);
    expect(isX12('{"ISA":1}')).toBe(false);
    expect(sendRequest('ISA*00*~')).toEqual({
      method: 'POST',
      path: '/v1/edi',
      body: 'ISA*00*~',
      contentType: 'application/edi-x12',
    });
    expect(sendRequest('{"operations":[]}')).toEqual({
      method: 'POST',
      path: '/v1/messages',
      body: '{"operations":[]}',
      contentType: 'application/json',
    });
    expect(() => sendRequest('GS*PO*')).toThrow(UsageError);
    expect(() => sendRequest('GS*PO*')).toThrow(/neither X12 \(starting with ISA\) nor JSON/);
  });

  it('names an X12 upload after its file (found again by it); JSON has no name to carry', () => {
    expect(sendRequest('ISA*00*~', 'ASN 0001.edi').path).toBe('/v1/edi?fileName=ASN+0001.edi');
    expect(sendRequest('{"operations":[]}', 'po.json').path).toBe('/v1/messages');
    // The gateway alone applies the file-name rule, and names the problem (400) for a name it refuses.
    expect(sendRequest('ISA*00*~', 'tab\there.edi').path).toBe('/v1/edi?fileName=tab%09here.edi');
    expect(sendRequest('ISA*00*~').path).toBe('/v1/edi');
  });
});
