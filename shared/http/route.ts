import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { ZodType } from 'zod';
import type { AppServices } from '../app/services.js';
import type { Caller } from '../auth/caller.js';

export type Service = 'auth' | 'finops';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
/** none: anonymous; user: any valid own or directory token; admin: the caller's isAdmin flag. */
export type AuthRequirement = 'none' | 'user' | 'admin';

export interface RequestContext<TCaller extends Caller | undefined = Caller | undefined> {
  request: HttpRequest;
  invocation: InvocationContext;
  services: AppServices;
  /** Path parameters by their template name, URL-decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The authenticated caller; always set on `user` and `admin` routes. */
  caller: TCaller;
  /**
   * The JSON body validated by the schema; property names match case-insensitively (ASP.NET
   * Core's web defaults). Throws 400 on malformed JSON or a validation failure.
   */
  body<T>(schema: ZodType<T>): Promise<T>;
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
  openapi?: OpenApiInfo;
  handler(ctx: RequestContext<Caller | undefined>): Promise<HttpResponseInit>;
}

/** Identity helper that keeps handler context types narrow for `user` and `admin` routes. */
export function defineRoute<A extends AuthRequirement>(
  route: Omit<RouteDefinition, 'auth' | 'handler'> & {
    auth: A;
    handler(ctx: RequestContext<A extends 'none' ? Caller | undefined : Caller>): Promise<HttpResponseInit>;
  },
): RouteDefinition {
  return route as RouteDefinition;
}

export function fullPath(route: Pick<RouteDefinition, 'service' | 'path'>): string {
  return route.path ? `${route.service}/api/${route.path}` : `${route.service}/api`;
}
