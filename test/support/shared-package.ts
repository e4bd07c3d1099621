import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { buildPackage, type PackageResult } from '../../scripts/package.js';

const BUILD_TIMEOUT_MS = 180_000;

let shared: Promise<PackageResult> | undefined;

/**
 * The deployment package (buildPackage, as `npm run package` makes it), built at most once per test
 * run: each build costs 15-35 s of CPU and the package tests only read it. The first test file that
 * asks builds it; files in other workers wait for that build rather than start their own. Built
 * lazily, not in global setup, so a run without package tests does not pay for it.
 *
 * The package is shared: a test that changes it must copy `dir` to its own folder first.
 */
export function sharedPackage(): Promise<PackageResult> {
  shared ??= buildOrWait(inject('packageBuildRoot'));
  return shared;
}

async function buildOrWait(root: string): Promise<PackageResult> {
  const resultFile = path.join(root, 'result.json');
  const errorFile = path.join(root, 'error.txt');
  // mkdir is atomic: exactly one process gets to make the folder, and with it, to build.
  let builder = true;
  try {
    mkdirSync(path.join(root, 'building'), { recursive: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    builder = false;
  }
  if (builder) {
    try {
      const pkg = await buildPackage(path.join(root, 'out'));
      // Written then renamed, so a waiting process never reads half a file.
      writeFileSync(`${resultFile}.tmp`, JSON.stringify(pkg));
      renameSync(`${resultFile}.tmp`, resultFile);
      return pkg;
    } catch (error) {
      writeFileSync(errorFile, String((error as Error).stack ?? error));
      throw error;
    }
  }
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    const result = readIfThere(resultFile);
    if (result !== undefined) return JSON.parse(result) as PackageResult;
    const failure = readIfThere(errorFile);
    if (failure !== undefined)
      throw new Error(`the shared package build failed in another worker:\n${failure}`);
    if (Date.now() > deadline) throw new Error(`no shared package in ${root} after ${BUILD_TIMEOUT_MS} ms`);
    await sleep(100);
  }
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
