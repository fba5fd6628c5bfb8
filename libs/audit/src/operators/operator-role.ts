/** What an operator may do: each role can do everything the roles before it can. */
export const OPERATOR_ROLES = ['viewer', 'operator', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** viewer: read; operator: also replay, preview and test mappings; admin: also partners, secrets and tokens. */
export const roleAllows = (held: OperatorRole, needed: OperatorRole): boolean =>
  OPERATOR_ROLES.indexOf(held) >= OPERATOR_ROLES.indexOf(needed);

export const isOperatorRole = (value: unknown): value is OperatorRole =>
  typeof value === 'string' && (OPERATOR_ROLES as readonly string[]).includes(value);

/** Who is calling the admin API: a named token's holder, or the bootstrap ADMIN_TOKEN (`admin`, no token id). */
export interface OperatorIdentity {
  name: string;
  role: OperatorRole;
  tokenId: string | null;
}
