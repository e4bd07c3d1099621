import { Agent, fetch as undiciFetch } from 'undici';

/** A small client for tests: every call returns status, headers and the parsed body. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  /** A value to send as JSON, or a raw string body. */
  json?: unknown;
  raw?: string;
}

export interface ClientOptions {
  /**
   * A loopback address (127.0.0.2, 127.0.0.3...) to connect from: the local host appends the
   * connection's address to X-Forwarded-For as Azure's front end does, so the app sees a different
   * client address, as it would for another machine.
   */
  from?: string;
}

export function apiClient(baseUrl: string, clientOptions: ClientOptions = {}) {
  const dispatcher = clientOptions.from ? new Agent({ localAddress: clientOptions.from }) : undefined;
  async function call<T = any>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    } else if (options.raw !== undefined) {
      body = options.raw;
      headers['content-type'] ??= 'application/json';
    }
    const res = dispatcher
      ? ((await undiciFetch(`${baseUrl}${path}`, {
          method,
          headers,
          body,
          dispatcher,
        })) as unknown as Response)
      : await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }
  return {
    call,
    get: <T = any>(path: string, o?: RequestOptions) => call<T>('GET', path, o),
    post: <T = any>(path: string, o?: RequestOptions) => call<T>('POST', path, o),
    put: <T = any>(path: string, o?: RequestOptions) => call<T>('PUT', path, o),
    delete: <T = any>(path: string, o?: RequestOptions) => call<T>('DELETE', path, o),
  };
}

/** Asserts the shape every error answer has: problem+json with `message` equal to `detail`. */
export function isProblem(res: ApiResponse, status: number): boolean {
  return (
    res.status === status &&
    /application\/problem\+json/.test(res.headers.get('content-type') ?? '') &&
    res.body?.status === status &&
    typeof res.body?.detail === 'string' &&
    res.body?.message === res.body?.detail
  );
}
