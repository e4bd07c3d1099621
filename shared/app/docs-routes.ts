import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { checkSwaggerCredentials } from '../auth/swagger-gate.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import { HttpError, notFound } from '../http/problem.js';
import { json } from '../http/respond.js';
import { defineRoute, type RequestContext, type RouteDefinition, type Service } from '../http/route.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

let assetDir: string | undefined;
function swaggerAssetDir(): string {
  assetDir ??= path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return assetDir;
}

/**
 * The documentation is served only in Development, as the original did; the auth service's is behind the
 * SwaggerUICredentials__* basic auth, and refused, not open, when those are unset.
 */
function guard(service: Service, { services, request }: RequestContext): void {
  if (!services.config.isDevelopment) throw notFound('The API documentation is served only in Development.');
  if (
    service === 'auth' &&
    checkSwaggerCredentials(services.config, request.headers.get('authorization')) !== 'ok'
  ) {
    throw new HttpError(
      401,
      'The API documentation requires the SwaggerUICredentials basic-auth credentials.',
      {
        headers: { 'WWW-Authenticate': 'Basic realm="finwatch auth API documentation", charset="UTF-8"' },
      },
    );
  }
}

function page(service: Service, basePath: string): string {
  const base = `${basePath.replace(/\/$/, '')}/${service}/api/swagger`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>finwatch ${service} API</title>
<link rel="stylesheet" href="${base}/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="${base}/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '${base}/v1/swagger.json', dom_id: '#swagger-ui' });</script>
</body></html>`;
}

function docsRoutes(service: Service, allRoutes: () => RouteDefinition[]): RouteDefinition[] {
  let document: unknown;
  const internal = { tags: ['internal'] };
  return [
    defineRoute({
      name: `${service}-openapi`,
      service,
      method: 'GET',
      path: 'swagger/v1/swagger.json',
      auth: 'none',
      openapi: internal,
      async handler(ctx) {
        guard(service, ctx);
        document ??= buildOpenApiDocument(service, allRoutes());
        return json(200, document);
      },
    }),
    defineRoute({
      name: `${service}-swagger-ui`,
      service,
      method: 'GET',
      path: 'swagger',
      auth: 'none',
      openapi: internal,
      async handler(ctx) {
        guard(service, ctx);
        return {
          status: 200,
          body: page(service, ctx.services.config.platform.basePath ?? ''),
          headers: { 'Content-Type': 'text/html; charset=utf-8' },
        };
      },
    }),
    defineRoute({
      name: `${service}-swagger-assets`,
      service,
      method: 'GET',
      path: 'swagger/assets/{file}',
      auth: 'none',
      openapi: { ...internal, params: z.object({ file: z.string() }) },
      async handler(ctx) {
        guard(service, ctx);
        const file = ctx.params.file ?? '';
        const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
        if (!type) throw notFound('No such documentation asset.');
        const bytes = await readFile(path.join(swaggerAssetDir(), file));
        return {
          status: 200,
          body: bytes,
          headers: { 'Content-Type': type, 'Cache-Control': 'max-age=3600' },
        };
      },
    }),
  ];
}

/** OpenAPI documents and Swagger UI for every service, built from the given route table. */
export function documentationRoutes(allRoutes: () => RouteDefinition[]): RouteDefinition[] {
  return [
    ...docsRoutes('auth', allRoutes),
    ...docsRoutes('finops', allRoutes),
    ...docsRoutes('metrics', allRoutes),
  ];
}
