import type { components } from './schema';

/*
 * Endpoints of issue 16 that the console uses before they are in the OpenAPI document, typed from
 * their agreed contracts. `ApiPaths` (client.ts) takes the generated type of a path once it exists,
 * so each entry here can go when `npm run console:api` brings it.
 */

export type Role = 'viewer' | 'operator' | 'admin';

export interface Me {
  name: string;
  role: Role;
}

export interface OperatorToken {
  id: string;
  name: string;
  role: Role;
  createdAt: string;
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface ActivityEntry {
  id: string;
  at: string;
  actor: string;
  role: Role | string;
  action: string;
  target: string;
  summary: string;
}

export interface MappingTestResult {
  operations?: unknown[];
  error?: { message: string; position?: number };
}

export interface Stats {
  from: string;
  to: string;
  bucketSeconds: number;
  series: { at: string; received: number; delivered: number; failed: number }[];
  latencyMs: { p50: number | null; p90: number | null; p99: number | null };
  failuresByClass: { retryable: number; permanent: number; auth: number };
  queues: {
    name: string;
    waiting: number;
    active: number;
    delayed: number;
    failed: number;
    oldestWaitingSeconds: number | null;
  }[];
  partners: { partner: string; received: number; delivered: number; failed: number; lastReceivedAt: string | null }[];
}

type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
type Errors = { [S in 400 | 401 | 403 | 404]: Json<components['schemas']['ErrorBody']> };
type Params<Q = never, P = never> = { query?: Q; header?: never; cookie?: never } & ([P] extends [never]
  ? { path?: never }
  : { path: P });
interface Op<Res, Q = never, P = never> {
  parameters: Params<Q, P>;
  requestBody?: never;
  responses: { 200: Json<Res> } & Errors;
}
interface BodyOp<Res, Body, Q = never, P = never, S extends number = 200> {
  parameters: Params<Q, P>;
  requestBody: { content: { [type: string]: Body } };
  responses: { [K in S]: Json<Res> } & Errors;
}
interface Path<Get = never, Post = never, Delete = never> {
  parameters: Params;
  get: Get;
  put?: never;
  post: Post;
  delete: Delete;
  options?: never;
  head?: never;
  patch?: never;
  trace?: never;
}

export interface PendingPaths {
  '/v1/admin/me': Path<Op<Me>>;
  '/v1/admin/operators': Path<
    Op<OperatorToken[]>,
    BodyOp<OperatorToken & { token: string }, { name: string; role: Role; expiresAt?: string }, never, never, 201>
  >;
  '/v1/admin/operators/{id}': Path<never, never, Op<OperatorToken, never, { id: string }>>;
  '/v1/admin/activity': Path<
    Op<{ items: ActivityEntry[]; nextCursor: string | null }, { limit?: number; cursor?: string; target?: string }>
  >;
  '/v1/admin/edi/preview': Path<
    never,
    BodyOp<components['schemas']['EdiPreviewSchema'], string, { partner: string; setsLimit?: number }>
  >;
  '/v1/admin/partners/{id}/mapping/test': Path<
    never,
    BodyOp<MappingTestResult, { sample: unknown; expression?: string }, never, { id: string }>
  >;
  '/v1/admin/stats': Path<Op<Stats, { hours?: number }>>;
}
