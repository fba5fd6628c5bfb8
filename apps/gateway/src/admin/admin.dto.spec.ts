import { EndMessageDto, parse } from './admin.dto';
import { BadInput } from '../http-error.filter';

describe('parse (admin bodies)', () => {
  it('names a field class-transformer cannot read (it was a 400 with no details, before that a 500)', () => {
    const body = JSON.parse('{"reason":{"constructor":{}}}');
    let thrown: unknown;
    try {
      parse(EndMessageDto, body, 'end');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BadInput);
    expect((thrown as BadInput).getResponse()).toEqual({
      statusCode: 400,
      error: 'Invalid end',
      details: ['reason.constructor: unknown field'],
    });
  });

  it('takes a body it can read', () => {
    expect(parse(EndMessageDto, { reason: 'x' }, 'end')).toMatchObject({ reason: 'x' });
  });
});
