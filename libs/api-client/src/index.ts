/**
 * The gateway's HTTP API as its OpenAPI document describes it: the types generated from the document
 * (schema.d.ts, `npm run console:api`) and an openapi-fetch client typed by them, shared by the console
 * and the CLI. Browser-safe (a dependency rule): no Node I/O, nothing of the other libs.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';
export type Schemas = components['schemas'];
/**
 * Answers are read as JSON, so typed by their JSON content; the other media an endpoint may answer
 * with (a payload's bytes, a preview's NDJSON lines) are asked for with `parseAs`.
 */
export type ApiClient = Client<paths, 'application/json'>;
export type { ClientOptions };

/** A client of the gateway's API: paths, parameters, bodies and answers typed by the document. */
export function createApiClient(options: ClientOptions = {}): ApiClient {
  return createClient<paths, 'application/json'>(options);
}
