import { useState, type FormEvent } from 'react';
import { describeError, tokenStore, type Me } from '../api/client';
import { whoAmI } from '../session';

/** A pasted operator token (or the bootstrap admin token), kept in session storage only. */
export function SignIn({ onSignedIn, reason }: { onSignedIn: (me: Me) => void; reason?: string }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState(reason);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    tokenStore.set(token.trim());
    try {
      onSignedIn(await whoAmI());
    } catch (failure) {
      tokenStore.clear();
      setError(describeError(failure));
      setBusy(false);
    }
  };
  return (
    <main className="sign-in">
      <form onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">dockbridge console</h1>
        <p className="muted">Sign in with your operator token. It stays in this tab only and is never put in a URL.</p>
        <label htmlFor="token">Operator token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          value={token}
          onChange={(event) => setToken(event.target.value)}
        />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || !token.trim()}>
          Sign in
        </button>
      </form>
    </main>
  );
}
