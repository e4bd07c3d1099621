import { Component, lazy, type ReactNode, Suspense, useEffect, useRef, useState } from 'react';
import { setToken } from './api';
import { Button, ErrorBox, Loading } from './components/ui';
import { timeZone } from './format';
import Overview from './pages/Overview';
import { SignIn } from './pages/SignIn';
import { Link, useRoute } from './router';
import { useViewer, type Viewer } from './session';
import { setThemeChoice, type ThemeChoice, themeChoice } from './theme';

// Each page but the first is its own chunk: the Overview is in the entry, so a first visit asks for
// its data one round trip sooner (no chunk to fetch after the entry runs).
const Anomalies = lazy(() => import('./pages/Anomalies'));
const Forecast = lazy(() => import('./pages/Forecast'));
const Waste = lazy(() => import('./pages/Waste'));
const Kubernetes = lazy(() => import('./pages/Kubernetes'));
const Imports = lazy(() => import('./pages/Imports'));
const Admin = lazy(() => import('./pages/Admin'));

interface PageDef {
  path: string;
  label: string;
  admin?: boolean;
  render: () => ReactNode;
}

const PAGES: PageDef[] = [
  { path: '/', label: 'Overview', render: () => <Overview /> },
  { path: '/anomalies', label: 'Anomalies', render: () => <Anomalies /> },
  { path: '/forecast', label: 'Forecast', render: () => <Forecast /> },
  { path: '/waste', label: 'Waste', render: () => <Waste /> },
  { path: '/kubernetes', label: 'Kubernetes cost', render: () => <Kubernetes /> },
  { path: '/imports', label: 'Imports', render: () => <Imports /> },
  { path: '/admin', label: 'Admin', admin: true, render: () => <Admin /> },
];

/** A page that fails to render shows what went wrong, never a blank screen. */
class PageBoundary extends Component<{ children: ReactNode; path: string }, { error: unknown }> {
  override state = { error: undefined as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override componentDidUpdate(prev: { path: string }) {
    if (prev.path !== this.props.path && this.state.error) this.setState({ error: undefined });
  }
  override render() {
    if (this.state.error) return <ErrorBox error={this.state.error} onRetry={() => location.reload()} />;
    return this.props.children;
  }
}

function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice>(themeChoice());
  return (
    <label className="flex items-center gap-1 text-sm">
      <span>Theme</span>
      <select
        className="rounded border border-slate-400 bg-white px-1 py-0.5 text-slate-900 dark:border-slate-500 dark:bg-slate-800 dark:text-slate-100"
        value={choice}
        onChange={(e) => {
          const v = e.target.value as ThemeChoice;
          setChoice(v);
          setThemeChoice(v);
        }}
      >
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}

function Shell({ viewer }: { viewer: Viewer }) {
  const { path } = useRoute();
  const main = useRef<HTMLElement>(null);
  const visible = PAGES.filter((p) => !p.admin || viewer.isAdmin);
  const page = visible.find((p) => p.path === path);
  // The path shown last: focus moves only when it changes, so neither the first render nor an effect
  // run twice for the same path (React's StrictMode does that) takes focus from the skip link.
  const shown = useRef(path);
  useEffect(() => {
    // After a client-side navigation (to `path`), focus moves to the new page as a page load would.
    if (shown.current === path) return;
    shown.current = path;
    main.current?.focus();
  }, [path]);
  return (
    <div className="min-h-screen">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-10 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-slate-900"
      >
        Skip to content
      </a>
      <header className="border-b border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
          <span className="text-lg font-bold text-teal-800 dark:text-teal-300">finwatch</span>
          <nav aria-label="Pages">
            <ul className="flex flex-wrap gap-1">
              {visible.map((p) => (
                <li key={p.path}>
                  <Link
                    to={p.path}
                    aria-current={p.path === path ? 'page' : undefined}
                    className={`block rounded px-2 py-1 text-sm ${
                      p.path === path
                        ? 'bg-teal-700 text-white'
                        : 'text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800'
                    }`}
                  >
                    {p.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div className="ml-auto flex flex-wrap items-center gap-3 text-sm">
            <ThemeToggle />
            <span>
              {viewer.email}
              {viewer.isAdmin ? <span className="sr-only"> (administrator)</span> : null}
            </span>
            {viewer.isAdmin ? (
              <span
                aria-hidden="true"
                className="rounded bg-slate-200 px-1.5 py-0.5 text-xs dark:bg-slate-700"
              >
                admin
              </span>
            ) : null}
            <Button onClick={() => setToken(null)}>Sign out</Button>
          </div>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1} className="mx-auto max-w-7xl px-4 py-6 outline-none">
        <PageBoundary path={path}>
          <Suspense fallback={<Loading />}>
            {page ? (
              page.render()
            ) : (
              <div>
                <h1 className="mb-4 text-2xl font-semibold">Page not found</h1>
                <p>
                  There is no console page at this address. <Link to="/">Go to the overview</Link>.
                </p>
              </div>
            )}
          </Suspense>
        </PageBoundary>
      </main>
      <footer className="mx-auto max-w-7xl px-4 pb-6 text-xs text-slate-600 dark:text-slate-300">
        Times are shown in your time zone ({timeZone}); cost days are calendar days in UTC, as Azure bills
        them.
      </footer>
    </div>
  );
}

export function App() {
  const viewer = useViewer();
  return viewer ? <Shell viewer={viewer} /> : <SignIn />;
}
