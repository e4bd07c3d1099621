import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { ZodType } from 'zod';
import type { AppServices } from '../app/services.js';
import type { Caller } from '../auth/caller.js';

export type Service = 'auth' | 'finops' | 'metrics';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
/** none: anonymous; user: any valid own or directory token; admin: the caller's isAdmin flag. */
export type AuthRequirement = 'none' | 'user' | 'admin';

/**
 * What a route accepts, declared once: the dispatcher validates each part before the handler runs
 * (400 problem+json naming the first problem) and the OpenAPI document shows these same schemas.
 * Path and query values arrive as strings; query names match case-insensitively, as ASP.NET Core
 * binds them, and a name given twice keeps its first value unless the schema asks for a list.
 */
export interface RouteInput<P = unknown, Q = unknown, B = unknown> {
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
}

/** The validated values of a route's `input`; a part the route does not declare is undefined. */
export interface ValidInput<P = unknown, Q = unknown, B = unknown> {
  params: P;
  query: Q;
  body: B;
}

export interface RequestContext<
  TCaller extends Caller | undefined = Caller | undefined,
  TInput extends ValidInput = ValidInput,
> {
  request: HttpRequest;
  invocation: InvocationContext;
  services: AppServices;
  /** Path parameters by their template name, URL-decoded (raw: prefer `input.params`). */
  params: Record<string, string>;
  /** The route's `input`, validated. */
  input: TInput;
  query: URLSearchParams;
  /** The authenticated caller; always set on `user` and `admin` routes. */
  caller: TCaller;
  /**
   * Marks the request heavy (an unpaged list streamed from the database): it then counts against
   * the caller's limit of heavy requests in flight until its answer has been written, and a request
   * beyond the limit is refused with 429 and Retry-After.
   */
  heavy(): void;
}

export interface OpenApiInfo {
  summary?: string;
  description?: string;
  tags?: string[];
  params?: ZodType;
  query?: ZodType;
  /**
   * Only for a body the route must read itself (an optional body, a gzip batch checked record by
   * record): shown in the document, not validated by the dispatcher. Every other body is `input.body`.
   */
  body?: ZodType;
  /** Status → description (and schema of the success body when known). */
  responses?: Record<number, { description: string; schema?: ZodType; contentType?: string }>;
}

export interface RouteDefinition {
  /** Function name in Azure: unique, letters, digits, '-' and '_'. */
  name: string;
  service: Service;
  method: HttpMethod;
  /** Template below `<service>/api/`, e.g. `User/GetById/{userId}`. Empty string for the base. */
  path: string;
  auth: AuthRequirement;
  /**
   * The handler reads nothing but `services.config`, `log` and `errors` (Version), so it answers
   * while the database or the queue cannot be reached.
   */
  withoutServices?: boolean;
  /**
   * Largest request body the host accepts for this route; unset: MAX_BODY_BYTES (1 MiB). Azure's
   * own front end caps every request at 100 MB (the Functions host's request size limit).
   */
  maxBodyBytes?: number;
  /**
   * A refusal that must come before the input is read (sign-in switched off, the Notification
   * service's key): run after authentication and before `input` is validated, so such a caller
   * learns nothing of the route's rules.
   */
  before?(ctx: { services: AppServices; request: HttpRequest }): void;
  /** Path, query and body schemas: validated before the handler and shown in the OpenAPI document. */
  input?: RouteInput;
  openapi?: OpenApiInfo;
  handler(ctx: RequestContext<Caller | undefined>): Promise<HttpResponseInit>;
}

/**
 * Identity helper that keeps handler context types narrow: the caller on `user` and `admin` routes,
 * and `ctx.input` typed from the route's `input` schemas.
 */
export function defineRoute<
  A extends AuthRequirement,
  P = Record<string, string>,
  Q = undefined,
  B = undefined,
>(
  route: Omit<RouteDefinition, 'auth' | 'handler' | 'input'> & {
    auth: A;
    input?: RouteInput<P, Q, B>;
    handler(
      ctx: RequestContext<A extends 'none' ? Caller | undefined : Caller, ValidInput<P, Q, B>>,
    ): Promise<HttpResponseInit>;
  },
): RouteDefinition {
  return route as unknown as RouteDefinition;
}

export function fullPath(route: Pick<RouteDefinition, 'service' | 'path'>): string {
  return route.path ? `${route.service}/api/${route.path}` : `${route.service}/api`;
}
