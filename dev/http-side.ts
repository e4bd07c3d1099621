/**
 * The local host's HTTP side: node:http in front of the route table, with the real HttpRequest and
 * InvocationContext classes of @azure/functions, and the console's files as their own function is
 * in Azure. Answers, streamed ones included, go out as the Functions host would write them.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import azf, { type HttpResponseInit } from '@azure/functions';
import type { AppServices } from '../shared/app/services.js';
import type { ConsoleConfig } from '../shared/console/config.js';
import { isConsolePath, serveConsole } from '../shared/console/static.js';
import { MAX_BODY_BYTES } from '../shared/http/body.js';
import { errorResponse, withSecurityHeaders } from '../shared/http/dispatch.js';
import { headerRecord } from '../shared/http/headers.js';
import { HttpError, problemResponse } from '../shared/http/problem.js';
import { type RequestServer, serveRequest } from '../shared/http/serve.js';
import { isStreamBody, toReadable } from '../shared/http/stream-body.js';

class BodyTooLarge extends Error {}

/** Methods the fetch standard forbids: @azure/functions' HttpRequest (undici) cannot represent them. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** A problem+json answer written straight to a socket the HTTP parser gave up on. */
function rawProblem(status: number, detail: string): string {
  const init = problemResponse(status, detail);
  const body = String(init.body);
  return (
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
    'Content-Type: application/problem+json; charset=utf-8\r\n' +
    'X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

const EMPTY = Buffer.alloc(0);

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> | Buffer {
  // A request that declares no body (most GETs) is answered without waiting for its 'end' event.
  if (!req.headers['transfer-encoding'] && (req.headers['content-length'] ?? '0') === '0') {
    req.resume();
    return EMPTY;
  }
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(new BodyTooLarge(String(limit)));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge(String(limit)));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function writeResponse(
  res: http.ServerResponse,
  init: HttpResponseInit,
  head: boolean,
  closing: boolean,
): Promise<void> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headerRecord(init.headers))) out[k.toLowerCase()] = v;
  if (init.jsonBody === undefined && isStreamBody(init.body)) {
    // Written as produced, with backpressure: chunked, no Content-Length.
    const stream = toReadable(init.body);
    if (closing) out.connection = 'close';
    res.writeHead(init.status ?? 200, out);
    if (head) {
      stream.destroy();
      res.end();
      return;
    }
    // A client that goes away destroys the stream (and whatever it reads from); a source that
    // fails mid-answer aborts the connection, the only way left to tell the client once the status
    // line is out.
    await pipeline(stream, res).catch(() => {});
    return;
  }
  let body: string | Buffer | undefined;
  if (init.jsonBody !== undefined) {
    body = JSON.stringify(init.jsonBody);
    out['content-type'] ??= 'application/json; charset=utf-8';
  } else if (typeof init.body === 'string') {
    body = init.body;
    out['content-type'] ??= 'text/plain; charset=utf-8';
  } else if (init.body instanceof Uint8Array) {
    // A view, not a copy: kept answers are megabyte Buffers handed out to every request.
    body = Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength);
  } else if (init.body instanceof ArrayBuffer) {
    body = Buffer.from(init.body);
  } else if (init.body !== undefined && init.body !== null) {
    body = Buffer.from(
      await new Response(init.body as ConstructorParameters<typeof Response>[0]).arrayBuffer(),
    );
  }
  if (body !== undefined) out['content-length'] = String(Buffer.byteLength(body));
  // While shutting down, each answer ends its connection so no keep-alive socket outlives close().
  if (closing) out.connection = 'close';
  res.writeHead(init.status ?? 200, out);
  res.end(head ? undefined : body);
}

export interface HttpSide {
  server: http.Server;
  /** Stops accepting, lets in-flight requests finish, then drops the sockets left. */
  close(): Promise<void>;
}

export function createHttpSide(
  services: AppServices,
  requests: RequestServer,
  consoleSettings: ConsoleConfig,
): HttpSide {
  const inflight = new Set<Promise<void>>();
  let closing = false;

  const server = http.createServer((req, res) => {
    const work = (async () => {
      const host = req.headers.host ?? '127.0.0.1';
      // Strings, not a URL object: the router needs only the path, HttpRequest parses the rest.
      const target = req.url?.startsWith('/') ? req.url : '/';
      const pathname = target.split('?', 1)[0]!;
      const url = `http://${host}${target}`;
      const method = (req.method ?? 'GET').toUpperCase();
      const invocation = new azf.InvocationContext({
        functionName: 'local-host',
        invocationId: randomUUID(),
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      }
      // As Azure's front end does: the connection's address is appended, never trusted from the client.
      const peer = req.socket.remoteAddress;
      if (peer)
        headers['x-forwarded-for'] = headers['x-forwarded-for']
          ? `${headers['x-forwarded-for']}, ${peer}`
          : peer;
      let response: HttpResponseInit;
      try {
        if (FORBIDDEN_METHODS.has(method)) {
          req.resume();
          response = withSecurityHeaders(
            problemResponse(
              405,
              `${method} is not allowed.`,
              { headers: { Allow: 'GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS' } },
              pathname,
              invocation.invocationId,
            ),
            pathname,
          );
          await writeResponse(res, response, false, closing);
          return;
        }
        // The console's catch-all, as its own function in Azure: files, not the route table.
        if (isConsolePath(pathname)) {
          req.resume();
          response = await serveConsole(
            { method, pathname, acceptEncoding: headers['accept-encoding'] },
            undefined,
            consoleSettings,
          );
          await writeResponse(res, response, method === 'HEAD', closing);
          return;
        }
        // The route's own body limit; the same match then dispatches.
        const match = requests.router.match(method === 'HEAD' ? 'GET' : method, pathname);
        const body = await readBody(
          req,
          (match.kind === 'match' ? match.route.maxBodyBytes : undefined) ?? MAX_BODY_BYTES,
        );
        // No route parameters here: serveRequest hands the router's to the handler, as in Azure,
        // where the catch-all's request.params hold only `path`.
        const request = new azf.HttpRequest({
          method,
          url,
          headers,
          body: body.length ? { bytes: body } : undefined,
        });
        response = await serveRequest(requests, request, invocation, match);
      } catch (error) {
        const request = new azf.HttpRequest({ method, url, headers });
        response = withSecurityHeaders(
          errorResponse(
            error instanceof BodyTooLarge
              ? new HttpError(413, `The request body is larger than ${error.message} bytes.`)
              : error,
            request,
            invocation,
            services,
          ),
          pathname,
        );
      }
      await writeResponse(res, response, method === 'HEAD', closing);
    })()
      .catch((error) => {
        services.log.error({ err: error }, 'local host failed to answer');
        if (res.headersSent) {
          res.end();
          return;
        }
        const init = problemResponse(500, 'An unexpected error occurred.');
        res.writeHead(500, init.headers as Record<string, string>);
        res.end(init.body as string);
      })
      .finally(() => inflight.delete(work));
    inflight.add(work);
  });
  // Longer than clients' own idle timeouts (undici: 4 s), so the server never closes a socket a
  // client is about to reuse (ECONNRESET under load); close() still drops idle sockets at once.
  server.keepAliveTimeout = 65_000;
  // Requests the parser refuses (a URL or headers over 16 KB, malformed lines) get problem+json,
  // not Node's bare 431/400 or a reset.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (err as { bytesParsed?: number }).bytesParsed === undefined) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    socket.end(
      tooLarge
        ? rawProblem(431, 'The request line or headers are larger than 16 KB.')
        : rawProblem(400, 'The request is malformed.'),
    );
  });
  server.headersTimeout = 66_000;

  return {
    server,
    async close() {
      // Stop accepting, let in-flight requests finish (their answers close their sockets), then
      // drop whatever keep-alive sockets are left.
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.allSettled([...inflight]);
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), 5_000);
      await closed;
      clearTimeout(grace);
    },
  };
}
