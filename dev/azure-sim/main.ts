/** Standalone simulator: `node --import tsx dev/azure-sim/main.ts [--port N] [--resources N] [--seed N]`. */
import { startAzureSimulator } from './server.js';

function arg(name: string): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : process.env[`AZURE_SIM_${name.toUpperCase()}`];
  return v === undefined ? undefined : Number(v);
}

const sim = await startAzureSimulator({
  port: arg('port') ?? 0,
  resourcesPerSubscription: arg('resources'),
  costPageSize: arg('page-size'),
  seed: arg('seed'),
});
process.stdout.write(`${sim.url}\n`);
process.stderr.write(
  `Azure simulator on ${sim.url} (self-signed TLS: trust dev/azure-sim/tls/sim-cert.pem; admin: ${sim.url}/_sim/stats)\n`,
);
const stop = () => {
  sim.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
