import jsonata from 'jsonata';

/**
 * Partner-written JSONata with guardrails (jsonata's own `timeout` and `stack` options): a loop or
 * runaway recursion ends with an error that says so (D1012, D1011) instead of holding a worker, or
 * the gateway's event loop, for as long as it runs. Normal mappings take milliseconds.
 */
export const JSONATA_STACK_LIMIT = 500;

export function boundedJsonata(expression: string, timeoutMs: number): jsonata.Expression {
  return jsonata(expression, { timeout: timeoutMs, stack: JSONATA_STACK_LIMIT });
}
