import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AuditModule } from '@dockbridge/audit';
import { AppConfig, ConfigModule, LoadConfigOptions } from '@dockbridge/config';
import { PARTNER_ENTITIES, PARTNER_MIGRATIONS, PartnersModule } from '@dockbridge/partners';
import { PipelineModule } from './pipeline.module';

/**
 * The request headers a request log line may show. An allowlist, not a redact list: partners name
 * their own signature and API-key headers, and none of those may reach a log.
 */
export const LOGGED_REQUEST_HEADERS = ['content-type', 'content-length', 'user-agent', 'x-request-id', 'webhook-id', 'webhook-timestamp'];

interface SerializedRequest {
  id?: unknown;
  method?: string;
  url?: string;
  remoteAddress?: string;
  headers?: Record<string, unknown>;
}

/** What a request log line says of the request: what was asked, by whom (address), never credentials. */
export function requestForLog(req: SerializedRequest): SerializedRequest {
  const headers = Object.fromEntries(LOGGED_REQUEST_HEADERS.filter((name) => req.headers?.[name] !== undefined).map((name) => [name, req.headers![name]]));
  return { id: req.id, method: req.method, url: req.url, remoteAddress: req.remoteAddress, headers };
}

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
              serializers: { req: requestForLog },
              // Health and metrics scrapes would drown the log.
              autoLogging: { ignore: (req) => /^\/(health|metrics)/.test(req.url ?? '') },
            },
            // nestjs-pino's default route pattern does not match under Nest 12's router: no request was logged.
            forRoutes: ['{*splat}'],
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
