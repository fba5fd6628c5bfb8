import { DynamicModule, InjectionToken, Module, ModuleMetadata } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditDatabaseOptions, auditDataSourceOptions, openAuditDataSource } from './audit-data-source';
import { InterchangeRepository } from './interchange.repository';
import { MessageRepository } from './message.repository';
import { OperationRepository } from './operation.repository';
import { ReplayRunRepository } from './replay-run.repository';
import { MessageStatsRepository } from './message-stats.repository';
import { OperatorActivityRepository } from './operators/operator-activity.repository';
import { OperatorTokenRepository } from './operators/operator-token.repository';

export interface AuditModuleAsyncOptions {
  imports?: ModuleMetadata['imports'];
  inject?: InjectionToken[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Nest's own factory signature
  useFactory: (...args: any[]) => AuditDatabaseOptions | Promise<AuditDatabaseOptions>;
}

/**
 * The audit store for Nest applications: opens the data source (migrating when
 * `migrationsRun`), closes it on shutdown, and provides MessageRepository and
 * OperationRepository. The TypeORM `DataSource` is injectable too.
 */
@Module({})
export class AuditModule {
  static forRoot(options: AuditDatabaseOptions): DynamicModule {
    return AuditModule.forRootAsync({ useFactory: () => options });
  }

  /** For options that come from an injected provider, e.g. `{ inject: [AppConfig], useFactory: (c) => ... }`. */
  static forRootAsync(options: AuditModuleAsyncOptions): DynamicModule {
    return {
      module: AuditModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          imports: options.imports,
          inject: options.inject,
          useFactory: async (...args: unknown[]) => ({
            ...auditDataSourceOptions(await options.useFactory(...args)),
            retryAttempts: 3,
          }),
          dataSourceFactory: async (dataSourceOptions) =>
            openAuditDataSource(dataSourceOptions as ReturnType<typeof auditDataSourceOptions>),
        }),
      ],
      providers: [
        { provide: MessageRepository, inject: [DataSource], useFactory: (ds: DataSource) => new MessageRepository(ds) },
        {
          provide: OperationRepository,
          inject: [DataSource],
          useFactory: (ds: DataSource) => new OperationRepository(ds),
        },
        {
          provide: InterchangeRepository,
          inject: [DataSource],
          useFactory: (ds: DataSource) => new InterchangeRepository(ds),
        },
        {
          provide: ReplayRunRepository,
          inject: [DataSource],
          useFactory: (ds: DataSource) => new ReplayRunRepository(ds),
        },
        {
          provide: MessageStatsRepository,
          inject: [DataSource],
          useFactory: (ds: DataSource) => new MessageStatsRepository(ds),
        },
        {
          provide: OperatorTokenRepository,
          inject: [DataSource],
          useFactory: (ds: DataSource) => new OperatorTokenRepository(ds),
        },
        {
          provide: OperatorActivityRepository,
          inject: [DataSource],
          useFactory: (ds: DataSource) => new OperatorActivityRepository(ds),
        },
      ],
      exports: [
        MessageRepository,
        OperationRepository,
        InterchangeRepository,
        ReplayRunRepository,
        OperatorTokenRepository,
        OperatorActivityRepository,
        MessageStatsRepository,
      ],
    };
  }
}
