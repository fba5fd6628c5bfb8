import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { BookingsModule } from './bookings/bookings.module';
import { ControlsModule } from './controls/controls.module';
import { DocumentsModule } from './documents/documents.module';
import { PlatformErrorFilter } from './http/platform-error.filter';
import { StateModule } from './state/state.module';
import { Seed } from './state/seed';

export interface SandboxOptions {
  seed: Seed;
  /** Mounts the unauthenticated `/__sandbox` controls. */
  controls: boolean;
}

@Module({})
export class SandboxModule {
  static forRoot(options: SandboxOptions): DynamicModule {
    return {
      module: SandboxModule,
      imports: [
        StateModule.forRoot(options.seed),
        DocumentsModule,
        BookingsModule,
        ...(options.controls ? [ControlsModule] : []),
      ],
      providers: [{ provide: APP_FILTER, useClass: PlatformErrorFilter }],
    };
  }
}
