import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@dockbridge/config';
import { MessageQueues } from './message-queues';

/** How long a probe may take before the queues count as unreachable. */
const PROBE_TIMEOUT_MS = 2_000;
/** While the queues stay unreachable, the warning is repeated this often (not once per probe). */
const REPEAT_WARNING_MS = 60_000;

export interface QueueHealthState {
  up: boolean;
  /** When the last probe ended (ISO 8601). */
  checkedAt: string | null;
  /** Since when the queues have been unreachable (ISO 8601), while they are. */
  downSince?: string;
  error?: string;
}

/**
 * A worker proves, every `worker.queueProbeEveryMs`, that it can use its queues (a read of every
 * queue's counts: a socket that answers PING is not enough — a cluster node that lost the slot
 * answers it and refuses the queues). It logs when they become unreachable and when they are back,
 * and its /health reports the state, so a worker that cannot work is seen and restarted instead of
 * idling silently.
 */
@Injectable()
export class QueueHealth implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('QueueHealth');
  private timer?: NodeJS.Timeout;
  private lastWarning = 0;
  private current: QueueHealthState = { up: false, checkedAt: null, error: 'not probed yet' };

  constructor(
    private readonly queues: MessageQueues,
    private readonly config: AppConfig,
  ) {}

  get state(): QueueHealthState {
    return this.current;
  }

  onApplicationBootstrap(): void {
    const every = this.config.worker.queueProbeEveryMs;
    const loop = () => void this.probe().finally(() => (this.timer = setTimeout(loop, every).unref()));
    loop();
  }

  onApplicationShutdown(): void {
    clearTimeout(this.timer);
  }

  async probe(): Promise<QueueHealthState> {
    let timeout: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queues.depths(),
        new Promise(
          (_, reject) =>
            (timeout = setTimeout(
              () => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)),
              PROBE_TIMEOUT_MS,
            )),
        ),
      ]);
      if (this.lastWarning > 0) {
        this.logger.log({ msg: 'queues reachable again', downSince: this.current.downSince });
      }
      this.lastWarning = 0;
      this.current = { up: true, checkedAt: new Date().toISOString() };
    } catch (error) {
      const now = new Date();
      const downSince = this.current.downSince ?? now.toISOString();
      const message = (error as Error).message;
      // Said once the outage outlasts a probe period (not for a connection still opening at start), then every minute.
      const lasted = now.getTime() - Date.parse(downSince) >= this.config.worker.queueProbeEveryMs;
      if (lasted && now.getTime() - this.lastWarning >= REPEAT_WARNING_MS) {
        this.lastWarning = now.getTime();
        this.logger.error({
          msg: 'queues unreachable: this worker cannot take or finish jobs',
          downSince,
          error: message,
        });
      }
      this.current = { up: false, checkedAt: now.toISOString(), downSince, error: message };
    } finally {
      clearTimeout(timeout);
    }
    return this.current;
  }
}
