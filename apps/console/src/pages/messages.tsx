import { useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { FilterForm } from '../components/filter-form';
import { apiFilter, filterOf, queryOf, STATUSES, type MessageFilter } from '../filters';
import { href, navigate } from '../router';
import { Badge, ErrorNote, Panel, Time, useLoad } from '../ui';

const PAGE = 50;
const POLL_MS = 5000;

type Summary = Schemas['MessageSummarySchema'];

/** What a support engineer reads first in a row: the file, the interchanges, the replay it is. */
function facts(message: Summary): string {
  const meta = message.metadata as {
    fileName?: string;
    interchanges?: { control: string }[];
    interchangeCount?: number;
    operations?: number;
    replay?: { mode: string };
  };
  return [
    meta.fileName,
    meta.interchangeCount
      ? `${meta.interchangeCount} interchanges (ISA13 ${meta.interchanges![0].control}, …)`
      : meta.interchanges?.length
        ? `ISA13 ${meta.interchanges.map((i) => i.control).join(', ')}`
        : undefined,
    meta.operations ? `${meta.operations} operations` : undefined,
    meta.replay ? `replay (${meta.replay.mode})` : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
}

export function MessagesPage({ query }: { query: URLSearchParams }) {
  const filter = filterOf(query);
  const key = query.toString();
  const [cursors, setCursors] = useState<string[]>([]);
  const [pageKey, setPageKey] = useState(key);
  if (pageKey !== key) {
    setPageKey(key);
    setCursors([]);
  }
  const cursor = cursors[cursors.length - 1];
  // The first page follows new arrivals; an older page stays still while it is read.
  const page = useLoad(
    () => ok(api.GET('/v1/admin/messages', { params: { query: { ...apiFilter(filter), limit: PAGE, cursor } } })),
    [key, cursor],
    cursor ? undefined : POLL_MS,
  );
  // One query for every status: the filter without its status, counted by status.
  const counts = useLoad(
    () => ok(api.GET('/v1/admin/messages/counts', { params: { query: { ...apiFilter(filter), status: undefined } } })),
    [key],
    POLL_MS * 3,
  );
  const apply = (next: MessageFilter) => navigate('/messages', queryOf(next));
  return (
    <>
      <h1>Messages</h1>
      <FilterForm key={key} initial={filter} onApply={apply} />
      <div className="counts" aria-label="Messages by status" role="group">
        {STATUSES.map((status) => {
          const found = counts.data?.byStatus[status];
          return (
            <a
              key={status}
              className="count"
              href={href('/messages', queryOf({ ...filter, status: [status] }))}
              data-testid={`count-${status}`}
            >
              <Badge value={status} />
              <strong>{found ?? '…'}</strong>
            </a>
          );
        })}
      </div>
      <Panel
        title={cursor ? 'Older messages' : 'Newest first (live)'}
        actions={
          <a className="button secondary" href={href('/replays', queryOf(filter))}>
            Bulk replay this filter…
          </a>
        }
      >
        <ErrorNote error={page.error} />
        <table className="messages">
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Partner</th>
              <th scope="col">Channel</th>
              <th scope="col">Status</th>
              <th scope="col">What</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody aria-busy={page.loading}>
            {page.data?.items.map((message) => (
              <tr key={message.id} data-testid="message-row">
                <td>
                  <Time at={message.receivedAt} />
                </td>
                <td>{message.partnerId}</td>
                <td>{message.channel}</td>
                <td>
                  <Badge value={message.status} />
                  {message.statusReason && <div className="reason">{message.statusReason}</div>}
                </td>
                <td className="facts">{facts(message)}</td>
                <td>
                  <a href={href(`/messages/${message.id}`)} className="mono">
                    {message.id.slice(0, 8)}…
                  </a>
                </td>
              </tr>
            ))}
            {page.data?.items.length === 0 && (
              <tr>
                <td colSpan={6} className="muted">
                  No message matches.
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
