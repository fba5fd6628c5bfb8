import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AuditModule } from '@dockbridge/audit';
import { AppConfig, ConfigModule, LoadConfigOptions } from '@dockbridge/config';
import { PARTNER_ENTITIES, PARTNER_MIGRATIONS, PartnersModule, SecretBox } from '@dockbridge/partners';
import { PipelineModule } from './pipeline.module';

/**
 * What every dockbridge process shares: the validated configuration, structured logs, the database
 * (audit + partners, one data source), and the pipeline. Apps add their controllers or workers.
 */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig | LoadConfigOptions = {}): DynamicModule {
    const configModule = ConfigModule.forRoot(config);
    return {
      module: CoreModule,
      imports: [
        configModule,
        LoggerModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (c: AppConfig) => ({
            pinoHttp: { level: c.log.level },
            // No pino-http middleware (it cost ~120 µs of CPU per request): the gateway writes its
            // request lines from a Fastify onResponse hook (apps/gateway/src/request-log.ts).
            forRoutes: [],
          }),
        }),
        AuditModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (c: AppConfig) => ({
            url: c.database.url,
            dataDir: c.database.dataDir,
            migrationsRun: c.database.migrateOnStart,
            poolSize: c.database.poolSize,
            extraEntities: PARTNER_ENTITIES,
            extraMigrations: PARTNER_MIGRATIONS,
          }),
        }),
        PartnersModule.forRoot({
          provide: SecretBox,
          inject: [AppConfig],
          useFactory: (c: AppConfig) => SecretBox.load(c.secrets),
        }),
        PipelineModule,
      ],
      exports: [configModule, PartnersModule],
    };
  }
}
