import { CreatePartnerTables1767312000000 } from './1767312000000-create-partner-tables';

/** Every partner migration, oldest first; pass as `extraMigrations` to `auditDataSourceOptions`. Append; never edit one that has shipped. */
export const PARTNER_MIGRATIONS = [CreatePartnerTables1767312000000];
