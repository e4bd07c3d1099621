/**
 * The console's files (the built web app under dist/console) answered at /console/...: hashed
 * assets cached for a year, index.html never cached and answered for every other path below
 * /console (the app routes on the client), with a Content-Security-Policy that allows no inline
 * script and no framing. Used by the Functions catch-all and by the local host alike.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpResponseInit } from '@azure/functions';
import { negotiateEncoding } from '../http/compression.js';
import { problemResponse } from '../http/problem.js';
import { type ConsoleConfig, connectSources } from './config.js';

/** The path the console is served under. */
export const CONSOLE_BASE = '/console';

/**
 * Everything the page loads comes from this origin. Inline script is refused; the app sets element
 * styles only through the DOM (React's `style` prop), which CSP does not govern, so no inline style
 * either. Nothing may frame the page. The one exception: with directory sign-in the page fetches the
 * directory's metadata and tokens from its origin (`connect`).
 */
export function consoleCsp(connect: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    ["connect-src 'self'", ...connect].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Where the built console is: beside the bundle (dist/functions/index.js or the package's
 * dist/index.mjs: ../console) or, running from source, the repository's dist/console.
 */
export function defaultConsoleDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    path.resolve(here, '..', 'console'),
    path.resolve(here, '..', '..', 'console'),
    path.resolve(here, '..', '..', 'dist', 'console'),
  ];
  return candidates.find((d) => existsSync(path.join(d, 'index.html'))) ?? candidates.at(-1)!;
}

/** Whether a request path is the console's (`/console` or below it). */
export function isConsolePath(pathname: string): boolean {
  return /^\/console(?:\/|$)/i.test(pathname);
}

function baseHeaders(): Record<string, string> {
  return { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };
}

function refused(status: number, detail: string, pathname: string): HttpResponseInit {
  const init = problemResponse(status, detail, undefined, pathname);
  return { ...init, headers: { ...(init.headers as Record<string, string>), ...baseHeaders() } };
}

export interface ConsoleRequest {
  method: string;
  /** The request path, still percent-encoded. */
  pathname: string;
  acceptEncoding?: string | null;
}

/** The relative file a path names below /console, or an error answer for a path that may not be served. */
function relativePath(pathname: string): string | HttpResponseInit {
  const rest = pathname.replace(/^\/console/i, '');
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return refused(400, 'The path is not valid percent-encoding.', pathname);
  }
  const segments = decoded.split('/').filter((s) => s.length > 0);
  // Refused outright, not normalised: a client that sends these is not following a link of ours.
  if (segments.some((s) => s === '..' || s === '.' || s.includes('\\') || s.includes('\0'))) {
    return refused(400, 'The path may not contain "..", "." or backslash segments.', pathname);
  }
  return segments.join('/');
}

async function fileIfAny(dir: string, rel: string): Promise<{ file: string; size: number } | undefined> {
  const file = path.join(dir, rel);
  // Belt and braces after the segment check: the file must lie inside the console's folder.
  if (!file.startsWith(dir + path.sep)) return undefined;
  try {
    const s = await stat(file);
    return s.isFile() ? { file, size: s.size } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Answers a GET or HEAD below /console from the built files in `dir`, and `config.json` from the
 * settings (`config`; absent while the settings are invalid: the password form alone).
 */
export async function serveConsole(
  request: ConsoleRequest,
  dir = defaultConsoleDir(),
  config?: ConsoleConfig,
): Promise<HttpResponseInit> {
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') {
    const out = refused(405, `${method} is not allowed here; use GET.`, request.pathname);
    return { ...out, headers: { ...(out.headers as Record<string, string>), Allow: 'GET, HEAD' } };
  }
  const rel = relativePath(request.pathname);
  if (typeof rel !== 'string') return rel;
  if (rel === 'config.json') {
    return uncached(method, TYPES['.json']!, Buffer.from(JSON.stringify(config ?? { directory: null })));
  }
  const root = path.resolve(dir);
  const isAsset = rel.startsWith('assets/');
  const found = rel && rel !== 'index.html' ? await fileIfAny(root, rel) : undefined;
  if (found) {
    const type = TYPES[path.extname(found.file).toLowerCase()] ?? 'application/octet-stream';
    const headers: Record<string, string> = {
      ...baseHeaders(),
      'Content-Type': type,
      // Files under assets/ carry a content hash in their name: a new build is a new name.
      'Cache-Control': isAsset ? IMMUTABLE : 'no-cache',
      Vary: 'Accept-Encoding',
    };
    const gz =
      negotiateEncoding(request.acceptEncoding, ['gzip']) === 'gzip'
        ? await fileIfAny(root, `${rel}.gz`)
        : undefined;
    if (gz) headers['Content-Encoding'] = 'gzip';
    const body = await readFile((gz ?? found).file);
    headers['Content-Length'] = String(body.length);
    return { status: 200, headers, body: method === 'HEAD' ? undefined : body };
  }
  // A missing hashed asset is a stale page asking for an old build: 404, not the page.
  if (isAsset || /\.(?:js|css|map|png|svg|ico|woff2?)$/i.test(rel)) {
    return refused(404, `No console file ${rel}.`, request.pathname);
  }
  const index = await fileIfAny(root, 'index.html');
  if (!index) {
    return refused(
      503,
      'The console is not built: run `npm run build` (or `npm start`, which builds it when it is missing).',
      request.pathname,
    );
  }
  return uncached(method, TYPES['.html']!, await readFile(index.file), {
    'Content-Security-Policy': consoleCsp(connectSources(config)),
    'X-Frame-Options': 'DENY',
  });
}

/** An answer made for this request (the page, its settings): never cached. */
function uncached(
  method: string,
  type: string,
  body: Buffer,
  extra: Record<string, string> = {},
): HttpResponseInit {
  return {
    status: 200,
    headers: {
      ...baseHeaders(),
      'Content-Type': type,
      'Cache-Control': 'no-store',
      ...extra,
      'Content-Length': String(body.length),
    },
    body: method === 'HEAD' ? undefined : body,
  };
}
