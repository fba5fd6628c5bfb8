import { PartnerApiKeyEntity } from './partner-api-key.entity';
import { PartnerEntity } from './partner.entity';

export * from './partner.entity';
export * from './partner-api-key.entity';

/** Pass as `extraEntities` to `auditDataSourceOptions` (the partner tables share the audit database). */
export const PARTNER_ENTITIES = [PartnerEntity, PartnerApiKeyEntity];
