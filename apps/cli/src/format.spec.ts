import {
  excerpt,
  formatBulkReplay,
  formatGatewayError,
  formatMessageDetail,
  formatMessageList,
  formatPreview,
  formatReplayRun,
  formatReplayRunList,
  formatRunProgress,
  MessageDetail,
  MessageSummary,
  progressBar,
  redact,
  ReplayRun,
  table,
  time,
} from './format';

const summary = (over: Partial<MessageSummary> = {}): MessageSummary => ({
  id: '3f2c1d00-0000-4000-8000-000000000001',
  partnerId: 'acme-wms',
  channel: 'api',
  contentType: 'application/json',
  sha256: 'ab'.repeat(32),
  status: 'failed',
  statusReason: null,
  replayOf: null,
  receivedAt: '2026-11-01T12:34:56.789Z',
  updatedAt: '2026-11-01T12:35:00.000Z',
  metadata: {},
  ...over,
});

describe('excerpt and time', () => {
  it('keeps short text, folds whitespace to one line and cuts long text with an ellipsis', () => {
    expect(excerpt('short', 10)).toBe('short');
    expect(excerpt('a\n  b\tc', 10)).toBe('a b c');
    expect(excerpt('0123456789abc', 10)).toBe('012345678…');
    expect(excerpt('0123456789abc', 10)).toHaveLength(10);
    expect(excerpt(null, 10)).toBe('');
  });

  it('shows ISO times in UTC to the second, and leaves what it cannot parse', () => {
    expect(time('2026-11-01T13:34:56.789+01:00')).toBe('2026-11-01 12:34:56Z');
    expect(time('yesterday')).toBe('yesterday');
    expect(time(null)).toBe('');
  });
});

describe('table', () => {
  it('pads every column but the last to its widest cell', () => {
    expect(
      table(
        ['A', 'BB', 'C'],
        [
          ['xxx', 'y', 'last cell'],
          ['', 'zzz', ''],
        ],
      ),
    ).toEqual(['A    BB   C', 'xxx  y    last cell', '     zzz']);
  });
});

describe('formatMessageList', () => {
  it('prints id, received, partner, channel, status and a one-line reason excerpt per message', () => {
    const reason = `1 of 1 operations failed: ${'x'.repeat(100)}\nsecond line`;
    const lines = formatMessageList({
      items: [
        summary({ statusReason: reason }),
        summary({ id: 'b', partnerId: 'p', channel: 'sftp', status: 'delivered' }),
      ],
      nextCursor: null,
    });
    expect(lines[0].split(/\s{2,}/)).toEqual(['ID', 'RECEIVED', 'PARTNER', 'CHANNEL', 'STATUS', 'REASON']);
    expect(lines[1]).toMatch(
      /^3f2c1d00-0000-4000-8000-000000000001 {2}2026-11-01 12:34:56Z {2}acme-wms {2}api {6}failed {5}1 of 1 operations failed: x+…$/,
    );
    expect(lines[1]).not.toContain('second line');
    expect(lines[2].trimEnd()).toMatch(/^b +2026-11-01 12:34:56Z {2}p +sftp +delivered$/);
    expect(lines.at(-1)).toBe('2 messages');
  });

  it('says when nothing matches, and how to get the next page', () => {
    expect(formatMessageList({ items: [], nextCursor: null })).toEqual(['No messages match.']);
    expect(formatMessageList({ items: [summary()], nextCursor: 'c1' }).at(-1)).toBe('1 message; more with --cursor c1');
  });
});

describe('formatMessageDetail', () => {
  const unused = {
    payload: {},
    nextAttemptAt: null,
    inFlightUntil: null,
    supersededBy: null,
    createdAt: '2026-11-01T12:34:56Z',
    updatedAt: '2026-11-01T12:35:02Z',
  };
  const detail: MessageDetail = {
    message: {
      ...summary({
        status: 'partially_failed',
        statusReason: '1 of 2 operations failed',
        replayOf: 'orig-id',
        metadata: { mappingVersion: 3 },
      }),
      rawPayload: '{"operations":[]}',
      payloadBytes: 17,
      payloadTruncated: false,
    },
    operations: [
      {
        ...unused,
        id: 'o1',
        seq: 1,
        kind: 'document.upsert',
        organisationId: 'org-1',
        targetId: 'PO-1',
        status: 'delivered',
        lastError: null,
        errorClass: null,
        attemptCount: 1,
        attempts: [
          {
            id: 'a1',
            startedAt: '2026-11-01T12:35:00Z',
            durationMs: 12,
            httpStatus: 201,
            outcome: 'success',
            errorExcerpt: null,
            requestSummary: 'PUT …',
          },
        ],
      },
      {
        ...unused,
        id: 'o2',
        seq: 2,
        kind: 'document.upsert',
        organisationId: 'org-1',
        targetId: 'BAD-1',
        status: 'failed',
        lastError: 'offsite: no organisation with Core ID ACME/SUP-UNKNOWN',
        errorClass: 'permanent',
        attemptCount: 1,
        attempts: [
          {
            id: 'a2',
            startedAt: '2026-11-01T12:35:01Z',
            durationMs: 8,
            httpStatus: 400,
            outcome: 'permanent',
            errorExcerpt: 'Bad request: offsite',
            requestSummary: null,
          },
        ],
      },
    ],
    events: [
      { at: '2026-11-01T12:34:56Z', fromStatus: null, toStatus: 'received', actor: 'gateway', reason: null },
      {
        at: '2026-11-01T12:35:02Z',
        fromStatus: 'delivering',
        toStatus: 'partially_failed',
        actor: 'worker',
        reason: '1 of 2 operations failed',
      },
    ],
    files: [],
    fileCount: 0,
    replays: [],
    operationCounts: { total: 2, byStatus: { delivered: 1, failed: 1 }, attempts: 2 },
    nextOperationsAfter: null,
  };

  it('shows the message, each operation with its outcome, attempts and last error, and the events', () => {
    const text = formatMessageDetail(detail).join('\n');
    expect(text).toContain('Message 3f2c1d00-0000-4000-8000-000000000001');
    expect(text).toContain('  status    partially_failed (1 of 2 operations failed)');
    expect(text).toContain('  replay of orig-id');
    expect(text).toContain('17 bytes, sha256 abab');
    expect(text).toContain('  #1 document.upsert PO-1 at org-1: delivered, 1 attempt');
    expect(text).toContain('  #2 document.upsert BAD-1 at org-1: failed (permanent), 1 attempt');
    expect(text).toContain('      last error: offsite: no organisation with Core ID ACME/SUP-UNKNOWN');
    expect(text).toContain('      2026-11-01 12:35:01Z  permanent  HTTP 400  8 ms  Bad request: offsite');
    expect(text).toContain(
      '  2026-11-01 12:35:02Z  delivering -> partially_failed  by worker: 1 of 2 operations failed',
    );
    expect(text).not.toContain('{"operations":[]}'); // the payload only with --payload
    expect(text).not.toContain('Files'); // none, or a gateway that does not list them
  });

  it("lists the message's files: the upload, and whether its 997 was fetched (read) and removed", () => {
    const files = [
      {
        folder: 'inbound',
        name: 'ASN-0001.edi',
        id: 'f1',
        sha256: 'ab',
        kind: null,
        size: 1234,
        createdAt: '2026-11-01T12:34:56Z',
        removedAt: null,
        fetchedAt: null,
      },
      {
        folder: 'outbound',
        name: '997_000000001_a1_1.x12',
        id: 'f2',
        sha256: 'ab',
        kind: '997',
        size: 120,
        createdAt: '2026-11-01T12:35:00Z',
        removedAt: '2026-11-01T12:40:00Z',
        fetchedAt: '2026-11-01T12:39:30Z',
      },
      {
        folder: 'outbound',
        name: '997_000000003_a1_3.x12',
        id: 'f4',
        sha256: 'ab',
        kind: '997',
        size: 120,
        createdAt: '2026-11-01T12:36:00Z',
        removedAt: null,
        fetchedAt: '2026-11-01T12:41:00Z',
      },
      {
        folder: 'outbound',
        name: 'TA1_000000002_a1_2.x12',
        id: 'f3',
        sha256: 'ab',
        kind: 'TA1',
        size: 110,
        createdAt: '2026-11-01T12:35:00Z',
        removedAt: null,
        fetchedAt: null,
      },
    ];
    const lines = formatMessageDetail({ ...detail, files, fileCount: 4 });
    const at = lines.indexOf('Files (4)');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 6)).toEqual([
      '  FILE                             KIND    SIZE        WRITTEN               STATE',
      '  inbound/ASN-0001.edi             upload  1234 bytes  2026-11-01 12:34:56Z  present',
      '  outbound/997_000000001_a1_1.x12  997     120 bytes   2026-11-01 12:35:00Z  fetched 2026-11-01 12:39:30Z, removed 2026-11-01 12:40:00Z',
      '  outbound/997_000000003_a1_3.x12  997     120 bytes   2026-11-01 12:36:00Z  fetched 2026-11-01 12:41:00Z',
      '  outbound/TA1_000000002_a1_2.x12  TA1     110 bytes   2026-11-01 12:35:00Z  not fetched yet',
    ]);
    // A file of many interchanges: the gateway lists the first files and counts them all.
    expect(formatMessageDetail({ ...detail, files, fileCount: 10001 })).toContain('Files (the first 4 of 10001)');
  });
});

describe('formatBulkReplay', () => {
  it('reports a dry run count and says how to replay for real', () => {
    expect(formatBulkReplay({ dryRun: true, matching: 1, skipped: [] })).toEqual([
      'Dry run: 1 message matches; nothing was replayed.',
      'Add --no-dry-run to replay them.',
    ]);
    expect(formatBulkReplay({ dryRun: true, matching: 3, skipped: [] })[0]).toBe(
      'Dry run: 3 messages match; nothing was replayed.',
    );
  });

  it('names a real run it left running (--detach) and how to follow it', () => {
    expect(
      formatBulkReplay({
        dryRun: false,
        runId: 'run-1',
        status: 'queued',
        limit: 10_000,
        location: '/v1/admin/replays/run-1',
      }),
    ).toEqual(['Bulk replay run run-1 queued.', 'Follow it: dockbridge replays show run-1 --wait']);
  });
});

describe('bulk replay runs', () => {
  const run = (over: Partial<ReplayRun> = {}): ReplayRun => ({
    runId: 'run-1',
    status: 'running',
    filter: { status: ['failed'] },
    request: { mode: 'rerun' },
    actor: 'operator:jo',
    reason: null,
    total: 2000,
    done: 1234,
    replayed: 1200,
    skipped: 34,
    skips: [],
    limit: 10_000,
    limitReached: false,
    error: null,
    createdAt: '2026-11-01T12:00:00.000Z',
    startedAt: '2026-11-01T12:00:01.000Z',
    finishedAt: null,
    updatedAt: '2026-11-01T12:00:30.000Z',
    ...over,
  });

  it('draws progress as a bar with the counts, and an empty bar while the total is unknown', () => {
    expect(progressBar(1, 2, 10)).toBe('[#####-----]');
    expect(progressBar(0, null, 4)).toBe('[----]');
    expect(formatRunProgress(run())).toBe(
      'running   [##################------------] 1,234/2,000 (61%)  replayed 1,200, skipped 34',
    );
    expect(formatRunProgress(run({ status: 'queued', total: null, done: 0, replayed: 0, skipped: 0 }))).toBe(
      `queued    [${'-'.repeat(30)}] 0  replayed 0, skipped 0`,
    );
  });

  it('reports a finished run with its figures, the limit when reached, and the first skipped with their reason', () => {
    const done = run({
      status: 'completed',
      total: 10_000,
      done: 10_000,
      replayed: 9_998,
      skipped: 2,
      skips: [{ id: 'm-1', reason: 'refused at ingress' }],
      limitReached: true,
      finishedAt: '2026-11-01T12:05:00.000Z',
    });
    expect(formatReplayRun(done)).toEqual([
      'Bulk replay run run-1: completed (asked by operator:jo at 2026-11-01 12:00:00Z)',
      'Replayed 9,998 messages; 2 skipped (10,000 looked at, finished 2026-11-01 12:05:00Z).',
      'Limit reached: only the first 10,000 matching messages are looked at; narrow the filter (--from/--to) and run again for the rest.',
      'Skipped (the first 1 of 2):',
      '  m-1: refused at ingress',
    ]);
    expect(formatReplayRun(run({ status: 'failed', error: 'database unavailable' }))).toContain(
      'Error: database unavailable',
    );
    expect(formatReplayRunList([run()])[1]).toMatch(
      /^run-1 +2026-11-01 12:00:00Z +running +1,234\/2,000 +1,200 +34 +operator:jo$/,
    );
  });
});

describe('formatPreview', () => {
  it('shows interchanges, sets with located diagnostics, documents, acknowledgments and problems', () => {
    const lines = formatPreview({
      summary: { interchanges: 1, sets: 2, accepted: 1, rejected: 1, documents: 1 },
      nextSetsAfter: null,
      interchanges: [{ key: 'i1', senderId: 'KETTLE', control: '000000101', refused: false }],
      transactionSets: [
        {
          transactionControl: '0001',
          setId: '850',
          interchangeKey: 'i1',
          documentId: 'PO-7001',
          rejected: false,
          envelopeRejected: false,
          diagnostics: [],
          notes: [],
        },
        {
          transactionControl: '0002',
          setId: '850',
          interchangeKey: 'i1',
          rejected: true,
          envelopeRejected: false,
          notes: [],
          diagnostics: [
            {
              level: 'error',
              transactionControl: '0002',
              segmentPosition: 7,
              segmentTag: 'PO1',
              element: 2,
              message: 'quantity must be a number',
            },
          ],
        },
      ],
      documents: [
        { kind: 'document.upsert', organisationId: 'org-1', document: { id: 'PO-7001', direction: 'Inbound' } },
      ],
      acknowledgments: [{ kind: '997', acknowledges: '000000101', content: 'ISA…' }],
      problems: ['garbage before the first ISA (line 1, column 1)'],
    });
    expect(lines).toEqual([
      'Interchanges (1)',
      '  sender KETTLE control 000000101: accepted',
      '',
      'Transaction sets (2)',
      '  850 control 0001 document PO-7001: accepted',
      '  850 control 0002: rejected',
      '      error PO1 (segment 7) element 2: quantity must be a number',
      '',
      'Documents (1)',
      '  document.upsert PO-7001 at org-1',
      '',
      'Acknowledgments: 997 for 000000101',
      '',
      'Problems (1)',
      '  garbage before the first ISA (line 1, column 1)',
    ]);
  });
});

describe('formatGatewayError and redact', () => {
  it("prints the gateway's error and each detail line", () => {
    expect(formatGatewayError(400, 'Invalid search', ['status: must be one of …', 'from: must be ISO 8601'])).toEqual([
      'error: Invalid search (HTTP 400)',
      '  status: must be one of …',
      '  from: must be ISO 8601',
    ]);
  });

  it('scrubs every secret, wherever it appears', () => {
    expect(redact('Bearer s3cret-token and again s3cret-token', ['s3cret-token', undefined])).toBe(
      'Bearer *** and again ***',
    );
    expect(redact('abc', ['b'])).toBe('abc'); // too short to be a real secret: left alone
  });
});
