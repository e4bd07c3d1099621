import { type FormEvent, useEffect, useRef, useState } from 'react';
import { post, setToken } from '../api';
import { Button, ErrorBox, inputClass } from '../components/ui';
import {
  type DirectoryConfig,
  directoryConfig,
  finishDirectorySignIn,
  isDirectoryAnswer,
  startDirectorySignIn,
} from '../directory';
import { BASE, navigate } from '../router';

/**
 * Password sign-in with a finwatch account, and "Sign in with Microsoft" when the server has a
 * directory; either way the token kept is the API's own.
 */
export function SignIn() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [directory, setDirectory] = useState<DirectoryConfig | null>(null);
  // The directory sent the viewer back: its answer is being turned into a finwatch token.
  const [returning, setReturning] = useState(isDirectoryAnswer);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    document.title = 'Sign in · finwatch';
    first.current?.focus();
  }, []);
  useEffect(() => {
    let live = true;
    const answer = isDirectoryAnswer();
    directoryConfig().then(async (config) => {
      if (!live) return;
      setDirectory(config);
      if (!answer || !config) return setReturning(false);
      try {
        const to = await finishDirectorySignIn(config);
        if (to) navigate(to, true);
      } catch (err) {
        if (live) setError(err);
      } finally {
        if (live) setReturning(false);
      }
    });
    return () => {
      live = false;
    };
  }, []);
  async function withDirectory() {
    if (!directory) return;
    setBusy(true);
    setError(undefined);
    try {
      const here = window.location.pathname.slice(BASE.length) || '/';
      await startDirectorySignIn(directory, here + window.location.search);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await post<{ token: string }>('/auth/api/Auth/login', { username, password });
      setToken(answer.token);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <form
        onSubmit={submit}
        className="w-full max-w-sm space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow dark:border-slate-700 dark:bg-slate-900"
      >
        <h1 className="text-xl font-semibold">Sign in to finwatch</h1>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">Email or user name</span>
          <input
            ref={first}
            className={inputClass}
            name="username"
            autoComplete="username"
            required
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">Password</span>
          <input
            className={inputClass}
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {error ? <ErrorBox error={error} /> : null}
        <Button kind="primary" type="submit" disabled={busy || returning} className="w-full justify-center">
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
        {directory ? (
          <>
            <p className="text-center text-sm text-slate-600 dark:text-slate-300">or</p>
            <Button
              onClick={withDirectory}
              disabled={busy || returning}
              className="w-full justify-center"
              data-testid="directory-sign-in"
            >
              {returning ? 'Signing in with Microsoft…' : 'Sign in with Microsoft'}
            </Button>
          </>
        ) : null}
      </form>
    </main>
  );
}
