import { PartnerProfileDto } from '@dockbridge/partners';
import { EndMessageDto, parse, ReplayDto } from './admin.dto';
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

  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return (error as BadInput).getResponse();
    }
    return 'accepted';
  };
  const LOCATION = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';

  it.each([
    ['{"valueOf":true}', 'valueOf'],
    ['{"mode":"rerun","toString":"x"}', 'toString'],
  ])('refuses %s by name (the whitelist took it for a declared field and it was dropped)', (body, field) => {
    expect(refusal(() => parse(ReplayDto, JSON.parse(body), 'replay request'))).toEqual({
      statusCode: 400,
      error: 'Invalid replay request',
      details: [`${field}: unknown field`],
    });
  });

  it.each([
    ['toString', 'toString'],
    ['settings', 'settings.valueOf'],
    ['settings', 'settings.hasOwnProperty'],
  ])('refuses a profile whose %s is named like an inherited property (%s), not saved without it', (_, path) => {
    const [head, inner] = path.split('.');
    const body = {
      id: 'p1',
      name: 'P',
      locationOrganisationId: LOCATION,
      ...(inner ? { [head]: { [inner]: 1 } } : { [head]: 'x' }),
    };
    expect(refusal(() => parse(PartnerProfileDto, body, 'partner profile'))).toEqual({
      statusCode: 400,
      error: 'Invalid partner profile',
      details: [`${path}: unknown field`],
    });
  });

  it('hands a free-form payload over as sent, keys named like inherited ones included', () => {
    const payload = JSON.parse('{"toString":"x","order":{"valueOf":2,"constructor":{"a":[{"__proto__":1}]}}}');
    const dto = parse(ReplayDto, { payload, mode: 'rerun' }, 'replay request');
    expect(dto.payload).toBe(payload);
    expect(dto.mode).toBe('rerun');
    expect(parse(ReplayDto, { payload: 'ISA*00~' }, 'replay request').payload).toBe('ISA*00~');
    expect(refusal(() => parse(ReplayDto, 'text', 'replay request'))).not.toBe('accepted');
  });

  it('takes a body it can read', () => {
    expect(parse(EndMessageDto, { reason: 'x' }, 'end')).toMatchObject({ reason: 'x' });
  });
});
