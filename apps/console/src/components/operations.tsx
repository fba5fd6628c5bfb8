import { useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { Badge, ErrorNote, fullTime, Time, useLoad } from '../ui';

const PAGE = 100;

type Operation = Schemas['OperationSchema'];

/**
 * A message's operations a page at a time (30,000 are read 100 by 100), each with every attempt as a
 * timeline; the page is read again when the counts change (the message is still being delivered).
 */
export function Operations({ messageId, counts }: { messageId: string; counts: Schemas['OperationCountsSchema'] }) {
  const [afters, setAfters] = useState<number[]>([]);
  const after = afters[afters.length - 1];
  const page = useLoad(
    () =>
      ok(
        api.GET('/v1/admin/messages/{id}', {
          params: { path: { id: messageId }, query: { operationsAfter: after, operationsLimit: PAGE } },
        }),
      ),
    [messageId, after, JSON.stringify(counts)],
  );
  const first = after === undefined ? 0 : after + 1;
  return (
    <div className="operations">
      <p className="summary">
        {counts.total.toLocaleString('en')} operations, {counts.attempts.toLocaleString('en')} attempts:{' '}
        {Object.entries(counts.byStatus).map(([status, n]) => (
          <span key={status} className="count-inline">
            <Badge value={status} /> {n.toLocaleString('en')}
          </span>
        ))}
      </p>
      <ErrorNote error={page.error} />
      <ol className="operation-list" start={first + 1} aria-busy={page.loading}>
        {page.data?.operations.map((operation) => (
          <OperationItem key={operation.id} operation={operation} />
        ))}
      </ol>
      {counts.total > PAGE && (
        <div className="pager">
          <button
            type="button"
            className="secondary"
            disabled={!afters.length}
            onClick={() => setAfters(afters.slice(0, -1))}
          >
            ← Previous {PAGE}
          </button>
          <span className="muted">
            {page.data?.operations.length
              ? `${(page.data.operations[0].seq + 1).toLocaleString('en')}–${(page.data.operations[page.data.operations.length - 1].seq + 1).toLocaleString('en')} of ${counts.total.toLocaleString('en')}`
              : ''}
          </span>
          <button
            type="button"
            className="secondary"
            disabled={page.data?.nextOperationsAfter == null}
            onClick={() =>
              page.data?.nextOperationsAfter != null && setAfters([...afters, page.data.nextOperationsAfter])
            }
          >
            Next {PAGE} →
          </button>
        </div>
      )}
    </div>
  );
}

function OperationItem({ operation }: { operation: Operation }) {
  return (
    <li className="operation" data-testid="operation">
      <details open={operation.status === 'failed'}>
        <summary>
          <span className="mono">#{operation.seq}</span> {operation.kind}{' '}
          <span className="mono">{operation.targetId}</span> <Badge value={operation.status} />{' '}
          {operation.errorClass && <Badge value={operation.errorClass} />}{' '}
          <span className="muted">
            {operation.attemptCount} attempt{operation.attemptCount === 1 ? '' : 's'}
          </span>
          {operation.nextAttemptAt && (
            <span className="muted">
              {' '}
              · next try <Time at={operation.nextAttemptAt} />
            </span>
          )}
        </summary>
        {operation.lastError && <p className="reason">{operation.lastError}</p>}
        {operation.supersededBy && <p className="muted">Superseded by a newer write ({operation.supersededBy}).</p>}
        <ol className="timeline" aria-label={`Attempts of operation ${operation.seq}`}>
          {operation.attempts.map((attempt, i) => (
            <li key={attempt.id} className={`attempt tone-${attempt.outcome}`} data-testid="attempt">
              <span className="dot" aria-hidden="true" />
              <div>
                <strong>Attempt {i + 1}</strong> <Badge value={attempt.outcome} />{' '}
                <span className="muted">
                  {fullTime(attempt.startedAt)} · {attempt.durationMs} ms
                  {attempt.httpStatus !== null ? ` · HTTP ${attempt.httpStatus}` : ' · no answer'}
                </span>
                {attempt.requestSummary && <div className="mono small">{attempt.requestSummary}</div>}
                {attempt.errorExcerpt && <pre className="excerpt">{attempt.errorExcerpt}</pre>}
              </div>
            </li>
          ))}
          {operation.attempts.length === 0 && <li className="muted">No attempt yet.</li>}
        </ol>
        <details className="payload">
          <summary>Operation payload</summary>
          <pre>{JSON.stringify(operation.payload, null, 2)}</pre>
        </details>
      </details>
    </li>
  );
}
