import { CreatePartnerTables1767312000000 } from './1767312000000-create-partner-tables';
import { CreatePartnerFileAndSftpTables1767398400000 } from './1767398400000-create-partner-file-and-sftp-tables';
import { CreateWebhookTables1767571200000 } from './1767571200000-create-webhook-tables';
import { IndexPartnerFilePartnerId1768176000001 } from './1768176000001-index-partner-file-partner-id';
import { PartnerOwnership1768486400000 } from './1768486400000-partner-ownership';
import { PartnerFileChunks1768700000000 } from './1768700000000-partner-file-chunks';
import { PartnerFileFetched1768700000001 } from './1768700000001-partner-file-fetched';

/** Every partner migration, oldest first; pass as `extraMigrations` to `auditDataSourceOptions`. Append; never edit one that has shipped. */
export const PARTNER_MIGRATIONS = [
  CreatePartnerTables1767312000000,
  CreatePartnerFileAndSftpTables1767398400000,
  CreateWebhookTables1767571200000,
  IndexPartnerFilePartnerId1768176000001,
  PartnerOwnership1768486400000,
  PartnerFileChunks1768700000000,
  PartnerFileFetched1768700000001,
];
