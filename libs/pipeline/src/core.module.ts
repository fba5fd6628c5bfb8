import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AuditModule } from '@dockbridge/audit';
import { AppConfig, ConfigModule, LoadConfigOptions } from '@dockbridge/config';
import { PARTNER_ENTITIES, PARTNER_MIGRATIONS, PartnersModule } from '@dockbridge/partners';
import { PipelineModule } from './pipeline.module';

/** Headers that carry secrets: pino writes `[Redacted]` in their place. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["webhook-signature"]',
  'req.headers["x-hub-signature-256"]',
];

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
            pinoHttp: {
              level: c.log.level,
              redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
              // Health and metrics scrapes would drown the log.
              autoLogging: { ignore: (req) => /^\/(health|metrics)/.test(req.url ?? '') },
            },
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
        PartnersModule.forRoot(),
        PipelineModule,
      ],
      exports: [configModule, PartnersModule],
    };
  }
}
