import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { describeError } from './api/client';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): void;
}

/** Loads with `load` when `deps` change, and again every `pollMs` while the tab is visible (live lists). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let live = true;
    setLoading(true);
    loader.current().then(
      (value) => {
        if (live) {
          setData(value);
          setError(undefined);
          setLoading(false);
        }
      },
      (reason: unknown) => {
        if (live) {
          setError(describeError(reason));
          setLoading(false);
        }
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  useEffect(() => {
    if (!pollMs) {
      return;
    }
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') {
        setTick((n) => n + 1);
      }
    }, pollMs);
    return () => clearInterval(timer);
  }, [pollMs]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, loading, reload };
}

/** A form's action: `run(act)` marks it busy, clears the last error, and shows the gateway's refusal as the error. */
export function useAction(): {
  busy: boolean;
  error: string | undefined;
  run(act: () => Promise<void>): Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(async (act: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await act();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}

const STATUS_TONE: Record<string, string> = {
  delivered: 'good',
  success: 'good',
  received: 'info',
  translating: 'info',
  delivering: 'info',
  pending: 'info',
  retrying: 'warn',
  retryable: 'warn',
  partially_failed: 'warn',
  'in-flight': 'info',
  interrupted: 'warn',
  failed: 'bad',
  permanent: 'bad',
  auth: 'bad',
  rejected: 'bad',
  duplicate: 'muted',
  superseded: 'muted',
  skipped: 'muted',
  queued: 'info',
  running: 'info',
  completed: 'good',
  enabled: 'good',
  disabled: 'muted',
  revoked: 'muted',
};

export function Badge({ value }: { value: string | null | undefined }) {
  if (!value) {
    return null;
  }
  return <span className={`badge tone-${STATUS_TONE[value] ?? 'muted'}`}>{value.replace('_', ' ')}</span>;
}

export function ErrorNote({ error }: { error: string | undefined }) {
  return error ? (
    <p className="error" role="alert">
      {error}
    </p>
  ) : null;
}

const DATE = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});

export function ago(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  const future = seconds < 0;
  const s = Math.abs(seconds);
  const text =
    s < 60
      ? `${s} s`
      : s < 3600
        ? `${Math.floor(s / 60)} min`
        : s < 86400
          ? `${Math.floor(s / 3600)} h`
          : `${Math.floor(s / 86400)} d`;
  return future ? `in ${text}` : `${text} ago`;
}

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) {
    return <span className="muted">—</span>;
  }
  return (
    <time dateTime={at} title={DATE.format(new Date(at))}>
      {ago(at)}
    </time>
  );
}

export const fullTime = (at: string): string => DATE.format(new Date(at));

export function Panel({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const id = `panel-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section className="panel" aria-labelledby={id}>
      <header>
        <h2 id={id}>{title}</h2>
        {actions && <div className="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** A secret shown once (a key, a token, a password): copied by the reader, never shown again. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div className="shown-once" role="status">
      <p>
        <strong>{label}</strong> — shown this once; copy it now.
      </p>
      <code data-testid="secret">{value}</code>
    </div>
  );
}

export const bytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
