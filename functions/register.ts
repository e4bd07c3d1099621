import type { app as azureApp, HttpRequest, InvocationContext } from '@azure/functions';
import type { Startup } from '../shared/app/startup.js';
import { timerFunctions } from '../shared/app/timer-functions.js';
import { queueTrigger } from '../shared/app/triggers.js';
import { consoleFunction } from '../shared/console/function.js';
import type { RouteDefinition, Service } from '../shared/http/route.js';
import { Router } from '../shared/http/router.js';
import { serveRequest } from '../shared/http/serve.js';
import { withInvocationScope } from '../shared/observability/invocation-scope.js';
import type { Logger } from '../shared/observability/logger.js';

type App = Pick<typeof azureApp, 'http' | 'storageQueue' | 'timer'>;

/** Every method a client may send; the router answers 405 (or a preflight) for the ones a path lacks. */
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;

/**
 * One catch-all HTTP function per service, whose handler runs our router. The Functions host
 * tries HTTP functions in the order of their names and takes the first whose template matches
 * (it does not rank `AnalysisRuns/latest` above `AnalysisRuns/{id}` as ASP.NET Core would), so a
 * function per route would route by the accident of naming. With one template per service, no
 * two registrations can match the same path and the route table decides, as on the local host.
 */
export function registerFunctions(app: App, startup: Startup, routes: RouteDefinition[], log: Logger): void {
  const router = new Router(routes);
  const server = {
    router,
    log,
    get errors() {
      return startup.errors();
    },
    boot: () => {
      const config = startup.config();
      return config ? { config, log, errors: startup.errors() } : undefined;
    },
    services: () => startup.services(),
  };
  for (const service of ['auth', 'finops', 'metrics'] as Service[]) {
    app.http(`${service}-api`, {
      methods: [...METHODS],
      route: `${service}/api/{*path}`,
      authLevel: 'anonymous',
      handler: (request: HttpRequest, context: InvocationContext) => serveRequest(server, request, context),
    });
  }
  const consoleFn = consoleFunction(() => startup.config());
  app.http(consoleFn.name, consoleFn.options);
  // Trigger bindings need the settings (queue name, schedule). With invalid settings the HTTP
  // functions still answer 503 and the log names the setting; fixing it restarts the app.
  const config = startup.config();
  if (!config) return;
  const queue = queueTrigger(config);
  app.storageQueue(queue.name, {
    queueName: queue.queueName,
    connection: queue.connection,
    handler: (message: unknown, context: InvocationContext) =>
      withInvocationScope({ invocationId: context.invocationId }, async () =>
        (await startup.services()).finops.handleQueueMessage(message, context),
      ),
  });
  for (const t of timerFunctions(config)) {
    app.timer(t.name, {
      schedule: t.schedule,
      runOnStartup: false,
      handler: (tick, context) =>
        withInvocationScope({ invocationId: context.invocationId }, async () => {
          await t.run(await startup.services(), tick, context);
        }),
    });
  }
}
