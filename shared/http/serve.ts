import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { AppServices } from '../app/services.js';
import type { ErrorReporter } from '../observability/errors.js';
import { withInvocationScope } from '../observability/invocation-scope.js';
import type { Logger } from '../observability/logger.js';
import { dispatchRoute, errorResponse, unmatchedResponse, withSecurityHeaders } from './dispatch.js';
import type { RouteMatch, Router } from './router.js';

/** What a host needs to answer before (or without) the full services: configuration and logging. */
export type BootServices = Pick<AppServices, 'config' | 'log' | 'errors'>;

export interface RequestServer {
  router: Router;
  /** Access log and startup failures; exists even when the services cannot be created. */
  log: Logger;
  errors?: ErrorReporter;
  /** Configuration and logging, when the settings are valid; serves `withoutServices` routes. */
  boot(): BootServices | undefined;
  /** The services; rejects (with a 503 HttpError) while they cannot be created. */
  services(): Promise<AppServices>;
}

// version-traceid-parentid-flags, lower-case hex (W3C Trace Context, section 3.2).
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

function pathOf(url: string): string {
  const start = url.indexOf('://');
  const slash = start < 0 ? url.indexOf('/') : url.indexOf('/', start + 3);
  if (slash < 0) return '/';
  const end = url.slice(slash).search(/[?#]/);
  return end < 0 ? url.slice(slash) : url.slice(slash, slash + end);
}

/**
 * Answers one HTTP request with the route table: the local host and the Functions catch-alls both
 * call this, so routing, 404/405/preflight, the access log and log correlation are the same code
 * in Azure as in the tests. Every log line written while it runs carries the invocation id.
 */
export function serveRequest(
  server: RequestServer,
  request: HttpRequest,
  invocation: InvocationContext,
  /** The router's answer for this request, when the caller already matched it (the local host). */
  matched?: RouteMatch,
): Promise<HttpResponseInit> {
  const sent = request.headers.get('traceparent')?.trim().toLowerCase();
  const traceparent = sent && TRACEPARENT.test(sent) ? sent : undefined;
  return withInvocationScope({ invocationId: invocation.invocationId, traceparent }, async () => {
    const started = performance.now();
    const method = request.method.toUpperCase();
    const path = pathOf(request.url);
    const match = matched ?? server.router.match(method === 'HEAD' ? 'GET' : method, path);
    const routeName = match.kind === 'match' ? match.route.name : null;
    let response: HttpResponseInit;
    try {
      const boot = server.boot();
      if (match.kind === 'match' && match.route.withoutServices && boot) {
        // The route promises to read only configuration and logging (see RouteDefinition).
        response = await dispatchRoute(boot as AppServices, match.route, match.params, request, invocation);
      } else {
        const services = await server.services();
        response =
          match.kind === 'match'
            ? await dispatchRoute(services, match.route, match.params, request, invocation)
            : unmatchedResponse(services, match, request, invocation);
      }
    } catch (error) {
      // The services could not be created (503): the dispatcher's headers are added here.
      response = withSecurityHeaders(
        errorResponse(error, request, invocation, {
          log: server.log,
          errors: server.errors ?? { enabled: false, capture() {}, async flush() {} },
        }),
        path,
      );
    }
    server.log.info(
      {
        method,
        route: routeName,
        status: response.status ?? 200,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
    return response;
  });
}
