import { CreateAuditTables1767225600000 } from './1767225600000-create-audit-tables';

/** Every audit migration, oldest first. Append; never edit one that has shipped. */
export const AUDIT_MIGRATIONS = [CreateAuditTables1767225600000];
