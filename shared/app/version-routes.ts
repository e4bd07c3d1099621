import { z } from 'zod';
import { json, prefersJson, text } from '../http/respond.js';
import { defineRoute, type RouteDefinition, type Service } from '../http/route.js';
import { APP_VERSION } from './version.js';

function versionRoute(service: Service): RouteDefinition {
  return defineRoute({
    name: `${service}-version`,
    service,
    method: 'GET',
    path: 'Version',
    auth: 'none',
    withoutServices: true,
    openapi: {
      summary: 'The service version',
      tags: ['Version'],
      responses: {
        200: { description: 'Plain text, or a JSON string when only JSON is accepted', schema: z.string() },
      },
    },
    // As the original: plain text for */*, a JSON string when the client asks only for JSON.
    async handler({ request }) {
      return prefersJson(request.headers.get('accept')) ? json(200, APP_VERSION) : text(200, APP_VERSION);
    },
  });
}

export const versionRoutes: RouteDefinition[] = [
  versionRoute('auth'),
  versionRoute('finops'),
  versionRoute('metrics'),
];
