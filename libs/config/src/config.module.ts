import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './config.schema';
import { loadConfig, LoadConfigOptions } from './load-config';

/** Provides the one validated AppConfig object; inject `AppConfig` wherever configuration is needed. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig | LoadConfigOptions = {}): DynamicModule {
    const value = config instanceof AppConfig ? config : loadConfig(config);
    return { module: ConfigModule, providers: [{ provide: AppConfig, useValue: value }], exports: [AppConfig] };
  }
}
