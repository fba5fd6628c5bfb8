/** What the benches that run dockbridge as child processes share: ports, readiness and memory. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoopWindow } from './loop-holding';

/** A TCP port free on 127.0.0.1 right now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Polls `check` every 100 ms until it holds; a check that throws counts as not yet. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) {
      return;
    }
    await sleep(100);
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms`);
}

/**
 * The largest event-loop delay a dockbridge process saw since its last scrape (its /metrics:
 * prom-client's monitorEventLoopDelay, reset by each scrape).
 */
export async function loopLagMaxMs(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^dockbridge_nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? NaN) * 1000;
}

/** Peak resident memory of process `pid` since its last resetPeak, MiB (VmHWM). */
export function peakRssMib(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Starts a new peak (Linux: writing 5 to clear_refs resets VmHWM to the current RSS). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** Node flags and environment that load bench/loop-holding.ts into a child, writing to `file`. */
export function loopHoldingFor(file: string): { nodeArgs: string[]; env: Record<string, string> } {
  return { nodeArgs: ['--require', join(__dirname, 'loop-holding.js')], env: { LOOP_HOLDING_FILE: file } };
}

/**
 * From a child's loop-holding file, the gaps that ended in [from, to): the most its thread ran
 * between two loop ticks (its own holding of the loop), and its longest loop delay with how much of
 * it the thread ran and how much it waited for a core. By each gap's own time: the process's
 * start-up (~600 ms of a worker's, which its preload sees) is not a run's.
 */
export function loopHolding(file: string, from: number, to: number): { ranMs: number; delay: string } {
  const seconds = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LoopWindow)
    : [];
  const within = (at: number) => at >= from && at < to;
  const worst = seconds
    .filter((s) => within(s.delayAt))
    .reduce((a, b) => (b.delayMs > a.delayMs ? b : a), { delayMs: 0, delayRanMs: 0, delayWaitedMs: 0 });
  return {
    ranMs: Math.round(Math.max(0, ...seconds.filter((s) => within(s.ranAt)).map((s) => s.ranMs))),
    delay: `${Math.round(worst.delayMs)} (${Math.round(worst.delayRanMs)} ran, ${Math.round(worst.delayWaitedMs)} waited)`,
  };
}
