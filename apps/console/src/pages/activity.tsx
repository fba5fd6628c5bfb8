import { useState } from 'react';
import { api, ok } from '../api/client';
import { navigate } from '../router';
import { ErrorNote, fullTime, Panel, useLoad } from '../ui';

/** Who did what: every replay, partner, secret, key, user, token and mapping change, newest first. */
export function ActivityPage({ query }: { query: URLSearchParams }) {
  const target = query.get('target') ?? undefined;
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const [draft, setDraft] = useState(target ?? '');
  const page = useLoad(
    () => ok(api.GET('/v1/admin/activity', { params: { query: { limit: 50, cursor, target } } })),
    [target, cursor],
    cursor ? undefined : 10000,
  );
  return (
    <>
      <h1>Activity</h1>
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          setCursors([]);
          navigate('/activity', { target: draft || undefined });
        }}
      >
        <div className="field grow">
          <label htmlFor="activity-target">Target (partner:acme-wms, message:&lt;id&gt;, operator:&lt;id&gt;)</label>
          <input id="activity-target" value={draft} onChange={(event) => setDraft(event.target.value)} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <Panel title="Who did what">
        <ErrorNote error={page.error} />
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              <th scope="col">What</th>
            </tr>
          </thead>
          <tbody aria-busy={page.loading}>
            {page.data?.items.map((entry) => (
              <tr key={entry.id} data-testid="activity-row">
                <td>{fullTime(entry.at)}</td>
                <td>
                  {entry.actor} <span className="muted">({entry.role})</span>
                </td>
                <td className="mono">{entry.action}</td>
                <td className="mono">{entry.target}</td>
                <td>{entry.summary}</td>
              </tr>
            ))}
            {page.data?.items.length === 0 && (
              <tr>
                <td colSpan={5} className="muted">
                  Nothing recorded.
                </td>
              </tr>
            )}
          </tbody>
        </table>
        <div className="pager">
          <button
            type="button"
            className="secondary"
            disabled={!cursor}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            ← Newer
          </button>
          <button
            type="button"
            className="secondary"
            disabled={!page.data?.nextCursor}
            onClick={() => page.data?.nextCursor && setCursors([...cursors, page.data.nextCursor])}
          >
            Older →
          </button>
        </div>
      </Panel>
    </>
  );
}
