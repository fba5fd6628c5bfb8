import { BadInput } from './http-error.filter';

/** How one endpoint names and bounds its page: `<afterName>` (a position), `<limitName>` (a count). */
export interface PageRule {
  /** What is paged, for the error's summary: `operations`, `transaction sets`. */
  what: string;
  afterName: string;
  /** What a valid `after` is, for the error: `an operation's seq (a whole number from 0)`. */
  afterIs: string;
  limitName: string;
  defaultLimit: number;
  maxLimit: number;
}

/** A page from its query parameters, or 400 naming each bad one. */
export function pageQuery(
  after: string | undefined,
  limit: string | undefined,
  rule: PageRule,
): { after: number | undefined; limit: number } {
  const problems: string[] = [];
  const from = after === undefined ? undefined : Number(after);
  if (from !== undefined && !(Number.isInteger(from) && from >= 0)) {
    problems.push(`${rule.afterName} must be ${rule.afterIs}`);
  }
  const size = limit === undefined ? rule.defaultLimit : Number(limit);
  if (!(Number.isInteger(size) && size >= 1 && size <= rule.maxLimit)) {
    problems.push(`${rule.limitName} must be a whole number from 1 to ${rule.maxLimit}`);
  }
  if (problems.length) {
    throw new BadInput(`Invalid page of ${rule.what}`, problems);
  }
  return { after: from, limit: size };
}
