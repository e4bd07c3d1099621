import { readFileSync } from 'node:fs';

/**
 * The V8 flags the deployment gives the Functions host's Node worker (infra/worker-node-arguments.txt,
 * which the Bicep reads too), so a bench of the host measures the heap as deployed.
 */
export function workerNodeArguments(): string[] {
  return readFileSync(new URL('../infra/worker-node-arguments.txt', import.meta.url), 'utf8')
    .split(/\s+/)
    .filter(Boolean);
}
