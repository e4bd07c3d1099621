import type { app as azureApp, HttpRequest, InvocationContext } from '@azure/functions';
import type { AppServices } from '../shared/app/services.js';
import {
  jobSweepTimerTrigger,
  notificationTimerTrigger,
  queueTrigger,
  weeklyTimerTrigger,
} from '../shared/app/triggers.js';
import type { AppConfig } from '../shared/config/index.js';
import { dispatchRoute, errorResponse, unmatchedResponse } from '../shared/http/dispatch.js';
import { fullPath, type RouteDefinition, type Service } from '../shared/http/route.js';
import { Router } from '../shared/http/router.js';
import { deliverDue } from '../shared/notify/outbox.js';

type App = Pick<typeof azureApp, 'http' | 'storageQueue' | 'timer'>;

/**
 * Registers the route table, the queue trigger and the weekly timer with the Functions host. Thin
 * by design: every handler goes through dispatchRoute, as on the local host.
 */
export function registerFunctions(
  app: App,
  config: AppConfig,
  routes: RouteDefinition[],
  services: () => Promise<AppServices>,
): void {
  const router = new Router(routes);
  for (const route of routes) {
    app.http(route.name, {
      methods: [route.method],
      route: fullPath(route),
      authLevel: 'anonymous',
      handler: async (request: HttpRequest, context: InvocationContext) => {
        try {
          return await dispatchRoute(await services(), route, request.params, request, context);
        } catch (error) {
          return errorResponse(error, request, context);
        }
      },
    });
  }
  // Lowest-precedence catch-alls answer preflight, 404 and 405 in problem+json, as locally.
  for (const service of ['auth', 'finops'] as Service[]) {
    app.http(`${service}-unmatched`, {
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'],
      route: `${service}/api/{*rest}`,
      authLevel: 'anonymous',
      handler: async (request: HttpRequest, context: InvocationContext) => {
        const s = await services();
        const match = router.match(
          request.method === 'OPTIONS' ? 'GET' : request.method,
          new URL(request.url).pathname,
        );
        if (match.kind === 'match') {
          if (request.method === 'OPTIONS') {
            return unmatchedResponse(
              s,
              { kind: 'method-not-allowed', allow: [match.route.method] },
              request,
              context,
            );
          }
          return dispatchRoute(s, match.route, match.params, request, context);
        }
        return unmatchedResponse(s, match, request, context);
      },
    });
  }
  const queue = queueTrigger(config);
  app.storageQueue(queue.name, {
    queueName: queue.queueName,
    connection: queue.connection,
    handler: async (message: unknown, context: InvocationContext) =>
      (await services()).finops.handleQueueMessage(message, context),
  });
  const timer = weeklyTimerTrigger(config);
  if (timer) {
    app.timer(timer.name, {
      schedule: timer.schedule,
      runOnStartup: false,
      handler: async (tick, context) => (await services()).finops.handleWeeklyTimer(tick, context),
    });
  }
  const sweeper = jobSweepTimerTrigger();
  app.timer(sweeper.name, {
    schedule: sweeper.schedule,
    runOnStartup: false,
    handler: async () => {
      await (await services()).finops.engine.sweepJobs();
    },
  });
  const outbox = notificationTimerTrigger(config);
  app.timer(outbox.name, {
    schedule: outbox.schedule,
    runOnStartup: false,
    handler: async () => {
      const s = await services();
      await deliverDue({
        prisma: s.prisma,
        mailer: s.auth.mailer,
        log: s.log,
        maxAttempts: s.config.finops.Notifications__MaxAttempts,
      });
    },
  });
}
