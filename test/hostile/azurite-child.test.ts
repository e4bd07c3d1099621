import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startAzurite } from '../../dev/azurite.js';
import { sleep } from '../auth/helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'finwatch-azurite-'));
const started: ChildProcess[] = [];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A separate host process running Azurite on `location`; resolves with both pids. */
async function parentWithAzurite(location: string): Promise<{ parent: ChildProcess; azuritePid: number }> {
  const parent = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/hostile/fixtures/azurite-parent.ts', location],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  started.push(parent);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    parent.stdout!.on('data', (d) => {
      out += String(d);
      if (out.includes('\n')) resolve(out.trim());
    });
    parent.once('exit', (code) => reject(new Error(`the parent exited (${code}) before Azurite started`)));
  });
  return { parent, azuritePid: Number(line) };
}

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

afterAll(() => {
  for (const p of started) if (p.exitCode === null) p.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

// A host killed with kill -9 (or by the OOM killer) left its Azurite running,
// and the next start ran a second Azurite on the same folder.
describe('the local Azurite child', () => {
  it('dies with its parent when the parent is killed with SIGKILL', { timeout: 60_000 }, async () => {
    const { parent, azuritePid } = await parentWithAzurite(path.join(work, 'killed'));
    expect(alive(azuritePid)).toBe(true);
    parent.kill('SIGKILL');
    await until('Azurite has exited', () => !alive(azuritePid));
  });

  it('refuses a folder a live host holds, and reclaims one whose host is dead', {
    timeout: 60_000,
  }, async () => {
    const location = path.join(work, 'shared');
    const { parent, azuritePid } = await parentWithAzurite(location);
    await expect(startAzurite({ location })).rejects.toThrow(
      new RegExp(`in use by another finwatch host \\(pid ${parent.pid}\\)`),
    );
    parent.kill('SIGKILL');
    await until('Azurite has exited', () => !alive(azuritePid));
    // The dead host's lock is stale: the next start takes the folder.
    const next = await startAzurite({ location });
    expect(alive(next.pid)).toBe(true);
    await next.stop();
    // A lock naming a pid that does not exist is stale too.
    writeFileSync(path.join(location, 'finwatch-azurite.pid'), '999999999');
    const again = await startAzurite({ location });
    await again.stop();
  });
});
