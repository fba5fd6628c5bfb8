/** Text output of `dockbridge operators`, `whoami` and `activity`. Pure: API answers in, lines out. */
import type { Schemas } from '@dockbridge/api-client';

export type Operator = Schemas['OperatorTokenSchema'];
export type IssuedOperator = Schemas['IssuedOperatorTokenSchema'];
export type Activity = Schemas['ActivityPageSchema'];
export type Me = Schemas['OperatorMeSchema'];

const day = (iso: string | null) => (iso ? iso.slice(0, 16).replace('T', ' ') : '-');

const stateOf = (operator: Operator, now: number): string =>
  operator.revokedAt
    ? `revoked ${day(operator.revokedAt)}`
    : operator.expiresAt && Date.parse(operator.expiresAt) <= now
      ? `expired ${day(operator.expiresAt)}`
      : 'active';

export function formatMe(me: Me): string[] {
  return [`${me.name} (${me.role})`];
}

export function formatOperatorList(operators: Operator[], now = Date.now()): string[] {
  if (operators.length === 0) {
    return ['No operator tokens. Issue one: dockbridge operators create <name> --role viewer|operator|admin'];
  }
  const rows = operators.map((o) => [o.name, o.role, o.hint, stateOf(o, now), day(o.lastUsedAt), o.id]);
  const header = ['NAME', 'ROLE', 'TOKEN', 'STATE', 'LAST USED', 'ID'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
}

export function formatIssued(issued: IssuedOperator): string[] {
  return [
    `Issued a ${issued.role} token to ${issued.name}${issued.expiresAt ? ` (until ${day(issued.expiresAt)})` : ''}:`,
    '',
    `  ${issued.token}`,
    '',
    'It is shown this once: hand it over now. Revoke it with: dockbridge operators revoke ' + issued.id,
  ];
}

export function formatRevoked(operator: Operator): string[] {
  return [`Revoked ${operator.name}'s ${operator.role} token ${operator.hint} (${day(operator.revokedAt)})`];
}

export function formatActivity(page: Activity): string[] {
  if (page.items.length === 0) {
    return ['No activity recorded.'];
  }
  const lines = page.items.map((e) => `${day(e.at)}  ${e.actor} (${e.role})  ${e.action}  ${e.target}  ${e.summary}`);
  return page.nextCursor ? [...lines, `More: --cursor ${page.nextCursor}`] : lines;
}
