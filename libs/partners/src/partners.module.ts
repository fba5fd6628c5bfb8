import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PartnerRepository, PartnerRepositoryOptions } from './partner.repository';

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
      ],
      exports: [PartnerRepository],
    };
  }
}
