import { DETAIL_OPERATIONS_DEFAULT, DETAIL_OPERATIONS_MAX, type OperationPage } from '@dockbridge/audit';
import { pageQuery } from '../page-query';

/**
 * A page of a message's operations from query parameters (`<prefix>After`, `<prefix>Limit`, or
 * `after`, `limit`), of `defaultLimit` operations when no limit is given.
 */
export function operationPage(
  after: string | undefined,
  limit: string | undefined,
  prefix?: string,
  defaultLimit = DETAIL_OPERATIONS_DEFAULT,
): OperationPage {
  const name = (field: string) => (prefix ? `${prefix}${field[0].toUpperCase()}${field.slice(1)}` : field);
  return pageQuery(after, limit, {
    what: 'operations',
    afterName: name('after'),
    afterIs: "an operation's seq (a whole number from 0)",
    limitName: name('limit'),
    defaultLimit,
    maxLimit: DETAIL_OPERATIONS_MAX,
  });
}
