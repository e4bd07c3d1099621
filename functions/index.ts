// Azure Functions entry point (v4 programming model): configuration is read once at load, and the
// services (database, queue, modules) are created on the first invocation and reused.
import azf from '@azure/functions';
import { createServices } from '../shared/app/create-services.js';
import { routes } from '../shared/app/routes.js';
import type { AppServices } from '../shared/app/services.js';
import { loadConfig } from '../shared/config/index.js';
import { registerFunctions } from './register.js';

const config = loadConfig();
let services: Promise<AppServices> | undefined;

// Streamed answers (unpaged lists) must reach the client as they are produced; without this the
// worker buffers the whole body before handing it to the host.
azf.app.setup({ enableHttpStream: true });
registerFunctions(azf.app, config, routes, () => {
  services ??= createServices(config).catch((error) => {
    services = undefined;
    throw error;
  });
  return services;
});
