import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { ZodError } from 'zod';
import { perHost } from '../app/per-host.js';
import type { AppServices } from '../app/services.js';
import type { Caller } from '../auth/caller.js';
import type { PlatformSettings } from '../config/platform.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { parseJsonText, validationProblem } from './body.js';
import { CompressedCopies, compressResponse } from './compression.js';
import { type CorsPolicy, corsHeaders, parseCorsOrigins, preflightHeaders } from './cors.js';
import { headerRecord, headerValue } from './headers.js';
import { validateInput } from './input.js';
import { keptBytes } from './kept-budget.js';
import { checkBodyStrings, checkRequestStrings } from './limits.js';
import { PerKeyLimit } from './per-user-limit.js';
import { badRequest, forbidden, HttpError, problemResponse, serviceUnavailable } from './problem.js';
import type { RequestContext, RouteDefinition } from './route.js';
import type { RouteMatch } from './router.js';
import { securityHeaders, serviceOfPath } from './security-headers.js';
import { isStreamBody, toReadable } from './stream-body.js';

function withHeaders(response: HttpResponseInit, extra: Record<string, string>): HttpResponseInit {
  if (Object.keys(extra).length === 0) return response;
  const out = headerRecord(response.headers);
  for (const [k, v] of Object.entries(extra)) if (headerValue(out, k) === undefined) out[k] = v;
  return { ...response, headers: out };
}

/** The CORS policy of a configuration, parsed once. */
const corsPolicyOf = perHost(
  (platform: PlatformSettings): CorsPolicy => parseCorsOrigins(platform.CORS_ALLOWED_ORIGINS),
);

/** The host's compressed copies of answers, their share of Http__KeptAnswersMiB. */
const compressedCopiesOf = perHost(
  (platform: PlatformSettings) => new CompressedCopies(keptBytes(platform, 'compressedCopies')),
);

/** The per-user limit of heavy requests of a configuration (one per host). */
export const heavyLimitOf = perHost(
  (platform: PlatformSettings) => new PerKeyLimit(platform.Http__MaxHeavyRequestsPerUser),
);

/** Seconds a client refused for too many heavy requests is asked to wait. */
export const HEAVY_RETRY_AFTER_SECONDS = 2;

/**
 * Releases a heavy request's slot once its answer is written: at once for a body in hand, when
 * the stream closes (ended, failed or abandoned by the client) for a streamed one.
 */
function releaseAfter(response: HttpResponseInit, release: () => void): HttpResponseInit {
  if (!isStreamBody(response.body)) {
    release();
    return response;
  }
  const body = toReadable(response.body);
  body.once('close', release);
  return { ...response, body };
}

function pathOf(request: HttpRequest): string {
  try {
    return new URL(request.url).pathname;
  } catch {
    return request.url;
  }
}

/**
 * Retry-After of a 503 for an unavailable database: long enough for a pool to reconnect after a
 * restart or failover, short enough that a client's retry lands soon after it is back.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The answer for an error thrown anywhere below a handler: never internals, always problem+json. */
export function errorResponse(
  error: unknown,
  request: HttpRequest,
  invocation: InvocationContext,
  services?: Pick<AppServices, 'log' | 'errors'>,
): HttpResponseInit {
  const instance = pathOf(request);
  if (!(error instanceof HttpError) && isDatabaseUnavailable(error)) {
    services?.log.warn(
      { err: error, path: instance, invocationId: invocation.invocationId },
      'database unavailable',
    );
    error = serviceUnavailable(
      'The database is not answering right now. Try again in a few seconds.',
      DATABASE_RETRY_AFTER_SECONDS,
    );
  }
  if (error instanceof HttpError) {
    return problemResponse(error.status, error.detail, error.options, instance, invocation.invocationId);
  }
  if (error instanceof ZodError) {
    const problem = validationProblem(error);
    return problemResponse(400, problem.detail, problem.options, instance, invocation.invocationId);
  }
  services?.log.error(
    { err: error, path: instance, invocationId: invocation.invocationId },
    'unhandled error',
  );
  services?.errors.capture(error, { path: instance, method: request.method });
  return problemResponse(
    500,
    'An unexpected error occurred. It has been logged; quote the traceId when reporting it.',
    {},
    instance,
    invocation.invocationId,
  );
}

/**
 * Runs one route for one request: authentication, the admin rule, body validation, the handler,
 * errors as problem+json and CORS. The Azure Functions registrations and the local host both call
 * this, so the same code answers in both.
 */
export async function dispatchRoute(
  services: AppServices,
  route: RouteDefinition,
  params: Record<string, string>,
  request: HttpRequest,
  invocation: InvocationContext,
): Promise<HttpResponseInit> {
  const cors = corsHeaders(
    parseCorsOrigins(services.config.platform.CORS_ALLOWED_ORIGINS),
    request.headers.get('origin'),
  );
  let response: HttpResponseInit;
  let release: (() => void) | undefined;
  try {
    // Before anything is looked up (the caller's token included): cheap, and bounds what reaches
    // the caches and the database.
    checkRequestStrings(params, request.query);
    if (route.method === 'DELETE' && hasEmptySegment(pathOf(request))) {
      // A trailing slash must never turn `User/delete/{id}` into `User/delete` (the caller).
      throw badRequest('The path has an empty segment; name what to delete.');
    }
    let caller: Caller | undefined;
    if (route.auth !== 'none') {
      caller = await services.auth.authenticate(request);
      if (route.auth === 'admin' && !caller.isAdmin)
        throw forbidden('This operation requires an administrator.');
    }
    let bodyText: Promise<string> | undefined;
    const readJson = async (): Promise<unknown> => {
      bodyText ??= request.text();
      const text = await bodyText;
      requireJsonContentType(request, text);
      const value = parseJsonText(text);
      checkBodyStrings(value);
      return value;
    };
    route.before?.({ services, request });
    const ctx: RequestContext = {
      request,
      invocation,
      services,
      params,
      // Validated after authentication: an anonymous caller learns nothing of a route's rules.
      input: await validateInput(route.input, params, request, readJson),
      query: request.query,
      caller,
      heavy() {
        if (release || !caller) return;
        release = heavyLimitOf(services.config.platform).tryAcquire(caller.userId);
        if (!release) {
          const max = services.config.platform.Http__MaxHeavyRequestsPerUser;
          throw new HttpError(
            429,
            `At most ${max} large answers per user are served at once; retry when one has finished.`,
            { headers: { 'Retry-After': String(HEAVY_RETRY_AFTER_SECONDS) } },
          );
        }
      },
    };
    response = await route.handler(ctx);
    if (release) response = releaseAfter(response, release);
  } catch (error) {
    release?.();
    response = errorResponse(error, request, invocation, services);
  }
  return compressResponse(
    withHeaders(response, { ...cors, ...securityHeaders(response, route.service) }),
    request.headers.get('accept-encoding'),
    services.config.platform.Http__CompressionMinBytes,
    compressedCopiesOf(services.config.platform),
  );
}

function hasEmptySegment(pathname: string): boolean {
  return /\/\/|\/$/.test(pathname);
}

/**
 * JSON bodies need a JSON content type, as ASP.NET Core's [FromBody] demands (415 otherwise).
 * A missing content type is let through: some clients send a JSON string without one.
 */
function requireJsonContentType(request: HttpRequest, text: string): void {
  const type = request.headers.get('content-type');
  if (!type || text.length === 0) return;
  const media = type.split(';', 1)[0]!.trim().toLowerCase();
  if (media === 'application/json' || media === 'text/json' || /^application\/[^/]+\+json$/.test(media))
    return;
  throw new HttpError(415, `The content type ${media || '(empty)'} is not supported; send application/json.`);
}

/** Answers what no route handles: CORS preflight, 404 and 405, as problem+json. */
export function unmatchedResponse(
  services: Pick<AppServices, 'config'>,
  match: Exclude<RouteMatch, { kind: 'match' }>,
  request: HttpRequest,
  invocation: InvocationContext,
): HttpResponseInit {
  const policy = corsPolicyOf(services.config.platform);
  const origin = request.headers.get('origin');
  if (request.method === 'OPTIONS' && match.kind === 'method-not-allowed') {
    const preflight: HttpResponseInit = {
      status: 204,
      headers: preflightHeaders(policy, origin, request.headers.get('access-control-request-headers')),
    };
    return withHeaders(preflight, securityHeaders(preflight, serviceOfPath(pathOf(request))));
  }
  const instance = pathOf(request);
  const response =
    match.kind === 'method-not-allowed'
      ? problemResponse(
          405,
          `${request.method} is not allowed here; use ${match.allow.join(', ')}.`,
          { headers: { Allow: match.allow.join(', ') } },
          instance,
          invocation.invocationId,
        )
      : problemResponse(
          404,
          `No route matches ${request.method} ${instance}.`,
          {},
          instance,
          invocation.invocationId,
        );
  return withHeaders(response, {
    ...corsHeaders(policy, origin),
    ...securityHeaders(response, serviceOfPath(instance)),
  });
}

/** Adds the security headers to an answer made outside the dispatcher (the local host's errors). */
export function withSecurityHeaders(response: HttpResponseInit, pathname: string): HttpResponseInit {
  return withHeaders(response, securityHeaders(response, serviceOfPath(pathname)));
}
