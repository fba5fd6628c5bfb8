import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PartnerFileRepository } from './files/partner-file.repository';
import { PartnerRepository, PartnerRepositoryOptions } from './partner.repository';
import { SftpCredentialRepository } from './sftp/sftp-credential.repository';
import { PartnerMappingRepository } from './webhooks/mapping.repository';
import { WebhookSecretRepository } from './webhooks/webhook-secret.repository';

/**
 * Provides PartnerRepository over the app's TypeORM `DataSource` (opened by AuditModule with
 * `extraEntities: PARTNER_ENTITIES, extraMigrations: PARTNER_MIGRATIONS`).
 */
@Module({})
export class PartnersModule {
  static forRoot(options: PartnerRepositoryOptions = {}): DynamicModule {
    return {
      module: PartnersModule,
      global: true,
      providers: [
        { provide: PartnerRepository, inject: [DataSource], useFactory: (ds: DataSource) => new PartnerRepository(ds, options) },
        { provide: PartnerFileRepository, inject: [DataSource], useFactory: (ds: DataSource) => new PartnerFileRepository(ds, options) },
        { provide: SftpCredentialRepository, inject: [DataSource, PartnerRepository], useFactory: (ds: DataSource, p: PartnerRepository) => new SftpCredentialRepository(ds, p, options) },
        { provide: WebhookSecretRepository, inject: [DataSource], useFactory: (ds: DataSource) => new WebhookSecretRepository(ds) },
        { provide: PartnerMappingRepository, inject: [DataSource], useFactory: (ds: DataSource) => new PartnerMappingRepository(ds) },
      ],
      exports: [PartnerRepository, PartnerFileRepository, SftpCredentialRepository, WebhookSecretRepository, PartnerMappingRepository],
    };
  }
}
