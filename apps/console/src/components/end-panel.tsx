import { useState, type FormEvent } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { ErrorNote, useAction } from '../ui';

/**
 * Give up on a delivery that keeps failing: the message's pending and retrying operations end
 * failed with the reason, and the newer writes they hold back go. Refused by the gateway while the
 * platform holds any of them (its reason is shown).
 */
export function EndPanel({ messageId, onEnded }: { messageId: string; onEnded: () => void }) {
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<Schemas['EndedMessageSchema']>();
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    return run(async () => {
      setDone(
        await ok(api.POST('/v1/admin/messages/{id}/end', { params: { path: { id: messageId } }, body: { reason } })),
      );
      onEnded();
    });
  };
  return (
    <form onSubmit={(event) => void submit(event)} aria-label="End delivery">
      <p className="muted">
        Its pending and retrying operations end failed with this reason; newer writes to the same documents then go. It
        can be replayed later.
      </p>
      <div className="field">
        <label htmlFor="end-reason">Why end it (recorded)</label>
        <input id="end-reason" value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
      </div>
      <div className="buttons">
        <button type="submit" className="danger" disabled={busy || !!done || !reason.trim()}>
          End delivery
        </button>
      </div>
      <ErrorNote error={error} />
      {done && (
        <p className="ok" role="status">
          Ended {done.ended} operation(s): the message is {done.status}.
        </p>
      )}
    </form>
  );
}
