import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { AppConfig } from '@dockbridge/config';
import { MessageQueues } from '@dockbridge/pipeline';

/** Liveness of what dockbridge needs: Postgres, the queues in Redis, and whether the platform answers at all. */
@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly queues: MessageQueues,
    private readonly config: AppConfig,
  ) {}

  private running: Promise<HealthCheckResult> | null = null;

  /**
   * Probes that arrive while a check runs share it: /health is open, and each check pings
   * Postgres, reads Redis and calls the platform, so a flood of probes costs one check at a time.
   */
  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    this.running ??= this.health
      .check([() => this.database.pingCheck('postgres', { timeout: 2000 }), () => this.redis(), () => this.platform()])
      .finally(() => (this.running = null));
    return this.running;
  }

  /** Redis answering is not enough: the queues must work (a cluster node without their slot answers PING and refuses them). */
  private async redis() {
    const session = this.indicators.check('redis');
    try {
      await Promise.race([
        this.queues.depths(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 2000 ms')), 2000).unref()),
      ]);
      return session.up();
    } catch (error) {
      return session.down({ message: (error as Error).message });
    }
  }

  /** Any HTTP answer means reachable; auth is checked per call, not here (no token is sent). */
  private async platform() {
    const session = this.indicators.check('platform');
    try {
      const response = await fetch(this.config.platform.baseUrl, { method: 'HEAD', signal: AbortSignal.timeout(2000) });
      return session.up({ httpStatus: response.status });
    } catch (error) {
      return session.down({ message: (error as Error).message });
    }
  }
}
