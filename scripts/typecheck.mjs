// `npm run typecheck`: the app's, the agent's and the console's type checks, in two lanes at once.
// Each tsc runs on one core; one after another, the app's (about three quarters of the time) left
// the second core idle. The app's check runs in one lane, the agent's then the console's in the
// other. Each check's output is printed whole when it ends; the exit code is the first failure's.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc', { paths: [root] });

const lanes = [
  [['-p', 'tsconfig.json', '--noEmit']],
  [
    ['-p', 'agent/tsconfig.json', '--noEmit'],
    ['-p', 'web/tsconfig.json'],
  ],
];

function check(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', (error) => resolve({ args, code: 1, out: String(error) }));
    child.on('close', (code) => resolve({ args, code: code ?? 1, out }));
  });
}

let failed = 0;
await Promise.all(
  lanes.map(async (lane) => {
    for (const args of lane) {
      const { code, out } = await check(args);
      if (out) process.stdout.write(`> tsc ${args.join(' ')}\n${out}`);
      if (code !== 0) {
        process.stdout.write(`> tsc ${args.join(' ')}: exit ${code}\n`);
        failed ||= code;
      }
    }
  }),
);
process.exit(failed);
