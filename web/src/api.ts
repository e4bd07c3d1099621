/** The API client: the same tokens as the API, problem+json errors turned into words. */

const TOKEN_KEY = 'finwatch.console.token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problem?: Record<string, unknown>,
  ) {
    super(message);
  }
}

let token: string | null = readStored();
const listeners = new Set<() => void>();

function readStored(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function getToken(): string | null {
  return token;
}

export function setToken(value: string | null): void {
  token = value;
  try {
    if (value) localStorage.setItem(TOKEN_KEY, value);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    // Private windows may refuse storage: the token then lives for this page only.
  }
  for (const l of listeners) l();
}

export function onTokenChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export interface RequestOptions {
  method?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ApiAnswer<T> {
  data: T;
  status: number;
  headers: Headers;
}

async function problemOf(res: Response): Promise<ApiError> {
  let problem: Record<string, unknown> | undefined;
  let text = '';
  try {
    text = await res.text();
    problem = JSON.parse(text) as Record<string, unknown>;
  } catch {
    problem = undefined;
  }
  const detail =
    (typeof problem?.detail === 'string' && problem.detail) ||
    (typeof problem?.title === 'string' && problem.title) ||
    (text && text.length < 300 ? text : '') ||
    `The server answered ${res.status} ${res.statusText}.`;
  return new ApiError(res.status, withLine(detail, problem?.line), problem);
}

/** A problem's detail with the line it names (imports say which line of a file is at fault). */
export function withLine(detail: string, line: unknown): string {
  return typeof line === 'number' ? `${detail.replace(/\.$/, '')} (line ${line}).` : detail;
}

/** A request to the app's own API; a 401 signs the viewer out, which brings back the sign-in form. */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  let body = options.body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  let res: Response;
  try {
    res = await fetch(path, { method: options.method ?? 'GET', headers, body, signal: options.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'The server cannot be reached. Check that finwatch is running, then try again.');
  }
  if (res.status === 401 && token) {
    const err = await problemOf(res);
    setToken(null);
    throw err;
  }
  if (!res.ok) throw await problemOf(res);
  const type = res.headers.get('content-type') ?? '';
  const data = (
    res.status === 204 ? undefined : type.includes('json') ? await res.json() : await res.text()
  ) as T;
  return { data, status: res.status, headers: res.headers };
}

export async function get<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await request<T>(path, { signal })).data;
}

export async function post<T>(path: string, json?: unknown): Promise<T> {
  return (await request<T>(path, { method: 'POST', json })).data;
}

export async function del<T>(path: string): Promise<T> {
  return (await request<T>(path, { method: 'DELETE' })).data;
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError || error instanceof Error) return error.message;
  return String(error);
}
