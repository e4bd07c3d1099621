// npm run bench [-- name ...]: runs the benchmarks one after another, each in its own process so
// that one's memory does not colour another's. Names: platform, auth, analysis, analysis-scale, read, agent,
// package, quota, hostile, anomalies, import, metrics, metrics-clickhouse, allocation, console.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// Each entry: a file and its arguments, run in its own process.
const BENCHES: Record<string, string[]> = {
  platform: ['bench/platform.ts'],
  auth: ['bench/auth-login.ts'],
  // The ClickHouse metrics store on chDB (ClickHouse in-process): write rate, bytes per sample.
  'metrics-clickhouse': ['bench/metrics-clickhouse.ts'],
  analysis: ['bench/finops-analysis.ts'],
  // How the analysis's peak RSS grows with the subscription: 2x and 4x the 10,000 resources.
  'analysis-scale': [
    'bench/finops-analysis.ts --resources 20000',
    'bench/finops-analysis.ts --resources 40000',
  ],
  read: ['bench/finops-read.ts'],
  agent: ['agent/bench/cycle.ts'],
  package: ['bench/package.ts'],
  quota: ['bench/finops-quota.ts'],
  hostile: ['bench/hostile-memory.ts'],
  anomalies: ['bench/anomalies.ts'],
  import: ['bench/cost-import.ts'],
  metrics: ['bench/metrics.ts'],
  'metrics-pg-cost': ['bench/metrics-pg-cost.ts'],
  allocation: ['bench/allocation.ts', 'bench/allocation-postgres.ts', 'bench/allocation-clickhouse.ts'],
  // The console's first page in Chromium with 50 analyses stored: time to usable and to filled.
  console: ['bench/console.ts'],
};
// analysis-scale (minutes, and GBs at 4x) runs only when named.
// Arguments after a second `--` go to every bench named (`npm run bench -- metrics -- --containers 600`).
const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const names = split < 0 ? argv : argv.slice(0, split);
const passed = split < 0 ? [] : argv.slice(split + 1);
const wanted = names.length ? names : Object.keys(BENCHES).filter((n) => n !== 'analysis-scale');
let failed = 0;
for (const name of wanted) {
  const files = BENCHES[name];
  if (!files) {
    console.error(`unknown bench "${name}"; known: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  for (const entry of files) {
    const [file = '', ...args] = entry.split(' ');
    if (!existsSync(`${root}/${file}`)) {
      console.log(`\n== ${name}: ${file} not present, skipped`);
      continue;
    }
    console.log(`\n== ${name}: ${entry}`);
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', file, ...args, ...passed], {
      cwd: root,
      stdio: 'inherit',
    });
    if (r.status !== 0) failed++;
  }
}
process.exit(failed ? 1 : 0);
