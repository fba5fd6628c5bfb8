import { useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { FilterForm } from '../components/filter-form';
import { apiFilter, filterOf, queryOf, type MessageFilter } from '../filters';
import { navigate } from '../router';
import { useSession } from '../session';
import { Badge, ErrorNote, Panel, Time, useAction, useLoad } from '../ui';

type DryRun = Schemas['BulkReplayDryRunSchema'];
type Run = Schemas['ReplayRunSchema'];

/** Bulk replay by filter: the dry-run count first, then the run, followed to its end with a progress bar. */
export function ReplaysPage({ query }: { query: URLSearchParams }) {
  const { can } = useSession();
  const filter = filterOf(query);
  const key = query.toString();
  const [mode, setMode] = useState<'rerun' | 'failed-only'>('rerun');
  const [reason, setReason] = useState('');
  const [dryRun, setDryRun] = useState<DryRun & { key: string }>();
  const [runId, setRunId] = useState<string>();
  const { busy, error, run: act } = useAction();
  const runs = useLoad(() => ok(api.GET('/v1/admin/replays', { params: { query: { limit: 10 } } })), [runId], 5000);
  const run = useLoad(
    () =>
      runId ? ok(api.GET('/v1/admin/replays/{runId}', { params: { path: { runId } } })) : Promise.resolve(undefined),
    [runId],
    1000,
  );

  const body = () => ({ ...apiFilter(filter), mode, reason: reason || undefined });
  const count = () =>
    act(async () => {
      const result = await ok(api.POST('/v1/admin/messages/replay', { body: { ...body(), dryRun: true } as never }));
      if (result.dryRun) {
        setDryRun({ ...result, key: `${key}|${mode}` });
      }
    });
  const start = () =>
    act(async () => {
      const result = await ok(api.POST('/v1/admin/messages/replay', { body: { ...body(), dryRun: false } as never }));
      if (!result.dryRun) {
        setRunId(result.runId);
        setDryRun(undefined);
      }
    });
  const counted = dryRun && dryRun.key === `${key}|${mode}` ? dryRun : undefined;
  const empty = !Object.values(queryOf(filter)).some(Boolean);
  return (
    <>
      <h1>Bulk replay</h1>
      <FilterForm key={key} initial={filter} onApply={(next: MessageFilter) => navigate('/replays', queryOf(next))} />
      {can('operator') ? (
        <Panel title="Replay every message this filter finds">
          <div className="row">
            <fieldset>
              <legend>Mode</legend>
              <label className="check">
                <input type="radio" name="bulk-mode" checked={mode === 'rerun'} onChange={() => setMode('rerun')} />
                Rerun every operation
              </label>
              <label className="check">
                <input
                  type="radio"
                  name="bulk-mode"
                  checked={mode === 'failed-only'}
                  onChange={() => setMode('failed-only')}
                />
                Only the failed operations
              </label>
            </fieldset>
            <div className="field grow">
              <label htmlFor="bulk-reason">Reason (recorded on the run and each replay)</label>
              <input id="bulk-reason" value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
            </div>
          </div>
          {empty && <p className="warn">No filter: every message of the last ones received would match.</p>}
          <div className="buttons">
            <button type="button" onClick={() => void count()} disabled={busy}>
              Count (dry run)
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => void start()}
              disabled={busy || !counted || counted.matching === 0}
            >
              {counted ? `Replay ${counted.matching.toLocaleString('en')} messages` : 'Replay (count first)'}
            </button>
          </div>
          <ErrorNote error={error} />
          {counted && (
            <div role="status" className="dry-run" data-testid="dry-run">
              <p>
                <strong data-testid="dry-run-count">{counted.matching.toLocaleString('en')}</strong> would be replayed
                {counted.skipped.length > 0 && `, ${counted.skipped.length} skipped`}
                {counted.limitReached &&
                  ` (capped at ${counted.limitReached.toLocaleString('en')}: narrow the time range for the rest)`}
                .
              </p>
              {counted.skipped.length > 0 && (
                <details>
                  <summary>Skipped, and why</summary>
                  <ul className="plain">
                    {counted.skipped.slice(0, 50).map((s) => (
                      <li key={s.id}>
                        <span className="mono">{s.id.slice(0, 8)}…</span> {s.reason}
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </div>
          )}
          {run.data && <RunProgress run={run.data} />}
        </Panel>
      ) : (
        <p className="muted">Replays need the operator role.</p>
      )}
      <Panel title="Recent runs">
        <ErrorNote error={runs.error} />
        <table>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">By</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {runs.data?.items.map((item) => (
              <tr key={item.runId}>
                <td>
                  <Time at={item.createdAt} />
                </td>
                <td>{item.actor}</td>
                <td>
                  <Badge value={item.status} />
                </td>
                <td>
                  {item.done}/{item.total ?? '?'} ({item.replayed} replayed, {item.skipped} skipped)
                </td>
                <td>{item.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
    </>
  );
}

function RunProgress({ run }: { run: Run }) {
  const total = run.total ?? 0;
  return (
    <div className="run" data-testid="run">
      <label htmlFor="run-progress">
        Run <Badge value={run.status} /> {run.done.toLocaleString('en')} of{' '}
        {run.total === null ? '…' : total.toLocaleString('en')} ({run.replayed} replayed, {run.skipped} skipped)
      </label>
      <progress
        id="run-progress"
        max={Math.max(total, 1)}
        value={run.status === 'completed' ? Math.max(total, 1) : run.done}
      />
      {run.error && <p className="error">{run.error}</p>}
    </div>
  );
}
