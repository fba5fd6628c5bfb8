/**
 * Preloaded into a dockbridge process by the benches (`node --require dist/bench/loop-holding.js`,
 * `LOOP_HOLDING_FILE=<path>`): tells how long the process itself held its event loop from how long
 * the loop was late. A timer ticks every 10 ms; between two ticks the main thread's scheduler
 * statistics (`/proc/thread-self/schedstat`: nanoseconds on a core, nanoseconds waiting for one)
 * split the gap into time it ran (its own work: JavaScript, GC, a request) and time it waited for a
 * core other processes held. monitorEventLoopDelay sees only the gap; on a machine whose cores are
 * all busy a loop that runs 5 ms can be 100 ms late. Every WINDOW_MS one JSON line is appended: the
 * longest gap's delay and its split, and the most time the thread ran between two ticks.
 */
import { appendFileSync, openSync, readSync } from 'node:fs';

const TICK_MS = 10;
/** A line per quarter second: a process's start-up stays in its own window, apart from a run's gaps. */
const WINDOW_MS = 250;
const file = process.env.LOOP_HOLDING_FILE;

/** One line of the file: the worst of one window. */
export interface LoopWindow {
  at: number;
  /** The tick gap beyond TICK_MS that was longest in this window, how it splits, and when it ended. */
  delayMs: number;
  delayRanMs: number;
  delayWaitedMs: number;
  delayAt: number;
  /** The most the thread ran between two ticks (one loop iteration's own work at most), and when. */
  ranMs: number;
  ranAt: number;
}

if (file) {
  const fd = openSync('/proc/thread-self/schedstat', 'r');
  const buffer = Buffer.alloc(128);
  const stat = (): [number, number] => {
    const text = buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0));
    const [ran, waited] = text.split(' ');
    return [Number(ran) / 1e6, Number(waited) / 1e6];
  };
  let [ran, waited] = stat();
  let last = performance.now();
  const fresh = (): LoopWindow => ({
    at: Date.now(),
    delayMs: 0,
    delayRanMs: 0,
    delayWaitedMs: 0,
    delayAt: 0,
    ranMs: 0,
    ranAt: 0,
  });
  let second = fresh();
  setInterval(() => {
    const now = performance.now();
    const [ranNow, waitedNow] = stat();
    const delay = now - last - TICK_MS;
    const ranGap = ranNow - ran;
    if (delay > second.delayMs) {
      second = {
        ...second,
        delayMs: delay,
        delayRanMs: ranGap,
        delayWaitedMs: waitedNow - waited,
        delayAt: Date.now(),
      };
    }
    if (ranGap > second.ranMs) {
      second = { ...second, ranMs: ranGap, ranAt: Date.now() };
    }
    [ran, waited, last] = [ranNow, waitedNow, now];
    if (Date.now() - second.at >= WINDOW_MS) {
      appendFileSync(file, `${JSON.stringify(second)}\n`);
      second = fresh();
    }
  }, TICK_MS).unref();
}
