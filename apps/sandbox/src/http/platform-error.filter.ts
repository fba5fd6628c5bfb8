import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { PlatformErrorBody } from '@dockbridge/platform';
import { PlatformError } from './platform-error';

/** Every REST error leaves as `{"error": "<summary>", "details": ["<reason>", ...]}`. */
@Catch()
export class PlatformErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Sandbox');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const [status, body] = this.describe(exception);
    void reply.status(status).send(body);
  }

  private describe(exception: unknown): [number, PlatformErrorBody] {
    if (exception instanceof PlatformError) {
      return [exception.status, { error: exception.summary, details: exception.details }];
    }
    if (exception instanceof HttpException) {
      const response = exception.getResponse();
      const message = typeof response === 'string' ? response : (response as { message?: string | string[] }).message;
      return [exception.getStatus(), { error: exception.message, details: [message ?? exception.message].flat() }];
    }
    const fastifyStatus = (exception as { statusCode?: number }).statusCode;
    if (fastifyStatus && fastifyStatus >= 400 && fastifyStatus < 500) {
      return [fastifyStatus, { error: 'Bad request', details: [`body: ${(exception as Error).message}`] }];
    }
    this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    return [500, { error: 'Internal error', details: ['the sandbox failed unexpectedly; see its log'] }];
  }
}
