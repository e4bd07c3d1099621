import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { AppConfig } from '../config/index.js';
import { consoleConfig } from './config.js';
import { defaultConsoleDir, serveConsole } from './static.js';

/** The console's catch-all function (`console/{*path}`): its files and settings, without the services. */
export function consoleHandler(
  request: HttpRequest,
  config: () => AppConfig | undefined = () => undefined,
): Promise<HttpResponseInit> {
  const url = new URL(request.url);
  const settings = config();
  return serveConsole(
    {
      method: request.method,
      pathname: url.pathname,
      acceptEncoding: request.headers.get('accept-encoding'),
    },
    defaultConsoleDir(),
    settings ? consoleConfig(settings.auth) : undefined,
  );
}

/** The registration the Functions entry makes for the console (GET and HEAD below /console). */
export function consoleFunction(config: () => AppConfig | undefined) {
  return {
    name: 'console',
    options: {
      methods: ['GET', 'HEAD'] as Array<'GET' | 'HEAD'>,
      route: 'console/{*path}',
      authLevel: 'anonymous' as const,
      handler: (request: HttpRequest) => consoleHandler(request, config),
    },
  };
}
