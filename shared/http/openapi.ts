import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { APP_VERSION } from '../app/version.js';
import { fullPath, type RouteDefinition, type Service } from './route.js';

const TITLES: Record<Service, string> = {
  auth: 'finwatch auth service',
  finops: 'finwatch FinOps service',
  metrics: 'finwatch metrics service',
};

const problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    message: z.string().meta({ description: 'Same as detail; the original clients read message.' }),
    instance: z.string().optional(),
    traceId: z.string().optional(),
    errors: z.record(z.string(), z.array(z.string())).optional(),
  })
  .meta({ id: 'ProblemDetails' });

function problemResponse(description: string) {
  return { description, content: { 'application/problem+json': { schema: problem } } };
}

function operation(route: RouteDefinition): ZodOpenApiOperationObject {
  const info = route.openapi ?? {};
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(info.responses ?? { 200: { description: 'Success' } })) {
    // A declared content type is documented even without a schema (HTML pages, plain text).
    responses[status] =
      r.schema || r.contentType
        ? {
            description: r.description,
            content: { [r.contentType ?? 'application/json']: r.schema ? { schema: r.schema } : {} },
          }
        : { description: r.description };
  }
  responses['400'] ??= problemResponse('Invalid request');
  if (route.auth !== 'none') {
    responses['401'] ??= problemResponse('Missing, invalid or expired token');
    responses['403'] ??= problemResponse('Authenticated but not allowed');
  }
  const op: ZodOpenApiOperationObject = {
    operationId: route.name,
    summary: info.summary,
    description: info.description,
    tags: info.tags ?? [route.path.split('/')[0] || route.service],
    responses: responses as ZodOpenApiOperationObject['responses'],
  };
  // The anonymous routes say so explicitly: the document's default is the bearer scheme.
  op.security = route.auth === 'none' ? [] : [{ bearer: [] }];
  const requestParams: NonNullable<ZodOpenApiOperationObject['requestParams']> = {};
  // The schemas that validate (route.input) are the ones documented; `openapi` only describes
  // routes that read their input another way (uploads, streamed bodies).
  const path = pathParameters(route, route.input?.params ?? info.params);
  if (path) requestParams.path = path;
  const query = route.input?.query ?? info.query;
  if (query instanceof z.ZodObject) requestParams.query = query;
  if (requestParams.path || requestParams.query) op.requestParams = requestParams;
  const body = route.input?.body ?? info.body;
  if (body) op.requestBody = { content: { 'application/json': { schema: body } } };
  return op;
}

/**
 * Every `{name}` of the route template as a path parameter: the ones the route describes with
 * their own schema, the others as plain strings (OpenAPI requires each to be declared).
 */
function pathParameters(route: RouteDefinition, declared: unknown): z.ZodObject | undefined {
  const names = [...route.path.matchAll(/\{\*?([^}:?]+)[^}]*\}/g)].map((m) => m[1] as string);
  const own = declared instanceof z.ZodObject ? declared : z.object({});
  const missing = names.filter((name) => !(name in own.shape));
  if (names.length === 0) return undefined;
  return missing.length === 0 ? own : own.extend(Object.fromEntries(missing.map((n) => [n, z.string()])));
}

/** One OpenAPI 3.1 document per service, generated from the route table's zod schemas. */
export function buildOpenApiDocument(service: Service, routes: readonly RouteDefinition[]) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes.filter((r) => r.service === service && !r.openapi?.tags?.includes('internal'))) {
    const path = `/${fullPath(route)}`;
    const item = paths[path] ?? {};
    paths[path] = item;
    (item as Record<string, ZodOpenApiOperationObject>)[route.method.toLowerCase()] = operation(route);
  }
  return createDocument({
    openapi: '3.1.0',
    info: { title: TITLES[service], version: APP_VERSION, license: { name: 'MIT', identifier: 'MIT' } },
    // Paths carry the full `/<service>/api/...` prefix, so the server is the app's own origin.
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An own token (POST /auth/api/Auth/login) or a directory (Entra ID) access token',
        },
      },
    },
  });
}
