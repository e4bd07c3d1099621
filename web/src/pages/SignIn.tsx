import { type FormEvent, useEffect, useRef, useState } from 'react';
import { post, setToken } from '../api';
import { Button, ErrorBox, inputClass } from '../components/ui';

/** Password sign-in with a finwatch account; the token is the API's own. */
export function SignIn() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    document.title = 'Sign in · finwatch';
    first.current?.focus();
  }, []);
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
        <Button kind="primary" type="submit" disabled={busy} className="w-full justify-center">
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
    </main>
  );
}
