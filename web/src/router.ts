/** Client routing under /console: the server answers index.html for every path below it. */
import { createElement, type MouseEvent, type ReactNode, useSyncExternalStore } from 'react';

export const BASE = '/console';
const CHANGE = 'finwatch:navigate';

function subscribe(callback: () => void): () => void {
  window.addEventListener('popstate', callback);
  window.addEventListener(CHANGE, callback);
  return () => {
    window.removeEventListener('popstate', callback);
    window.removeEventListener(CHANGE, callback);
  };
}

function snapshot(): string {
  return window.location.pathname + window.location.search;
}

export interface Route {
  /** The path below /console, always starting with '/'. */
  path: string;
  query: URLSearchParams;
}

export function useRoute(): Route {
  const full = useSyncExternalStore(subscribe, snapshot);
  const [pathname, search = ''] = full.split('?', 2) as [string, string?];
  const below = pathname.slice(BASE.length).replace(/\/+$/, '');
  return { path: below || '/', query: new URLSearchParams(search) };
}

export function navigate(to: string, replace = false): void {
  const url = BASE + (to === '/' ? '/' : to);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event(CHANGE));
}

/** Replaces the query string of the current page (filters), keeping the path. */
export function setQuery(values: Record<string, string | undefined>): void {
  const params = new URLSearchParams(window.location.search);
  for (const [k, v] of Object.entries(values)) {
    if (v) params.set(k, v);
    else params.delete(k);
  }
  const q = params.toString();
  history.replaceState(null, '', window.location.pathname + (q ? `?${q}` : ''));
  window.dispatchEvent(new Event(CHANGE));
}

export function Link(props: {
  to: string;
  children: ReactNode;
  className?: string;
  'aria-current'?: 'page' | undefined;
}) {
  const { to, children, ...rest } = props;
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return createElement('a', { href: BASE + to, onClick, ...rest }, children);
}
