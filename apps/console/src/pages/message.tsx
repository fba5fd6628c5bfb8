import { useMemo, useState } from 'react';
import { api, describeError, ok, tokenStore, type Schemas } from '../api/client';
import { EndPanel } from '../components/end-panel';
import { Operations } from '../components/operations';
import { ReplayPanel } from '../components/replay-panel';
import { X12View } from '../components/x12-view';
import { href } from '../router';
import { useSession } from '../session';
import { Badge, bytes, ErrorNote, fullTime, Panel, Time, useLoad } from '../ui';
import { locateBySet, locateByText, splitX12, type Located } from '../x12';

const MOVING = new Set(['received', 'translating', 'delivering']);

type Detail = Schemas['MessageDetailSchema'];

export function MessagePage({ id }: { id: string }) {
  const { can } = useSession();
  const [polling, setPolling] = useState(true);
  // Ended from this page: the panel stays to show what was ended, though the message no longer moves.
  const [endedHere, setEndedHere] = useState(false);
  const detail = useLoad(
    () => ok(api.GET('/v1/admin/messages/{id}', { params: { path: { id }, query: { operationsLimit: 50 } } })),
    [id],
    polling ? 3000 : undefined,
  );
  const data = detail.data;
  const moving = !!data && (MOVING.has(data.message.status) || data.replays.some((r) => MOVING.has(r.status)));
  if (data && polling !== moving) {
    setPolling(moving);
  }
  if (!data) {
    return (
      <>
        <h1>Message</h1>
        <ErrorNote error={detail.error} />
        {!detail.error && <p aria-busy="true">Loading…</p>}
      </>
    );
  }
  const { message } = data;
  const meta = message.metadata as {
    fileName?: string;
    interchanges?: { control: string; sender: string }[];
    interchangeCount?: number;
  };
  return (
    <>
      <h1>
        Message <span className="mono">{message.id}</span>
      </h1>
      <ErrorNote error={detail.error} />
      <div className="columns">
        <Panel title="Summary">
          <dl className="facts-list">
            <dt>Status</dt>
            <dd>
              <Badge value={message.status} />{' '}
              {message.statusReason && <span className="reason">{message.statusReason}</span>}
            </dd>
            <dt>Partner</dt>
            <dd>
              <a href={href(`/partners/${message.partnerId}`)}>{message.partnerId}</a>
            </dd>
            <dt>Channel</dt>
            <dd>{message.channel}</dd>
            <dt>Received</dt>
            <dd>{fullTime(message.receivedAt)}</dd>
            {meta.fileName && (
              <>
                <dt>File</dt>
                <dd className="mono">{meta.fileName}</dd>
              </>
            )}
            {meta.interchanges && (
              <>
                <dt>Interchanges</dt>
                <dd className="mono">
                  {meta.interchanges.map((i) => `${i.sender} ${i.control}`).join(', ')}
                  {meta.interchangeCount && (
                    <span className="muted">
                      {' '}
                      (the first {meta.interchanges.length} of {meta.interchangeCount})
                    </span>
                  )}
                </dd>
              </>
            )}
            <dt>Payload</dt>
            <dd>
              {message.contentType}, {bytes(message.payloadBytes)}
            </dd>
            {message.replayOf && (
              <>
                <dt>Replay of</dt>
                <dd>
                  <a href={href(`/messages/${message.replayOf}`)} data-testid="original-link">
                    the original message
                  </a>
                </dd>
              </>
            )}
          </dl>
        </Panel>
        {can('operator') && (
          <Panel title="Replay">
            <ReplayPanel message={message} onReplayed={() => setPolling(true)} />
          </Panel>
        )}
        {can('operator') && (message.status === 'delivering' || endedHere) && (
          <Panel title="End delivery">
            <EndPanel
              messageId={message.id}
              onEnded={() => {
                setEndedHere(true);
                detail.reload();
              }}
            />
          </Panel>
        )}
      </div>
      <Replays replays={data.replays} />
      <Payload detail={data} canPreview={can('operator')} />
      <Panel title="Operations">
        <Operations messageId={message.id} counts={data.operationCounts} />
      </Panel>
      <div className="columns">
        <Panel title="Events">
          <ol className="timeline events">
            {data.events.map((event, i) => (
              <li key={i}>
                <span className="dot" aria-hidden="true" />
                <div>
                  <Time at={event.at} /> {event.fromStatus && <Badge value={event.fromStatus} />} →{' '}
                  <Badge value={event.toStatus} /> <span className="muted">by {event.actor}</span>
                  {event.reason && <div className="reason">{event.reason}</div>}
                </div>
              </li>
            ))}
          </ol>
        </Panel>
        <Panel title="Files">
          <Files files={data.files} count={data.fileCount} />
        </Panel>
      </div>
    </>
  );
}

function Replays({ replays }: { replays: Detail['replays'] }) {
  if (!replays.length) {
    return null;
  }
  return (
    <Panel title="Replays">
      <ul className="plain" data-testid="replays">
        {replays.map((replay) => (
          <li key={replay.id}>
            <a href={href(`/messages/${replay.id}`)} className="mono">
              {replay.id.slice(0, 8)}…
            </a>{' '}
            <Badge value={replay.status} /> <Time at={replay.receivedAt} />{' '}
            {replay.statusReason && <span className="reason">{replay.statusReason}</span>}
          </li>
        ))}
      </ul>
    </Panel>
  );
}

function Files({ files, count }: { files: Detail['files']; count: number }) {
  if (!files.length) {
    return <p className="muted">No file: it did not come as one, and none was written for it.</p>;
  }
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">File</th>
          <th scope="col">Kind</th>
          <th scope="col">Written</th>
          <th scope="col">Fetched</th>
          <th scope="col">Removed</th>
        </tr>
      </thead>
      <tbody>
        {files.map((file) => (
          <tr key={file.id}>
            <td className="mono">
              {file.folder}/{file.name} <span className="muted">({bytes(file.size)})</span>
            </td>
            <td>{file.kind ?? 'upload'}</td>
            <td>
              <Time at={file.createdAt} />
            </td>
            <td>{file.kind ? <Time at={file.fetchedAt} /> : '—'}</td>
            <td>
              <Time at={file.removedAt} />
            </td>
          </tr>
        ))}
      </tbody>
      {count > files.length && (
        <tfoot>
          <tr>
            <td colSpan={5} className="muted" data-testid="more-files">
              The first {files.length} of {count} files: the others are in the partner&apos;s folders.
            </td>
          </tr>
        </tfoot>
      )}
    </table>
  );
}

function Payload({ detail, canPreview }: { detail: Detail; canPreview: boolean }) {
  const { message } = detail;
  const x12 = useMemo(() => splitX12(message.rawPayload), [message.rawPayload]);
  // The gateway's problems located in the file: sets' diagnostics from a preview (operators), lines named in reasons.
  const preview = useLoad(async () => {
    if (!x12 || !canPreview || message.payloadTruncated) {
      return undefined;
    }
    try {
      return await ok(
        api.POST('/v1/admin/edi/preview', {
          params: { query: { partner: message.partnerId } },
          body: message.rawPayload,
          bodySerializer: (body: string) => body,
          headers: { 'content-type': 'application/edi-x12' },
        }),
      );
    } catch {
      return undefined; // a gateway without the admin preview: the reasons' locations remain
    }
  }, [message.id]);
  const problems = useMemo((): Located[] => {
    if (!x12) {
      return [];
    }
    const texts = [message.statusReason ?? '', ...detail.operations.map((op) => op.lastError ?? '')];
    const found = [
      ...locateBySet(x12, (preview.data?.transactionSets ?? []) as Parameters<typeof locateBySet>[1]),
      ...locateByText(x12, texts),
    ];
    return found.filter((p, i) => found.findIndex((q) => q.segment === p.segment && q.message === p.message) === i);
  }, [x12, preview.data, message.statusReason, detail.operations]);
  const [error, setError] = useState<string>();
  const download = async () => {
    try {
      const response = await fetch(`/v1/admin/messages/${message.id}/payload`, {
        headers: { authorization: `Bearer ${tokenStore.get() ?? ''}` },
      });
      if (!response.ok) {
        throw new Error(`HTTP ${response.status}`);
      }
      const url = URL.createObjectURL(await response.blob());
      const link = Object.assign(document.createElement('a'), { href: url, download: `${message.id}.payload` });
      link.click();
      URL.revokeObjectURL(url);
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const json = message.contentType.includes('json') ? tryPretty(message.rawPayload) : undefined;
  return (
    <Panel
      title="Payload"
      actions={
        <button type="button" className="secondary" onClick={() => void download()}>
          Download {message.payloadTruncated ? 'the whole payload' : 'payload'}
        </button>
      }
    >
      <ErrorNote error={error} />
      {message.payloadTruncated && (
        <p className="muted">Only the beginning of its {bytes(message.payloadBytes)} is shown.</p>
      )}
      {x12 ? (
        <X12View x12={x12} problems={problems} />
      ) : json !== undefined ? (
        <pre className="json" data-testid="json">
          {json}
        </pre>
      ) : (
        <pre className="text">{message.rawPayload || '(empty)'}</pre>
      )}
    </Panel>
  );
}

function tryPretty(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}
