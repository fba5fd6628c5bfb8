import { DynamicModule, Global, Module } from '@nestjs/common';
import { FaultInjector } from '../controls/faults';
import { RequestStats } from '../controls/request-stats';
import { TokenGuard } from '../http/caller';
import { SandboxState } from './sandbox-state';
import { Seed } from './seed';

/** The sandbox's shared state: its data, the injected faults and the request counts. */
@Global()
@Module({})
export class StateModule {
  static forRoot(seed: Seed): DynamicModule {
    const providers = [
      { provide: SandboxState, useValue: new SandboxState(seed) },
      { provide: FaultInjector, useValue: new FaultInjector() },
      { provide: RequestStats, useValue: new RequestStats() },
      TokenGuard,
    ];
    return { module: StateModule, providers, exports: providers };
  }
}
