import {
  classifyGraphqlCode,
  classifyStatus,
  fromTransportFailure,
  parseRetryAfter,
  PlatformCallError,
  reasonFromBody,
  truncate,
} from './platform-error';

describe('classifyStatus: the one error taxonomy by HTTP status', () => {
  it('retries 408, 429 and every 5xx (503 and 504 too, not only 502)', () => {
    for (const status of [408, 429, 500, 501, 502, 503, 504, 507, 599]) {
      expect({ status, errorClass: classifyStatus(status) }).toEqual({ status, errorClass: 'retryable' });
    }
  });

  it('calls 401 and 403 auth, and every other 4xx permanent', () => {
    expect([401, 403].map(classifyStatus)).toEqual(['auth', 'auth']);
    for (const status of [400, 402, 404, 405, 409, 410, 413, 415, 422, 451]) {
      expect({ status, errorClass: classifyStatus(status) }).toEqual({ status, errorClass: 'permanent' });
    }
  });

  it('makes a 503 or 504 error retryable, so a delivery is tried again', () => {
    for (const status of [503, 504, 408]) {
      const error = new PlatformCallError(classifyStatus(status), 'PUT document', 'busy', status);
      expect(error.retryable).toBe(true);
    }
    expect(new PlatformCallError(classifyStatus(400), 'PUT document', 'bad', 400).retryable).toBe(false);
  });
});

describe('other classifications', () => {
  it('classifies GraphQL codes, an unknown one as permanent', () => {
    expect(
      ['UNAUTHENTICATED', 'FORBIDDEN', 'BAD_USER_INPUT', 'INTERNAL_SERVER_ERROR', 'SOMETHING_NEW', undefined].map(
        classifyGraphqlCode,
      ),
    ).toEqual(['auth', 'auth', 'permanent', 'retryable', 'permanent', 'permanent']);
  });

  it('makes every transport failure retryable, naming a timeout by its limit', () => {
    expect(
      fromTransportFailure('GET document', Object.assign(new Error('aborted'), { name: 'TimeoutError' }), 250),
    ).toMatchObject({ errorClass: 'retryable', reason: 'no answer within 250 ms' });
    expect(
      fromTransportFailure(
        'GET document',
        Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNRESET', message: 'socket hang up' } }),
        250,
      ),
    ).toMatchObject({ errorClass: 'retryable', reason: 'ECONNRESET: socket hang up' });
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe('PlatformCallError', () => {
  it('says what failed, how, and why in its message', () => {
    const error = new PlatformCallError(
      'permanent',
      'graphql createBooking',
      'no such carrier',
      400,
      undefined,
      'NOT_FOUND',
    );
    expect(error.message).toBe('graphql createBooking failed (permanent, HTTP 400, NOT_FOUND): no such carrier');
    expect(error.name).toBe('PlatformCallError');
    expect(new PlatformCallError('auth', 'PUT document', 'token expired').message).toBe(
      'PUT document failed (auth): token expired',
    );
  });
});

describe('classifyGraphqlCode: every code the platform sends', () => {
  it.each([
    ['UNAUTHENTICATED', 'auth'],
    ['FORBIDDEN', 'auth'],
    ['BAD_USER_INPUT', 'permanent'],
    ['NOT_FOUND', 'permanent'],
    ['GRAPHQL_PARSE_FAILED', 'permanent'],
    ['GRAPHQL_VALIDATION_FAILED', 'permanent'],
    ['INTERNAL_SERVER_ERROR', 'retryable'],
  ])('%s is %s', (code, errorClass) => {
    expect(classifyGraphqlCode(code)).toBe(errorClass);
  });

  it('reads an unknown code, or the name of an object member, as permanent', () => {
    for (const code of ['SOMETHING_NEW', 'constructor', 'toString', '__proto__', undefined]) {
      expect([code, classifyGraphqlCode(code)]).toEqual([code, 'permanent']);
    }
  });
});

describe('fromTransportFailure', () => {
  it.each([
    'ECONNRESET',
    'ECONNREFUSED',
    'ECONNABORTED',
    'EPIPE',
    'ETIMEDOUT',
    'EAI_AGAIN',
    'ENOTFOUND',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'UND_ERR_SOCKET',
    'UND_ERR_CONNECT_TIMEOUT',
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
    'UND_ERR_CLOSED',
  ])('names a %s, on the error or its cause', (code) => {
    expect(fromTransportFailure('op', Object.assign(new Error('gone'), { code }), 1).reason).toBe(`${code}: gone`);
    expect(fromTransportFailure('op', { message: 'fetch failed', cause: { code, message: 'gone' } }, 1).reason).toBe(
      `${code}: gone`,
    );
  });

  it('names an aborted call as a timeout, and keeps other failures as they are, without an unknown code', () => {
    expect(fromTransportFailure('op', Object.assign(new Error('x'), { name: 'AbortError' }), 30)).toMatchObject({
      errorClass: 'retryable',
      operation: 'op',
      reason: 'no answer within 30 ms',
    });
    expect(fromTransportFailure('op', Object.assign(new Error('odd'), { code: 'EWHATEVER' }), 1).reason).toBe('odd');
    expect(fromTransportFailure('op', { message: 'outer', cause: { message: 'inner' } }, 1).reason).toBe('inner');
    expect(fromTransportFailure('op', 'a string thrown', 1).reason).toBe('a string thrown');
    expect(fromTransportFailure('op', null, 1)).toMatchObject({ errorClass: 'retryable', reason: 'null' });
    expect(fromTransportFailure('op', undefined, 1).reason).toBe('undefined');
  });
});

describe('parseRetryAfter at its edges', () => {
  it('reads delta-seconds with blanks around them, and nothing else as seconds', () => {
    expect(parseRetryAfter(' 120 ')).toBe(120_000);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('7s')).toBeUndefined();
    expect(parseRetryAfter('a7')).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
  });

  it('reads an HTTP date as the time left until it, never less than nothing', () => {
    const now = Date.UTC(2026, 10, 22, 8, 0, 0);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
    expect(parseRetryAfter(new Date(now - 90_000).toUTCString(), now)).toBe(0);
  });
});

describe("reasonFromBody: the platform's reason", () => {
  it('reads {error, details} with its string details, or the text itself', () => {
    expect(reasonFromBody('{"error":"invalid document","details":["id: too long",3,"direction: unknown"]}')).toBe(
      'invalid document: id: too long; direction: unknown',
    );
    expect(reasonFromBody('{"error":"invalid document","details":[]}')).toBe('invalid document');
    expect(reasonFromBody('{"error":"invalid document","details":"id"}')).toBe('invalid document');
    expect(reasonFromBody('{"message":"no error field"}')).toBe('{"message":"no error field"}');
    expect(reasonFromBody('{"error":{"code":1}}')).toBe('{"error":{"code":1}}');
    expect(reasonFromBody('  Bad Gateway\n')).toBe('Bad Gateway');
    expect(reasonFromBody(' \n')).toBe('(empty response body)');
  });

  it('cuts a long reason to 2000 characters, the last an ellipsis', () => {
    expect(reasonFromBody('x'.repeat(2000))).toBe('x'.repeat(2000));
    expect(reasonFromBody('x'.repeat(2001))).toBe(`${'x'.repeat(1999)}…`);
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcd', 4)).toBe('abcd');
  });
});
