import jsonata from 'jsonata';
import { LinearRegExp } from './linear-regexp';

/**
 * Partner-written JSONata with guardrails (jsonata's own `timeout` and `stack` options): a loop or
 * runaway recursion ends with an error that says so (D1012, D1011) instead of holding a worker, or
 * the gateway's event loop, for as long as it runs. Normal mappings take milliseconds. The timeout
 * is checked between evaluation steps, never inside a builtin: regular expressions, the one
 * builtin a partner can make run for ever, go to a linear-time engine (LinearRegExp).
 */
export const JSONATA_STACK_LIMIT = 500;

export function boundedJsonata(expression: string, timeoutMs: number): jsonata.Expression {
  return jsonata(expression, {
    timeout: timeoutMs,
    stack: JSONATA_STACK_LIMIT,
    RegexEngine: LinearRegExp as unknown as RegExpConstructor,
  });
}
