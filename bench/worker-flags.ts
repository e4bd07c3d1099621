import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The V8 flags the deployment gives the Functions host's Node worker (infra/worker-node-arguments.txt,
 * which the Bicep reads too), so a bench of the host measures the heap as deployed.
 */
export function workerNodeArguments(): string[] {
  return readFileSync(new URL('../infra/worker-node-arguments.txt', import.meta.url), 'utf8')
    .split(/\s+/)
    .filter(Boolean);
}

/**
 * Runs the bench at `moduleUrl` again in a child Node with the worker's flags, unless this process is
 * that child, and exits with the child's status: the host then runs as deployed, so its memory and
 * CPU figures are the deployment's.
 */
export function rerunWithWorkerFlags(moduleUrl: string): void {
  if (process.env.FINWATCH_BENCH_WORKER_FLAGS === '1') return;
  const r = spawnSync(
    process.execPath,
    [...workerNodeArguments(), ...process.execArgv, fileURLToPath(moduleUrl), ...process.argv.slice(2)],
    { stdio: 'inherit', env: { ...process.env, FINWATCH_BENCH_WORKER_FLAGS: '1' } },
  );
  process.exit(r.status ?? 1);
}
