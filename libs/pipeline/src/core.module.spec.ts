import { requestForLog } from './core.module';

describe('request log lines', () => {
  it('show what was asked and safe headers only: no credential header, whatever its name', () => {
    const logged = requestForLog({
      id: 'req-7',
      method: 'POST',
      url: '/v1/webhooks/fast-freight',
      remoteAddress: '10.0.0.5',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_1',
        authorization: 'Bearer admin-token',
        'x-api-key': 'dbk_live_secret',
        'x-tms-signature': 'sha256=abc', // a partner-configured signature header
        cookie: 'session=1',
      },
    });
    expect(logged).toEqual({ id: 'req-7', method: 'POST', url: '/v1/webhooks/fast-freight', remoteAddress: '10.0.0.5', headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' } });
    expect(JSON.stringify(logged)).not.toMatch(/admin-token|dbk_live|sha256=|session/);
  });
});
