import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import { DomainError, DomainErrorKind } from '@dockbridge/audit';

/** Each kind of domain refusal, its one HTTP status and default summary. */
const DOMAIN_STATUS: Record<DomainErrorKind, [number, string]> = {
  'not-found': [404, 'NotFound'],
  invalid: [400, 'Bad Request'],
  unauthenticated: [401, 'Unauthorized'],
  conflict: [409, 'Conflict'],
  'too-large': [413, 'Payload too large'],
  unprocessable: [422, 'UnprocessableEntity'],
  unavailable: [503, 'ServiceUnavailable'],
};

/** Body of every gateway error: a status, a summary, and one reason per problem (each naming its field). */
export interface ErrorBody {
  statusCode: number;
  error: string;
  details: string[];
}

export class BadInput extends HttpException {
  constructor(summary: string, details: string[]) {
    super({ statusCode: 400, error: summary, details } satisfies ErrorBody, 400);
  }
}

/** Turns every failure into ErrorBody; an unexpected one is logged and answered 500 without internals. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof HttpException && isHealthReport(exception.getResponse())) {
      // /health when something is down: 503 with the report itself (which dependency, why), as probes expect.
      void reply.status(exception.getStatus()).send(exception.getResponse());
      return;
    }
    const body = this.describe(exception);
    void reply.status(body.statusCode).send(body);
  }

  private describe(exception: unknown): ErrorBody {
    if (exception instanceof DomainError) {
      const [statusCode, summary] = DOMAIN_STATUS[exception.kind];
      return {
        ...exception.extra,
        statusCode,
        error: exception.summary ?? summary,
        details: exception.details.length > 0 ? exception.details : [exception.message],
      };
    }
    if (exception instanceof HttpException) {
      const statusCode = exception.getStatus();
      const response = exception.getResponse();
      if (isErrorBody(response)) {
        return response;
      }
      const message = typeof response === 'string' ? response : (response as { message?: string | string[] }).message;
      // A plain HttpException (Fastify's own errors, such as a body that is not JSON, arrive as one) says nothing by its name: use the status text.
      const error =
        exception.constructor === HttpException
          ? (STATUS_CODES[statusCode] ?? 'Error')
          : exception.name.replace(/Exception$/, '');
      return { statusCode, error, details: [message ?? exception.message].flat() };
    }
    const status = (exception as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) {
      return {
        statusCode: status,
        error: STATUS_CODES[status] ?? 'Bad request',
        details: [(exception as Error).message],
      };
    }
    this.logger.error({
      msg: 'unexpected error',
      error: exception instanceof Error ? exception.stack : String(exception),
    });
    return {
      statusCode: 500,
      error: 'Internal error',
      details: ['dockbridge failed unexpectedly; the error is logged'],
    };
  }
}

const isErrorBody = (response: unknown): response is ErrorBody =>
  typeof response === 'object' &&
  response !== null &&
  typeof (response as ErrorBody).statusCode === 'number' &&
  Array.isArray((response as ErrorBody).details);

/** The body @nestjs/terminus throws when a check fails: {status: 'error', info, error, details}. */
const isHealthReport = (response: unknown): boolean =>
  typeof response === 'object' &&
  response !== null &&
  (response as { status?: unknown }).status === 'error' &&
  'info' in response &&
  'error' in response;
