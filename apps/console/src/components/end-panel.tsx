import { useState, type FormEvent } from 'react';
import { api, describeError, ok, type Schemas } from '../api/client';

/**
 * Give up on a delivery that keeps failing: the message's pending and retrying operations end
 * failed with the reason, and the newer writes they hold back go. Refused by the gateway while the
 * platform holds any of them (its reason is shown).
 */
export function EndPanel({ messageId, onEnded }: { messageId: string; onEnded: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<Schemas['EndedMessageSchema']>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const result = await ok(
        api.POST('/v1/admin/messages/{id}/end', { params: { path: { id: messageId } }, body: { reason } }),
      );
      setDone(result);
      onEnded();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
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
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {done && (
        <p className="ok" role="status">
          Ended {done.ended} operation(s): the message is {done.status}.
        </p>
      )}
    </form>
  );
}
