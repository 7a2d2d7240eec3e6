/** Routes (contract §11): the signed-in screens inside the shell, sign-in and docs outside auth. */
import { lazy, Suspense } from 'react';
import { Navigate, NavLink, Outlet, Route, Routes, useLocation } from 'react-router';
import { useSession } from './auth/session.js';
import { ActionsScreen } from './screens/actions.js';
import { AppScreen, AppsScreen } from './screens/apps.js';
import { RegistryItemScreen, RegistryScreen } from './screens/registry.js';
import { SettingsScreen } from './screens/settings.js';
import { SignInScreen } from './screens/sign-in.js';
import { SourceScreen } from './screens/source.js';
import { NewSourceScreen } from './screens/new-source.js';
import { SourcesScreen } from './screens/sources.js';
import { Loading } from './components/states.js';
import { WorkflowsScreen } from './screens/workflows.js';
import { NewWorkflowScreen, WorkflowScreen } from './screens/workflow.js';

// The docs carry every page's Markdown: loaded only when a docs page is opened.
const DocsScreen = lazy(() => import('./screens/docs.js').then((module) => ({ default: module.DocsScreen })));

export function App() {
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route path="/sign-in" element={<SignInScreen />} />
        <Route path="/docs" element={<DocsScreen />} />
        <Route path="/docs/:slug" element={<DocsScreen />} />
        <Route element={<RequireSession />}>
          <Route path="/" element={<Navigate to="/sources" replace />} />
          <Route path="/sources" element={<SourcesScreen />} />
          <Route path="/sources/new" element={<NewSourceScreen />} />
          <Route path="/sources/:id" element={<SourceScreen />} />
          <Route path="/sources/:id/:tab" element={<SourceScreen />} />
          <Route path="/workflows" element={<WorkflowsScreen />} />
          <Route path="/workflows/new" element={<NewWorkflowScreen />} />
          <Route path="/workflows/:id" element={<WorkflowScreen />} />
          <Route path="/workflows/:id/runs/:runId" element={<WorkflowScreen />} />
          <Route path="/workflows/:id/:tab" element={<WorkflowScreen />} />
          <Route path="/actions" element={<ActionsScreen />} />
          <Route path="/registry" element={<RegistryScreen />} />
          <Route path="/apps" element={<AppsScreen />} />
          <Route path="/apps/:slug" element={<AppScreen />} />
          <Route path="/registry/:key" element={<RegistryItemScreen />} />
          <Route path="/settings" element={<SettingsScreen />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Route>
    </Routes>
  );
}

function RequireSession() {
  const { state } = useSession();
  const location = useLocation();
  if (state === 'checking') return <Loading />;
  if (state === 'signed-out')
    return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return <Outlet />;
}

const NAV = [
  ['/sources', 'Sources'],
  ['/workflows', 'Workflows'],
  ['/actions', 'Actions'],
  ['/registry', 'Registry'],
  ['/apps', 'Apps'],
  ['/settings', 'Settings'],
  ['/docs', 'Docs'],
] as const;

function Shell() {
  const { signedIn, signOut } = useSession();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to={signedIn ? '/sources' : '/docs'} className="brand">
          Tributary
        </NavLink>
        <nav aria-label="Main">
          <ul>
            {NAV.filter(([path]) => signedIn || path === '/docs').map(([path, label]) => (
              <li key={path}>
                <NavLink to={path}>{label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="topbar-end">
          {signedIn ? (
            <button type="button" className="button button-small" onClick={() => void signOut()}>
              Sign out
            </button>
          ) : (
            <NavLink to="/sign-in" className="button button-small">
              Sign in
            </NavLink>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <section className="page">
      <h1>Not found</h1>
      <p>
        There is no page here. Go to <NavLink to="/sources">Sources</NavLink>.
      </p>
    </section>
  );
}
