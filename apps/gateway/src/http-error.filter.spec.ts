import {
  ArgumentsHost,
  BadRequestException,
  HttpException,
  NotFoundException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { DomainError } from '@dockbridge/audit';
import { PartnerNotFoundError, PartnerOwnedByFileError } from '@dockbridge/partners';
import { ReplayError, ReplayRunNotQueuedError } from '@dockbridge/pipeline';
import { BadInput, HttpErrorFilter } from './http-error.filter';

/** Runs the filter on `exception` and returns what it answered. */
function answer(exception: unknown): { status?: number; body?: unknown } {
  const sent: { status?: number; body?: unknown } = {};
  const reply = {
    status(code: number) {
      sent.status = code;
      return this;
    },
    send(body: unknown) {
      sent.body = body;
      return this;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => reply }) } as unknown as ArgumentsHost;
  new HttpErrorFilter().catch(exception, host);
  return sent;
}

describe('HttpErrorFilter', () => {
  it('maps each kind of domain error to its one status, with its summary, details and extra fields', () => {
    expect(answer(new PartnerNotFoundError('acme'))).toEqual({
      status: 404,
      body: { statusCode: 404, error: 'NotFound', details: ['partner acme not found'] },
    });
    expect(answer(new PartnerOwnedByFileError('acme', 'config/partners/acme.yaml')).body).toMatchObject({
      statusCode: 409,
      error: 'Partner owned by its file',
      file: 'config/partners/acme.yaml',
    });
    expect(answer(new ReplayError('invalid-payload', 'Invalid payload', ['operations[0].kind: unknown']))).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Invalid payload', details: ['operations[0].kind: unknown'] },
    });
    expect(answer(new ReplayError('not-replayable', 'an export file is not replayed')).status).toBe(422);
    expect(answer(new ReplayRunNotQueuedError('Redis is away')).body).toEqual({
      statusCode: 503,
      error: 'ServiceUnavailable',
      details: ['Redis is away'],
    });
    class Unknown extends DomainError {
      readonly kind = 'conflict';
    }
    expect(answer(new Unknown('taken')).body).toEqual({ statusCode: 409, error: 'Conflict', details: ['taken'] });
  });

  it('answers every HTTP exception with its status and an ErrorBody naming the problem', () => {
    expect(answer(new NotFoundException('message 42 does not exist'))).toEqual({
      status: 404,
      body: { statusCode: 404, error: 'NotFound', details: ['message 42 does not exist'] },
    });
    expect(answer(new BadInput('Invalid message', ['operations[0].kind: unknown']))).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Invalid message', details: ['operations[0].kind: unknown'] },
    });
    expect(answer(new BadRequestException(['a must be a string', 'b is required'])).body).toMatchObject({
      statusCode: 400,
      details: ['a must be a string', 'b is required'],
    });
  });

  it('names a plain HttpException (how Fastify\'s body errors arrive) by its status text, not "Http"', () => {
    expect(
      answer(new HttpException("Body is not valid JSON but content-type is set to 'application/json'", 400)),
    ).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: 'Bad Request',
        details: ["Body is not valid JSON but content-type is set to 'application/json'"],
      },
    });
  });

  it('answers a failed health check 503 with the report of which dependency is down', () => {
    // What @nestjs/terminus throws when a check fails.
    const report = {
      status: 'error',
      info: { postgres: { status: 'up' } },
      error: { platform: { status: 'down', message: 'fetch failed' } },
      details: { postgres: { status: 'up' }, platform: { status: 'down', message: 'fetch failed' } },
    };
    expect(answer(new ServiceUnavailableException(report))).toEqual({ status: 503, body: report });
  });

  it('answers a client error from the HTTP layer as 4xx, and anything unexpected as 500 without internals', () => {
    expect(answer(Object.assign(new Error('Request body is too large'), { statusCode: 413 }))).toEqual({
      status: 413,
      body: { statusCode: 413, error: 'Payload Too Large', details: ['Request body is too large'] },
    });
    const unexpected = answer(new Error('connection string postgres://user:secret@db'));
    expect(unexpected.status).toBe(500);
    expect(JSON.stringify(unexpected.body)).not.toContain('secret');
  });
});
