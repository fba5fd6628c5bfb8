import { PartnerFileEntity } from '../files/partner-file.entity';
import { PartnerSftpCredentialEntity } from '../sftp/sftp-credential.entity';
import { PartnerApiKeyEntity } from './partner-api-key.entity';
import { PartnerEntity } from './partner.entity';

export * from './partner.entity';
export * from './partner-api-key.entity';
export * from '../files/partner-file.entity';
export * from '../sftp/sftp-credential.entity';

/** Pass as `extraEntities` to `auditDataSourceOptions` (the partner tables share the audit database). */
export const PARTNER_ENTITIES = [PartnerEntity, PartnerApiKeyEntity, PartnerFileEntity, PartnerSftpCredentialEntity];
