import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dataDirProblem } from '../../shared/app/data-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'finwatch-datadir-'));
const mounts: string[] = [];

/** A small tmpfs (read-only, or with room for almost nothing); needs root, as CI's container has. */
function tmpfs(name: string, options: string): string | undefined {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
    mounts.push(dir);
    return dir;
  } catch {
    return undefined;
  }
}

const canMount = process.getuid?.() === 0 && tmpfs('probe', 'size=16k') !== undefined;

/** `npm start` (dev/start.ts) with the given DATA_DIR: its exit code and what it printed. */
function start(dataDir: string) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'dev/start.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: dataDir, PORT: '0' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stderr: r.stderr.trim(), stdout: r.stdout.trim() };
}

afterAll(() => {
  for (const dir of mounts.reverse()) spawnSync('umount', [dir]);
  rmSync(work, { recursive: true, force: true });
});

// A read-only or full DATA_DIR gave a stack trace or PGlite's "errno 51".
describe('an unusable DATA_DIR stops startup with one line', () => {
  it('names the folder and the cause for each kind of failure', () => {
    const err = (code: string) => Object.assign(new Error(`${code}: boom`), { code });
    expect(dataDirProblem('/srv/data', err('EROFS')).message).toBe(
      'DATA_DIR /srv/data cannot be written: the file system is read-only (EROFS).',
    );
    expect(dataDirProblem('/srv/data', err('ENOSPC')).message).toBe(
      'DATA_DIR /srv/data cannot be written: the disk is full (ENOSPC).',
    );
  });

  it('exits non-zero with one line when a part of the path is a file', { timeout: 70_000 }, () => {
    const file = path.join(work, 'a-file');
    writeFileSync(file, 'x');
    const r = start(path.join(file, 'data'));
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toEqual([
      `finwatch cannot start: DATA_DIR ${path.join(file, 'data')} cannot be written: a part of the path is a file, not a folder (ENOTDIR).`,
    ]);
  });

  it.runIf(canMount)('exits non-zero with one line on a read-only file system', { timeout: 70_000 }, () => {
    const dir = tmpfs('ro', 'ro,size=64k')!;
    const r = start(path.join(dir, 'data'));
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toEqual([
      `finwatch cannot start: DATA_DIR ${path.join(dir, 'data')} cannot be written: the file system is read-only (EROFS).`,
    ]);
  });

  it.runIf(canMount)('exits non-zero with one line on a full disk', { timeout: 70_000 }, () => {
    const dir = tmpfs('full', 'size=64k')!;
    spawnSync('sh', ['-c', `cat /dev/zero > ${dir}/filler`]);
    const r = start(dir);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toEqual([
      `finwatch cannot start: DATA_DIR ${dir} cannot be written: the disk is full (ENOSPC).`,
    ]);
  });
});
