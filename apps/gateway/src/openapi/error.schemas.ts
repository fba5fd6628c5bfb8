import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse, ApiSchema } from '@nestjs/swagger';
import type { ErrorBody } from '../http-error.filter';

/** The body of every gateway error (ErrorBody of http-error.filter.ts). */
@ApiSchema({ name: 'ErrorBody' })
export class ErrorBodySchema implements ErrorBody {
  @ApiProperty({ description: 'The HTTP status, repeated', example: 400 })
  statusCode!: number;
  @ApiProperty({ description: 'A summary of the refusal', example: 'Invalid search' })
  error!: string;
  @ApiProperty({
    type: [String],
    description: 'One reason per problem, each naming its field',
    example: ['limit must not be greater than 500'],
  })
  details!: string[];
}

/** What each status means when an endpoint gives no reason of its own. */
const DEFAULT_REASONS: Record<number, string> = {
  400: 'Invalid request; `details` names each offending field',
  401: 'Missing or invalid credentials',
  403: "The token's role does not allow this",
  404: 'No such resource',
  409: 'Conflicts with the current state',
  413: 'Body over the limit',
  415: 'Unsupported content type',
  422: 'Understood but refused',
  503: 'A dependency (Postgres, Redis) is unavailable',
};

/** Error answers of an endpoint, each with the ErrorBody schema: a status, or a status and why it happens. */
export function ApiErrors(...errors: (number | [number, string])[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...errors.map((error) => {
      const [status, description] = typeof error === 'number' ? [error, DEFAULT_REASONS[error]] : error;
      return ApiResponse({ status, description: description ?? 'Error', type: ErrorBodySchema });
    }),
  );
}
