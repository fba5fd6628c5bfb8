import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

/** How often the gateway collects V8's young generation (`--expose-gc`; without it, never). */
export const YOUNG_COLLECTION_MS = 100;

type Collect = () => void;

/**
 * Collects V8's young generation every YOUNG_COLLECTION_MS, for two things V8 does not do alone
 * here: it resizes the young generation only at a collection, so an idle gateway keeps what it grew
 * at start-up; and it frees the Buffers every received upload byte leaves behind (socket reads, SSH
 * packets) only when it collects them, for memory outside its heap every ~64 MiB. Each collection of
 * a young generation of mostly dead objects is short (figures: bench/README.md).
 */
@Injectable()
export class YoungGenerationCollector implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly collect: Collect | null = exposedYoungCollection()) {}

  onApplicationBootstrap(): void {
    if (this.collect && !this.timer) {
      this.timer = setInterval(this.collect, YOUNG_COLLECTION_MS).unref();
    }
  }

  onApplicationShutdown(): void {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

function exposedYoungCollection(): Collect | null {
  const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
  return gc ? () => gc({ type: 'minor' }) : null;
}
