import { PlatformError } from '../http/platform-error';

/** A fault rule of `POST /__sandbox/faults`: matches method + whole path (`*` = one segment). */
export interface FaultRule {
  method?: string;
  path: string;
  /** Status to answer with; default 502. 0 passes the request through after `latencyMs` (latency only). */
  status?: number;
  /** Probability that a matching request is hit; default 1. */
  rate?: number;
  /** How many requests the rule may still hit; unlimited when absent. */
  count?: number;
  latencyMs?: number;
  /** With status 0: the request is carried out, then its answer held this long (the work is done; the caller may time out first). */
  answerLatencyMs?: number;
  /** Only GraphQL requests whose operation (field) name is this one, e.g. `updateBookingStatus`. */
  graphqlOperation?: string;
}

interface ActiveRule extends FaultRule {
  pattern: RegExp;
  hits: number;
}

export interface FaultDecision {
  status: number;
  latencyMs: number;
  answerLatencyMs: number;
}

/** Holds the injected fault rules and decides, per request, whether one hits. */
export class FaultInjector {
  private rules: ActiveRule[] = [];

  set(rules: unknown): FaultRule[] {
    if (!Array.isArray(rules)) {
      throw PlatformError.badRequest('Invalid fault rules', ['rules must be an array']);
    }
    const problems: string[] = [];
    const parsed = rules.map((rule: FaultRule, i) => {
      if (typeof rule?.path !== 'string' || !rule.path.startsWith('/')) {
        problems.push(`rules[${i}].path must be a path starting with /`);
      }
      if (
        rule?.status !== undefined &&
        !(rule.status === 0 || (Number.isInteger(rule.status) && rule.status >= 100 && rule.status <= 599))
      ) {
        problems.push(`rules[${i}].status must be an HTTP status or 0`);
      }
      if (rule?.rate !== undefined && !(typeof rule.rate === 'number' && rule.rate >= 0 && rule.rate <= 1)) {
        problems.push(`rules[${i}].rate must be between 0 and 1`);
      }
      if (rule?.count !== undefined && !(Number.isInteger(rule.count) && rule.count >= 0)) {
        problems.push(`rules[${i}].count must be a non-negative integer`);
      }
      if (
        rule?.latencyMs !== undefined &&
        !(Number.isInteger(rule.latencyMs) && rule.latencyMs >= 0 && rule.latencyMs <= 120_000)
      ) {
        problems.push(`rules[${i}].latencyMs must be an integer from 0 to 120000`);
      }
      if (
        rule?.answerLatencyMs !== undefined &&
        !(Number.isInteger(rule.answerLatencyMs) && rule.answerLatencyMs >= 0 && rule.answerLatencyMs <= 120_000)
      ) {
        problems.push(`rules[${i}].answerLatencyMs must be an integer from 0 to 120000`);
      }
      return { ...rule, pattern: toPattern(String(rule?.path)), hits: 0 };
    });
    if (problems.length) {
      throw PlatformError.badRequest('Invalid fault rules', problems);
    }
    this.rules = parsed;
    return this.list();
  }

  clear(): void {
    this.rules = [];
  }

  list(): (FaultRule & { hits: number })[] {
    return this.rules.map(({ pattern: _pattern, ...rule }) => rule);
  }

  /** The fault for this request, if a rule hits it (a hit uses up one of the rule's count). */
  decide(method: string, path: string, graphqlOperation?: string): FaultDecision | undefined {
    for (const rule of this.rules) {
      if (rule.method && rule.method.toUpperCase() !== method.toUpperCase()) {
        continue;
      }
      if (!rule.pattern.test(path)) {
        continue;
      }
      if (rule.graphqlOperation && rule.graphqlOperation !== graphqlOperation) {
        continue;
      }
      if (rule.count !== undefined && rule.hits >= rule.count) {
        continue;
      }
      if (Math.random() >= (rule.rate ?? 1)) {
        continue;
      }
      rule.hits++;
      return { status: rule.status ?? 502, latencyMs: rule.latencyMs ?? 0, answerLatencyMs: rule.answerLatencyMs ?? 0 };
    }
    return undefined;
  }
}

function toPattern(path: string): RegExp {
  const escaped = path
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) => (segment === '*' ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}
