/**
 * The local host: the HTTP side (http-side.ts), the analysis queue drained from Azurite
 * (queue-worker.ts) and the timer functions fired at their schedules (timers.ts), so the handler
 * code that runs in Azure runs here unchanged. This module assembles them and closes them in order.
 */
import type { AddressInfo } from 'node:net';
import { type CreateServicesOptions, createServices } from '../shared/app/create-services.js';
import { routes as defaultRoutes } from '../shared/app/routes.js';
import type { AppServices } from '../shared/app/services.js';
import { type TimerKind, timerFunctions } from '../shared/app/timer-functions.js';
import type { AppConfig } from '../shared/config/index.js';
import { consoleConfig } from '../shared/console/config.js';
import type { RouteDefinition } from '../shared/http/route.js';
import { Router } from '../shared/http/router.js';
import type { RequestServer } from '../shared/http/serve.js';
import { createHttpSide } from './http-side.js';
import { type QueueWorker, type QueueWorkerOptions, startQueueWorker } from './queue-worker.js';
import { startTimers } from './timers.js';

export interface LocalHostOptions {
  config: AppConfig;
  /** Use these services instead of creating them (they are then not closed by the host). */
  services?: AppServices;
  servicesOptions?: CreateServicesOptions;
  routes?: RouteDefinition[];
  port?: number;
  host?: string;
  /** Drain the analysis queue (default true). */
  queueWorker?: boolean | QueueWorkerOptions;
  /** Fire the weekly timer at its schedule (default true when WeeklyAnalysis__Enabled). */
  weeklyTimer?: boolean;
  /** Fire the export import timer at CostExports__Schedule (default true when a container is set). */
  exportTimer?: boolean;
  /** Fire the metrics housekeeping timer at its schedule (default true). */
  metricsTimer?: boolean;
  /** Send the notification outbox at the notification timer's schedule (default true). */
  notifier?: boolean;
  /** Run the metrics silence check every minute (default true unless Metrics__SilenceAfterMinutes=0). */
  silenceTimer?: boolean;
}

export interface LocalHost {
  url: string;
  port: number;
  services: AppServices;
  worker?: QueueWorker;
  close(): Promise<void>;
}

/** Which timers the options turn on. The job sweeper is left out: each engine sweeps on its own interval. */
function timersWanted(options: LocalHostOptions): Record<TimerKind, boolean> {
  return {
    weekly: options.weeklyTimer ?? true,
    exports: options.exportTimer ?? true,
    sweep: false,
    housekeeping: options.metricsTimer ?? true,
    silence: options.silenceTimer ?? true,
    notifications: options.notifier ?? true,
  };
}

export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const ownsServices = !options.services;
  const services = options.services ?? (await createServices(options.config, options.servicesOptions));
  const requests: RequestServer = {
    router: new Router(options.routes ?? defaultRoutes),
    log: services.log,
    errors: services.errors,
    boot: () => services,
    services: async () => services,
  };
  const http = createHttpSide(services, requests, consoleConfig(services.config.auth));
  const { server } = http;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const workerOptions = options.queueWorker ?? true;
  const worker = workerOptions
    ? startQueueWorker(services, typeof workerOptions === 'object' ? workerOptions : {})
    : undefined;
  const wanted = timersWanted(options);
  const timers = startTimers(
    services,
    timerFunctions(services.config).filter((t) => wanted[t.kind]),
  );

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    services,
    worker,
    async close() {
      await timers.stop();
      await http.close();
      await worker?.stop();
      if (ownsServices) await services.close();
    },
  };
}
