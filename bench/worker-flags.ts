import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
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

/**
 * Runs the bench `bench/<name>.ts` again as a deployed host runs: from an esbuild bundle made with
 * the Functions bundle's options (scripts/package.ts), in a child Node with the worker's flags,
 * unless this process is that child; exits with the child's status. tsx keeps every module's
 * source and transform in memory (~75 MB of RSS at rest, which no deployed host carries), so a
 * bench whose figures include the host's memory measures the bundle. BENCH_UNBUNDLED=1 runs it
 * under tsx (with the worker's flags still). `stay(argv)` keeps this process for other work.
 */
export async function rerunBundled(
  name: string,
  root: string,
  stay: (argv: string[]) => boolean = () => false,
): Promise<void> {
  if (process.env.FINWATCH_BENCH_WORKER_FLAGS === '1' || stay(process.argv)) return;
  if (process.env.BENCH_UNBUNDLED) {
    rerunWithWorkerFlags(new URL(`./${name}.ts`, import.meta.url).href);
    return;
  }
  // A specifier esbuild cannot follow: the bundle must not take in the packaging script, which
  // brings the console's build tools (vite) with it. Only this unbundled parent runs it.
  const packaging = '../scripts/package.js';
  const { bundleEsm } = (await import(packaging)) as typeof import('../scripts/package.js');
  const outdir = `${root}/dist/bench`;
  await bundleEsm({ [name]: `bench/${name}.ts` }, outdir, { extension: '.mjs', minify: false });
  // Azurite's guard is a script dev/azurite.ts runs beside itself, which in a bundle is this folder.
  copyFileSync(`${root}/dev/azurite-guard.mjs`, `${outdir}/azurite-guard.mjs`);
  const r = spawnSync(
    process.execPath,
    [
      ...workerNodeArguments(),
      ...process.execArgv.filter((a) => a !== 'tsx' && a !== '--import'),
      `${outdir}/${name}.mjs`,
      ...process.argv.slice(2),
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        FINWATCH_BENCH_WORKER_FLAGS: '1',
        FINWATCH_BENCH_BUNDLED: '1',
        FINWATCH_BENCH_ROOT: root,
      },
    },
  );
  process.exit(r.status ?? 1);
}
