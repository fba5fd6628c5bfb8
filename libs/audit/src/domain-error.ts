/** How a domain refusal reads to a caller; the gateway maps each kind to one HTTP status (http-error.filter.ts). */
export type DomainErrorKind =
  'not-found' | 'invalid' | 'unauthenticated' | 'conflict' | 'too-large' | 'unprocessable' | 'unavailable';

/**
 * The base of every refusal the libs raise on purpose (an unknown partner, a refused key, a replay
 * that cannot be made): one place maps them to HTTP, so controllers need no try/catch of their own.
 * It lives in the lowest lib (audit), which every other domain lib builds on.
 */
export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  /** The error body's summary; the kind's own by default. */
  summary?: string;
  /** One reason per problem, each naming its field; the message when empty. */
  details: string[] = [];
  /** More fields of the error body (e.g. the file that owns a partner). */
  extra?: Record<string, unknown>;
}
