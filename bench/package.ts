// Package benchmark: the size of the deployment bundle and zip, and the cold import time of the
// bundle (process start to every function registered, under the recording Functions-worker
// stand-in) against importing the unbundled sources through tsx, same measure, in one run.
//   node --import tsx bench/package.ts        (BENCH_RUNS=5 by default)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildPackage } from '../scripts/package.js';
import { REPO_ROOT, runStub } from '../test/package/stub.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

async function coldImport(entry: string, tsx: boolean, cwd: string): Promise<number> {
  const result = await runStub(entry, { tsx, cwd });
  if (result.importError) throw new Error(result.importError);
  if (!result.functions.length) throw new Error(`${entry} registered nothing`);
  return result.readyMs;
}

async function main() {
  const outRoot = mkdtempSync(path.join(tmpdir(), 'finwatch-bench-package-'));
  try {
    const started = performance.now();
    const pkg = await buildPackage(outRoot);
    const buildMs = performance.now() - started;
    const sources = path.join(REPO_ROOT, 'functions', 'index.ts');

    // One unmeasured start of each warms the OS file cache (and tsx's transform cache).
    await coldImport(pkg.bundle, false, pkg.dir);
    await coldImport(sources, true, REPO_ROOT);
    const bundled: number[] = [];
    const unbundled: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bundled.push(await coldImport(pkg.bundle, false, pkg.dir));
      unbundled.push(await coldImport(sources, true, REPO_ROOT));
    }
    const b = median(bundled);
    const u = median(unbundled);
    const entryBytes = (await import('node:fs')).statSync(pkg.bundle).size;

    console.log(`\npackage bench (node ${process.version}, ${RUNS} runs each, median)`);
    console.log(`build (esbuild + copy + zip): ${Math.round(buildMs)} ms`);
    console.log(`bundle: ${mb(pkg.bundleBytes)} of .mjs (entry dist/index.mjs ${mb(entryBytes)})`);
    console.log(
      `zip:    ${mb(pkg.zipBytes)} (${pkg.files.length} files, wasm assets and externals included)`,
    );
    console.log(
      `cold import to registrations done: bundle ${b.toFixed(0)} ms  [${bundled.map((v) => v.toFixed(0)).join(', ')}]`,
    );
    console.log(
      `                                   sources via tsx ${u.toFixed(0)} ms  [${unbundled.map((v) => v.toFixed(0)).join(', ')}]`,
    );
    console.log(`ratio sources / bundle: ${(u / b).toFixed(1)}x`);
  } finally {
    rmSync(outRoot, { recursive: true, force: true });
  }
}

await main();
