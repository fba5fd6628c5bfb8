import type { ReactNode } from 'react';
import { href, useRoute } from './router';
import { SessionGate, useSession } from './session';
import { SignIn } from './pages/sign-in';
import { MessagesPage } from './pages/messages';
import { MessagePage } from './pages/message';
import { ReplaysPage } from './pages/replays';
import { PartnersPage } from './pages/partners';
import { PartnerPage } from './pages/partner';
import { EdiPreviewPage } from './pages/edi-preview';
import { DashboardPage } from './pages/dashboard';
import { ActivityPage } from './pages/activity';
import { OperatorsPage } from './pages/operators';
import type { Role } from './api/client';

interface NavItem {
  path: string;
  label: string;
  role: Role;
}

const NAV: NavItem[] = [
  { path: '/dashboard', label: 'Dashboard', role: 'viewer' },
  { path: '/messages', label: 'Messages', role: 'viewer' },
  { path: '/replays', label: 'Bulk replay', role: 'viewer' },
  { path: '/partners', label: 'Partners', role: 'viewer' },
  { path: '/edi', label: 'EDI preview', role: 'operator' },
  { path: '/activity', label: 'Activity', role: 'viewer' },
  { path: '/operators', label: 'Operators', role: 'admin' },
];

export function App() {
  return (
    <SessionGate signIn={(done, reason) => <SignIn onSignedIn={done} reason={reason} />}>
      <Shell />
    </SessionGate>
  );
}

function Shell() {
  const { me, can, signOut } = useSession();
  const route = useRoute();
  const [section = 'messages', id] = route.parts;
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Console">
        <p className="brand">dockbridge</p>
        <ul>
          {NAV.filter((item) => can(item.role)).map((item) => (
            <li key={item.path}>
              <a href={href(item.path)} aria-current={`/${section}` === item.path ? 'page' : undefined}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
        <div className="who">
          <p>
            <span data-testid="me-name">{me.name}</span>
            <br />
            <span className="muted" data-testid="me-role">
              {me.role}
            </span>
          </p>
          <button type="button" className="link" onClick={signOut}>
            Sign out
          </button>
        </div>
      </nav>
      <main id="main" tabIndex={-1}>
        {page(section, id, route.query)}
      </main>
    </div>
  );
}

function page(section: string, id: string | undefined, query: URLSearchParams): ReactNode {
  switch (section) {
    case 'dashboard':
      return <DashboardPage />;
    case 'messages':
      return id ? <MessagePage key={id} id={id} /> : <MessagesPage query={query} />;
    case 'replays':
      return <ReplaysPage query={query} />;
    case 'partners':
      return id ? <PartnerPage key={id} id={id} /> : <PartnersPage />;
    case 'edi':
      return <EdiPreviewPage />;
    case 'activity':
      return <ActivityPage query={query} />;
    case 'operators':
      return <OperatorsPage />;
    default:
      return <p>No such page.</p>;
  }
}
