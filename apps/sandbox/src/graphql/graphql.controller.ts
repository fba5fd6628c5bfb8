import { Body, Controller, Headers, HttpCode, Logger, Post } from '@nestjs/common';
import { execute, GraphQLError, GraphQLFormattedError, GraphQLSchema, parse, validate } from 'graphql';
import { BookingsService } from '../bookings/bookings.service';
import { DocumentsService } from '../documents/documents.service';
import { callerFor } from '../http/caller';
import { PlatformError } from '../http/platform-error';
import { SandboxState } from '../state/sandbox-state';
import { buildSchema } from './resolvers';

type Code = PlatformError['code'] | 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED' | 'INTERNAL_SERVER_ERROR';

interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

interface GraphqlResponse {
  data?: Record<string, unknown> | null;
  errors?: GraphQLFormattedError[];
}

/**
 * `POST /api/v1/graphql`, executed with graphql-js directly. Authentication errors are HTTP 401
 * like REST; everything else is HTTP 200 with `errors[].extensions.code` (issue 2).
 */
@Controller('api/v1/graphql')
export class GraphqlController {
  private readonly logger = new Logger('SandboxGraphQL');
  private readonly schema: GraphQLSchema;

  constructor(
    private readonly state: SandboxState,
    bookings: BookingsService,
    documents: DocumentsService,
  ) {
    this.schema = buildSchema(state, bookings, documents);
  }

  @Post()
  @HttpCode(200)
  async handle(
    @Headers('authorization') authorization: string | undefined,
    @Body() body: unknown,
  ): Promise<GraphqlResponse> {
    const caller = callerFor(this.state, authorization);
    const request = this.request(body);

    let document;
    try {
      document = parse(request.query);
    } catch (error) {
      return { errors: [this.format(error as GraphQLError, 'GRAPHQL_PARSE_FAILED')] };
    }
    const invalid = validate(this.schema, document);
    if (invalid.length) {
      return { errors: invalid.map((e) => this.format(e, 'GRAPHQL_VALIDATION_FAILED')) };
    }

    const result = await execute({
      schema: this.schema,
      document,
      variableValues: request.variables ?? undefined,
      operationName: request.operationName ?? undefined,
      contextValue: caller,
    });
    if (!result.errors) {
      return { data: result.data };
    }
    // Without `data` the operation never ran: its variables (or operationName) were rejected.
    if (!('data' in result)) {
      return { errors: result.errors.map((e) => this.format(e, 'BAD_USER_INPUT')) };
    }
    return { data: result.data, errors: result.errors.map((e) => this.format(e)) };
  }

  /** 400 (REST-style body) unless the payload is `{query, variables?, operationName?}`. */
  private request(body: unknown): GraphqlRequest {
    const problems: string[] = [];
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw PlatformError.badRequest('Invalid GraphQL request', [
        'body: expected a JSON object {"query", "variables"}',
      ]);
    }
    const { query, variables, operationName } = body as Record<string, unknown>;
    if (typeof query !== 'string' || !query.trim()) {
      problems.push('query: required, a GraphQL document as a string');
    }
    if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
      problems.push('variables: must be a JSON object');
    }
    if (operationName != null && typeof operationName !== 'string') {
      problems.push('operationName: must be a string');
    }
    if (problems.length) {
      throw PlatformError.badRequest('Invalid GraphQL request', problems);
    }
    return body as GraphqlRequest;
  }

  private format(error: GraphQLError, fixed?: Code): GraphQLFormattedError {
    const original = error.originalError;
    let code: Code;
    let message = error.message;
    if (fixed) {
      code = fixed;
    } else if (original instanceof PlatformError) {
      code = original.code;
    } else {
      // Anything else is a sandbox bug: log it, tell the client nothing internal.
      this.logger.error(original?.stack ?? error.message);
      code = 'INTERNAL_SERVER_ERROR';
      message = 'Internal server error';
    }
    return {
      message,
      ...(error.locations ? { locations: error.locations } : {}),
      ...(error.path ? { path: error.path } : {}),
      extensions: { code },
    };
  }
}
