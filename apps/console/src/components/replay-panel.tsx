import { useState, type FormEvent } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { href } from '../router';
import { ErrorNote, useAction } from '../ui';

type Message = Schemas['MessageWithPayloadSchema'];

/** The JSON text, or where it stops being JSON (so nothing invalid is sent). */
export function checkJson(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    if (!at) {
      return { error: message };
    }
    const before = text.slice(0, Number(at[1])).split('\n');
    return { error: `${message} (line ${before.length}, column ${before[before.length - 1].length + 1})` };
  }
}

const isJson = (message: Message) => message.contentType.includes('json');

/** Replay one message (rerun or failed-only), or edit its payload and replay that (JSON checked before sending). */
export function ReplayPanel({ message, onReplayed }: { message: Message; onReplayed: () => void }) {
  const [mode, setMode] = useState<'rerun' | 'failed-only'>('rerun');
  const [reason, setReason] = useState('');
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<Schemas['ReplayResultSchema']>();
  const json = isJson(message);
  const check = editing && json ? checkJson(draft) : undefined;
  const invalid = check && 'error' in check ? check.error : undefined;

  const startEditing = () => {
    setEditing(true);
    const parsed = json ? checkJson(message.rawPayload) : undefined;
    setDraft(parsed && 'value' in parsed ? JSON.stringify(parsed.value, null, 2) : message.rawPayload);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (invalid) {
      return;
    }
    await run(async () => {
      const payload = editing
        ? check && 'value' in check
          ? (check.value as Record<string, unknown>)
          : draft
        : undefined;
      const result = await ok(
        api.POST('/v1/admin/messages/{id}/replay', {
          params: { path: { id: message.id } },
          body: { mode: editing ? 'rerun' : mode, reason: reason || undefined, payload } as Schemas['ReplayDto'],
        }),
      );
      setDone(result);
      setEditing(false);
      onReplayed();
    });
  };
  return (
    <form className="replay" onSubmit={(event) => void submit(event)} aria-label="Replay">
      {!editing && (
        <fieldset>
          <legend>Replay</legend>
          <label className="check">
            <input type="radio" name="mode" checked={mode === 'rerun'} onChange={() => setMode('rerun')} />
            Rerun every operation
          </label>
          <label className="check">
            <input type="radio" name="mode" checked={mode === 'failed-only'} onChange={() => setMode('failed-only')} />
            Only the failed operations
          </label>
        </fieldset>
      )}
      {editing && (
        <div className="field">
          <label htmlFor="replay-payload">{json ? 'Corrected payload (JSON)' : 'Corrected payload'}</label>
          <textarea
            id="replay-payload"
            className="editor"
            spellCheck={false}
            rows={16}
            value={draft}
            aria-invalid={!!invalid}
            aria-describedby="replay-payload-check"
            onChange={(event) => setDraft(event.target.value)}
          />
          <p id="replay-payload-check" className={invalid ? 'error' : 'muted'} role={invalid ? 'alert' : undefined}>
            {invalid ?? (json ? 'Valid JSON.' : 'Sent as text.')}
          </p>
        </div>
      )}
      <div className="field">
        <label htmlFor="replay-reason">Reason (recorded)</label>
        <input id="replay-reason" value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
      </div>
      <div className="buttons">
        <button type="submit" disabled={busy || !!invalid}>
          {editing ? 'Replay the edited payload' : 'Replay'}
        </button>
        {editing ? (
          <button type="button" className="secondary" onClick={() => setEditing(false)}>
            Cancel edit
          </button>
        ) : (
          <button type="button" className="secondary" onClick={startEditing} disabled={message.payloadTruncated}>
            Edit and replay…
          </button>
        )}
      </div>
      <ErrorNote error={error} />
      {done && (
        <p className="ok" role="status">
          Replayed as <a href={href(`/messages/${done.messageId}`)}>{done.messageId.slice(0, 8)}…</a> ({done.status})
        </p>
      )}
    </form>
  );
}
