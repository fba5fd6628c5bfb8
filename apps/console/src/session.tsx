import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, ApiError, ok, tokenStore, type Me, type Role } from './api/client';

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export interface Session {
  me: Me;
  /** The role allows what `needed` allows (viewer: read; operator: replay, preview, mapping runs; admin: the rest). */
  can(needed: Role): boolean;
  signOut(): void;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) {
    throw new Error('useSession outside a signed-in page');
  }
  return session;
}

/** Who the token is: GET /v1/admin/me. */
export async function whoAmI(): Promise<Me> {
  try {
    return await ok(api.GET('/v1/admin/me'));
  } catch (error) {
    // A gateway without /me (before operator accounts) knows only its bootstrap admin token.
    if (error instanceof ApiError && error.status === 404) {
      return { name: 'admin token', role: 'admin' };
    }
    throw error;
  }
}

type State = { kind: 'checking' } | { kind: 'signed-out'; reason?: string } | { kind: 'signed-in'; me: Me };

export function SessionGate({
  signIn,
  children,
}: {
  signIn: (done: (me: Me) => void, reason?: string) => ReactNode;
  children: ReactNode;
}) {
  const [state, setState] = useState<State>(() => (tokenStore.get() ? { kind: 'checking' } : { kind: 'signed-out' }));
  useEffect(() => {
    if (state.kind !== 'checking') {
      return;
    }
    whoAmI().then(
      (me) => setState({ kind: 'signed-in', me }),
      (error: unknown) => {
        tokenStore.clear();
        setState({ kind: 'signed-out', reason: error instanceof ApiError ? error.message : String(error) });
      },
    );
  }, [state.kind]);
  const signOut = useCallback(() => {
    tokenStore.clear();
    setState({ kind: 'signed-out' });
  }, []);
  if (state.kind === 'checking') {
    return <div className="boot" aria-busy="true" />;
  }
  if (state.kind === 'signed-out') {
    return signIn((me) => setState({ kind: 'signed-in', me }), state.reason);
  }
  const { me } = state;
  const session: Session = { me, can: (needed) => RANK[me.role] >= RANK[needed], signOut };
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
