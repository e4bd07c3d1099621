import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { APP_VERSION } from '../app/version.js';
import { fullPath, type RouteDefinition, type Service } from './route.js';

const TITLES: Record<Service, string> = {
  auth: 'finwatch auth service',
  finops: 'finwatch FinOps service',
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
    responses[status] = r.schema
      ? {
          description: r.description,
          content: { [r.contentType ?? 'application/json']: { schema: r.schema } },
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
  if (route.auth !== 'none') op.security = [{ bearer: [] }];
  const requestParams: NonNullable<ZodOpenApiOperationObject['requestParams']> = {};
  if (info.params instanceof z.ZodObject) requestParams.path = info.params;
  if (info.query instanceof z.ZodObject) requestParams.query = info.query;
  if (requestParams.path || requestParams.query) op.requestParams = requestParams;
  if (info.body) op.requestBody = { content: { 'application/json': { schema: info.body } } };
  return op;
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
    info: { title: TITLES[service], version: APP_VERSION },
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
