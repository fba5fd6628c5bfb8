import { DynamicModule, Module, Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PartnerFileRepository } from './files/partner-file.repository';
import { PartnerRepository, PartnerRepositoryOptions } from './partner.repository';
import { SftpCredentialRepository } from './sftp/sftp-credential.repository';
import { PartnerMappingRepository } from './webhooks/mapping.repository';
import { SecretBox } from './webhooks/secret-box';
import { WebhookSecretRepository } from './webhooks/webhook-secret.repository';

/**
 * Provides PartnerRepository over the app's TypeORM `DataSource` (opened by AuditModule with
 * `extraEntities: PARTNER_ENTITIES, extraMigrations: PARTNER_MIGRATIONS`). `secretBox` provides the
 * SecretBox that encrypts webhook secrets at rest (the app builds it from its configuration).
 */
@Module({})
export class PartnersModule {
  static forRoot(secretBox: Provider<SecretBox>, options: PartnerRepositoryOptions = {}): DynamicModule {
    return {
      module: PartnersModule,
      global: true,
      providers: [
        secretBox,
        {
          provide: PartnerRepository,
          inject: [DataSource],
          useFactory: (ds: DataSource) => new PartnerRepository(ds, options),
        },
        {
          provide: PartnerFileRepository,
          inject: [DataSource],
          useFactory: (ds: DataSource) => new PartnerFileRepository(ds, options),
        },
        {
          provide: SftpCredentialRepository,
          inject: [DataSource, PartnerRepository],
          useFactory: (ds: DataSource, p: PartnerRepository) => new SftpCredentialRepository(ds, p, options),
        },
        {
          provide: WebhookSecretRepository,
          inject: [DataSource, SecretBox],
          useFactory: (ds: DataSource, box: SecretBox) => new WebhookSecretRepository(ds, box),
        },
        {
          provide: PartnerMappingRepository,
          inject: [DataSource],
          useFactory: (ds: DataSource) => new PartnerMappingRepository(ds),
        },
      ],
      exports: [
        SecretBox,
        PartnerRepository,
        PartnerFileRepository,
        SftpCredentialRepository,
        WebhookSecretRepository,
        PartnerMappingRepository,
      ],
    };
  }
}
