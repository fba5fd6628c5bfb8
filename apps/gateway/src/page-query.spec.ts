import { operationPage } from './admin/operation-page';

describe('operationPage: a page of operations from query parameters', () => {
  it('defaults the limit and keeps a valid position', () => {
    // A message's detail opens on 50 operations, as the console asks; a partner's status page keeps its 200.
    expect(operationPage(undefined, undefined, 'operations')).toEqual({ after: undefined, limit: 50 });
    expect(operationPage(undefined, undefined, undefined, 200)).toEqual({ after: undefined, limit: 200 });
    expect(operationPage('40', '1000', 'operations')).toEqual({ after: 40, limit: 1000 });
  });

  it('names each bad parameter as the endpoint calls it', () => {
    expect(() => operationPage('-1', '0', 'operations')).toThrow(
      expect.objectContaining({
        response: {
          statusCode: 400,
          error: 'Invalid page of operations',
          details: [
            "operationsAfter must be an operation's seq (a whole number from 0)",
            'operationsLimit must be a whole number from 1 to 1000',
          ],
        },
      }) as Error,
    );
    expect(() => operationPage('x', undefined)).toThrow(
      expect.objectContaining({
        response: expect.objectContaining({ details: [expect.stringMatching(/^after /)] }),
      }) as Error,
    );
  });
});
