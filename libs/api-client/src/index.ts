/**
 * The gateway's HTTP API as its OpenAPI document describes it: the types generated from the document
 * (schema.d.ts, `npm run console:api`) and an openapi-fetch client typed by them, shared by the console
 * and the CLI. Browser-safe (a dependency rule): no Node I/O, nothing of the other libs.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';
export type Schemas = components['schemas'];
export type ApiClient = Client<paths>;
export type { ClientOptions };

/** A client of the gateway's API: paths, parameters, bodies and answers typed by the document. */
export function createApiClient(options: ClientOptions = {}): ApiClient {
  return createClient<paths>(options);
}
