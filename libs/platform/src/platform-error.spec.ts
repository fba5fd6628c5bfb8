import {
  classifyGraphqlCode,
  classifyStatus,
  fromTransportFailure,
  parseRetryAfter,
  PlatformCallError,
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
