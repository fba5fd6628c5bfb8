import type { Spine } from './spine';

/** A bulk replay run as GET /v1/admin/replays/{runId} shows it. */
export interface RunView {
  runId: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  total: number | null;
  done: number;
  replayed: number;
  skipped: number;
  skips: { id: string; reason: string }[];
  limit: number;
  limitReached: boolean;
  error: string | null;
  [key: string]: unknown;
}

/** Starts a real bulk replay (dryRun false); expects the 202 with a run id and its Location. */
export async function startReplayRun(
  spine: Spine,
  body: Record<string, unknown>,
): Promise<{ runId: string; location: string; answer: Record<string, unknown> }> {
  const response = await spine.call('POST', '/v1/admin/messages/replay', {
    auth: 'admin',
    body: { ...body, dryRun: false },
  });
  const answer = await response.json();
  if (response.status !== 202) {
    throw new Error(`bulk replay answered ${response.status}: ${JSON.stringify(answer)}`);
  }
  return { runId: answer.runId, location: response.headers.get('location') ?? '', answer };
}

/** Reads the run until it is completed or failed. */
export async function waitForRun(spine: Spine, runId: string, timeoutMs = 30_000): Promise<RunView> {
  const deadline = Date.now() + timeoutMs;
  let run: RunView | undefined;
  while (Date.now() < deadline) {
    run = await (await spine.call('GET', `/v1/admin/replays/${runId}`, { auth: 'admin' })).json();
    if (run!.status === 'completed' || run!.status === 'failed') {
      return run!;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`replay run ${runId} is ${run?.status}, not over after ${timeoutMs} ms`);
}

/** The bulk replay run with its counts, for a test that only needs the result. */
export async function bulkReplay(spine: Spine, body: Record<string, unknown>): Promise<RunView> {
  const { runId } = await startReplayRun(spine, body);
  return waitForRun(spine, runId);
}
