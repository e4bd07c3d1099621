/** Reading requests and writing JSON answers, with the headers every Azure endpoint sends. */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimEndpoint } from './faults.js';

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The body as JSON, or undefined when it is empty or not JSON (the caller answers that). */
export function parseJson(body: string): unknown {
  try {
    return body ? JSON.parse(body) : undefined;
  } catch {
    return undefined;
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    'content-length': Buffer.byteLength(text),
    'x-ms-request-id': randomBytes(16).toString('hex'),
    ...headers,
  });
  res.end(text);
}

/** Which endpoint a request is for: what faults, stats and the router key on. */
export function classify(method: string, pathname: string): SimEndpoint {
  const p = pathname.toLowerCase();
  if (p.startsWith('/_sim/')) return 'admin';
  if (method === 'POST' && /^\/[^/]+\/oauth2\/v2\.0\/token$/.test(p)) return 'token';
  if (
    method === 'GET' &&
    (/^\/[^/]+\/v2\.0\/\.well-known\/openid-configuration$/.test(p) || p.endsWith('/discovery/instance'))
  )
    return 'metadata';
  if (method === 'GET' && /^\/subscriptions\/[^/]+$/.test(p)) return 'subscription';
  if (method === 'GET' && p === '/api/retail/prices') return 'prices';
  if (method === 'POST' && p === '/providers/microsoft.resourcegraph/resources') return 'graph';
  if (method === 'POST' && /^\/subscriptions\/[^/]+\/providers\/microsoft\.costmanagement\/query$/.test(p))
    return 'cost';
  return 'other';
}
