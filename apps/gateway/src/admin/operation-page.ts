import { DETAIL_OPERATIONS_DEFAULT, DETAIL_OPERATIONS_MAX, type OperationPage } from '@dockbridge/audit';
import { BadInput } from '../http-error.filter';

/** A page of a message's operations from query parameters (`<prefix>After`, `<prefix>Limit`, or `after`, `limit`). */
export function operationPage(after: string | undefined, limit: string | undefined, prefix?: string): OperationPage {
  const name = (field: string) => (prefix ? `${prefix}${field[0].toUpperCase()}${field.slice(1)}` : field);
  const problems: string[] = [];
  const afterSeq = after === undefined ? undefined : Number(after);
  if (afterSeq !== undefined && !(Number.isInteger(afterSeq) && afterSeq >= 0)) {
    problems.push(`${name('after')} must be an operation's seq (a whole number from 0)`);
  }
  const size = limit === undefined ? DETAIL_OPERATIONS_DEFAULT : Number(limit);
  if (!(Number.isInteger(size) && size >= 1 && size <= DETAIL_OPERATIONS_MAX)) {
    problems.push(`${name('limit')} must be a whole number from 1 to ${DETAIL_OPERATIONS_MAX}`);
  }
  if (problems.length) {
    throw new BadInput('Invalid page of operations', problems);
  }
  return { limit: size, after: afterSeq };
}
