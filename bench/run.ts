// npm run bench [-- name ...]: runs the benchmarks one after another, each in its own process so
// that one's memory does not colour another's. Names: platform, auth, analysis, read, agent, package,
// quota, hostile, anomalies, import.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const BENCHES: Record<string, string[]> = {
  platform: ['bench/platform.ts'],
  auth: ['bench/auth-login.ts'],
  analysis: ['bench/finops-analysis.ts'],
  read: ['bench/finops-read.ts'],
  agent: ['agent/bench/cycle.ts'],
  package: ['bench/package.ts'],
  quota: ['bench/finops-quota.ts'],
  hostile: ['bench/hostile-memory.ts'],
  anomalies: ['bench/anomalies.ts'],
  import: ['bench/cost-import.ts'],
};
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(BENCHES);
let failed = 0;
for (const name of wanted) {
  const files = BENCHES[name];
  if (!files) {
    console.error(`unknown bench "${name}"; known: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  for (const file of files) {
    if (!existsSync(`${root}/${file}`)) {
      console.log(`\n== ${name}: ${file} not present, skipped`);
      continue;
    }
    console.log(`\n== ${name}: ${file}`);
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', file], {
      cwd: root,
      stdio: 'inherit',
    });
    if (r.status !== 0) failed++;
  }
}
process.exit(failed ? 1 : 0);
