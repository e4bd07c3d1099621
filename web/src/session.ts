import { useEffect, useSyncExternalStore } from 'react';
import { getToken, onTokenChange, setToken } from './api';

export interface Viewer {
  id: string;
  email: string;
  name: string;
  isAdmin: boolean;
  /** Seconds since the epoch. */
  expiresAt: number | undefined;
}

/** The claims of the finwatch token (read for display and navigation only; the API checks it). */
export function viewerOf(token: string | null): Viewer | null {
  if (!token) return null;
  try {
    const part = token.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const c = JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (ch) => ch.charCodeAt(0)))) as Record<
      string,
      unknown
    >;
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    const exp = typeof c.exp === 'number' ? c.exp : undefined;
    if (exp !== undefined && exp * 1000 <= Date.now()) return null;
    return {
      id: str(c.id) || str(c.sub),
      email: str(c.email) || str(c.emailaddress),
      name: str(c.givenname) || str(c.email),
      isAdmin: String(c.isAdmin).toLowerCase() === 'true',
      expiresAt: exp,
    };
  } catch {
    return null;
  }
}

/** The signed-in viewer; null shows the sign-in form in place of the page (the URL stays). */
export function useViewer(): Viewer | null {
  const token = useSyncExternalStore(onTokenChange, getToken);
  const viewer = viewerOf(token);
  useEffect(() => {
    if (token && !viewer) setToken(null);
    if (!viewer?.expiresAt) return;
    // When the token runs out the sign-in form comes back over the same page.
    const ms = viewer.expiresAt * 1000 - Date.now();
    const handle = setTimeout(() => setToken(null), Math.min(Math.max(ms, 0), 2_147_483_647));
    return () => clearTimeout(handle);
  }, [token, viewer]);
  return viewer;
}
