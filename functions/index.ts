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

azf.app.setup({ enableHttpStream: false });
registerFunctions(azf.app, config, routes, () => {
  services ??= createServices(config).catch((error) => {
    services = undefined;
    throw error;
  });
  return services;
});
