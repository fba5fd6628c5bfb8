import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { GatewayModule } from '../apps/gateway/src/gateway.module';
import { startSpine, Spine } from './support/spine';

/*
 * The OpenAPI document served at /docs-json describes every partner and admin endpoint (/v1/...) whole:
 * a 2xx answer with a schema, its errors as ErrorBody, its request body, each query parameter it reads.
 * The routes and the query parameters they read come from the controllers' own metadata, so a new
 * endpoint, or a new @Query on an old one, fails here until it is described.
 */

/** Handlers that take the whole query (`@Query()`) validate it with a DTO: the parameters each reads. */
// MessageFilterDto (admin.dto.ts); MessageSearchDto adds its page.
const MESSAGE_FILTER = ['status', 'partner', 'channel', 'from', 'to', 'documentId', 'fileName', 'interchange', 'text'];
// PreviewQuery (edi/preview.ts)
const EDI_PREVIEW = ['setsAfter', 'setsLimit', 'full'];
const WHOLE_QUERY: Record<string, string[]> = {
  'AdminMessagesController.search': [...MESSAGE_FILTER, 'limit', 'cursor'],
  'AdminMessagesController.counts': MESSAGE_FILTER,
  // ActivityQueryDto (admin-operators.controller.ts)
  'AdminOperatorsController.activity': ['limit', 'cursor', 'target'],
  'EdiController.preview': EDI_PREVIEW,
  'AdminDryRunsController.previewEdi': ['partner', ...EDI_PREVIEW],
};

/** POST/PUT routes that read no body (every other one must describe its request body). */
const BODYLESS = new Set(['AdminPartnersController.adopt', 'AdminPartnersController.release']);

/** Known gaps: operations allowed to lack something, with the reason. Empty: every endpoint is described. */
const KNOWN_GAPS: Record<string, string[]> = {};

interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema?: unknown;
}
interface Media {
  schema?: { $ref?: string; type?: string; properties?: object; oneOf?: unknown[] };
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, { description?: string; content?: Record<string, Media> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

interface Route {
  handler: string;
  method: string;
  path: string;
  query: string[];
  hasBody: boolean;
}

const METHODS: Partial<Record<RequestMethod, string>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.PATCH]: 'patch',
};

/** Every route of the gateway's controllers, as Nest registers it, with the query parameters and body it reads. */
function routesOf(): Route[] {
  const controllers = Reflect.getMetadata('controllers', GatewayModule) as (new (...args: never[]) => object)[];
  const routes: Route[] = [];
  for (const controller of controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const fn = (controller.prototype as Record<string, unknown>)[name];
      if (name === 'constructor' || typeof fn !== 'function' || Reflect.getMetadata(PATH_METADATA, fn) === undefined) {
        continue;
      }
      const handler = `${controller.name}.${name}`;
      const method = METHODS[Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod] ?? '?';
      const sub = String(Reflect.getMetadata(PATH_METADATA, fn));
      const path = `/${[base, sub].filter((p) => p && p !== '/').join('/')}`.replace(/:(\w+)/g, '{$1}');
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
        string,
        { data?: unknown }
      >;
      const params = Object.entries(args);
      const query: string[] = [];
      for (const [key, param] of params) {
        if (key.startsWith(`${RouteParamtypes.QUERY}:`)) {
          if (typeof param.data === 'string') {
            query.push(param.data);
          } else {
            const whole = WHOLE_QUERY[handler];
            if (!whole) {
              throw new Error(`${handler} reads the whole query: list its parameters in WHOLE_QUERY`);
            }
            query.push(...whole);
          }
        }
      }
      const hasBody = params.some(([key]) => key.startsWith(`${RouteParamtypes.BODY}:`));
      routes.push({ handler, method, path, query, hasBody });
    }
  }
  return routes;
}

const ERROR_BODY = '#/components/schemas/ErrorBody';

/** What an operation lacks, one line each. */
function lacks(document: Document, route: Route): string[] {
  const operation = document.paths[route.path]?.[route.method];
  if (!operation) {
    return ['is not in the document'];
  }
  const problems: string[] = [];
  const responses = Object.entries(operation.responses ?? {});
  // A schema says something: a reference, a type, properties or alternatives (an example alone does not count).
  const described = (content?: Record<string, Media>) =>
    Object.values(content ?? {}).some(
      (media) =>
        media.schema && (media.schema.$ref || media.schema.type || media.schema.properties || media.schema.oneOf),
    );
  if (!responses.some(([status, response]) => /^2/.test(status) && described(response.content))) {
    problems.push('a 2xx response with a schema');
  }
  for (const [status, response] of responses) {
    if (/^2/.test(status) && !described(response.content)) {
      problems.push(`a schema for its ${status} response`);
    }
    if (/^[45]/.test(status) && response.content?.['application/json']?.schema?.$ref !== ERROR_BODY) {
      problems.push(`the ErrorBody schema on its ${status} response`);
    }
  }
  if (!responses.some(([status]) => /^4/.test(status))) {
    problems.push('a 4xx response (ErrorBody)');
  }
  const wantsBody = (route.method === 'post' || route.method === 'put') && !BODYLESS.has(route.handler);
  if (BODYLESS.has(route.handler) && route.hasBody) {
    problems.push('to leave BODYLESS: it reads @Body()');
  }
  if (wantsBody && !described(operation.requestBody?.content)) {
    problems.push('a requestBody with a schema');
  }
  const parameters = operation.parameters ?? [];
  const inPath = parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const templated = [...route.path.matchAll(/{(\w+)}/g)].map((m) => m[1]);
  if (inPath.sort().join() !== templated.sort().join()) {
    problems.push(`path parameters ${templated.join(', ') || '(none)'} (it documents ${inPath.join(', ') || 'none'})`);
  }
  for (const name of route.query) {
    const parameter = parameters.find((p) => p.in === 'query' && p.name === name);
    if (!parameter) {
      problems.push(`query parameter ${name}`);
    } else if (!parameter.description || !parameter.schema) {
      problems.push(`a description and a schema for query parameter ${name}`);
    }
  }
  for (const parameter of parameters.filter((p) => p.in === 'query')) {
    if (!route.query.includes(parameter.name)) {
      problems.push(`no query parameter ${parameter.name} (the handler does not read it)`);
    }
  }
  return problems;
}

describe('OpenAPI document', () => {
  let spine: Spine;
  let document: Document;

  beforeAll(async () => {
    spine = await startSpine();
    const response = await fetch(`${spine.url}/docs-json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as Document;
  });

  afterAll(async () => {
    await spine?.close();
  });

  it('describes every partner and admin endpoint whole', () => {
    const routes = routesOf().filter((route) => route.path.startsWith('/v1/'));
    expect(routes.length).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const route of routes) {
      const allowed = KNOWN_GAPS[route.handler] ?? [];
      const problems = lacks(document, route).filter((p) => !allowed.includes(p));
      missing.push(...problems.map((p) => `${route.method.toUpperCase()} ${route.path} (${route.handler}) lacks ${p}`));
    }
    expect(missing).toEqual([]);
  });

  it('lists no /v1/ operation that no controller serves', () => {
    const served = new Set(routesOf().map((route) => `${route.method} ${route.path}`));
    const documented = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`));
    expect(documented.filter((operation) => !served.has(operation))).toEqual([]);
  });

  it('declares the error shape once: statusCode, error, details', () => {
    expect(Object.keys(document.components.schemas.ErrorBody?.properties ?? {}).sort()).toEqual([
      'details',
      'error',
      'statusCode',
    ]);
  });

  it('describes the webhook headers: Standard Webhooks and the per-partner signature or key', () => {
    const headers = (document.paths['/v1/webhooks/{partner}']?.post.parameters ?? []).filter((p) => p.in === 'header');
    expect(headers.map((p) => p.name.toLowerCase())).toEqual(
      expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']),
    );
    // The hmac and api-key schemes read a header each partner names (settings.webhook): described by its setting.
    const descriptions = headers.map((p) => p.description ?? '').join('\n');
    expect(descriptions).toContain('signatureHeader');
    expect(descriptions).toContain('apiKeyHeader');
  });
});
