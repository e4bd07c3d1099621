import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { serveConsole } from './static.js';

/** The console's catch-all function (`console/{*path}`): its files, without the services. */
export function consoleHandler(request: HttpRequest): Promise<HttpResponseInit> {
  const url = new URL(request.url);
  return serveConsole({
    method: request.method,
    pathname: url.pathname,
    acceptEncoding: request.headers.get('accept-encoding'),
  });
}

/** The registration the Functions entry makes for the console (GET and HEAD below /console). */
export const consoleFunction = {
  name: 'console',
  options: {
    methods: ['GET', 'HEAD'] as Array<'GET' | 'HEAD'>,
    route: 'console/{*path}',
    authLevel: 'anonymous' as const,
    handler: consoleHandler,
  },
};
