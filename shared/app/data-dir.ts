import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/index.js';

const CAUSES: Record<string, string> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a file of that name is in the way',
  EISDIR: 'a folder is in the way',
  ELOOP: 'the path has a symbolic link loop',
  ENAMETOOLONG: 'the path is too long',
};

/** One line naming the folder and the cause, for an error met while preparing it. */
export function dataDirProblem(dir: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException)?.code ?? '';
  const cause = CAUSES[code] ?? (error as Error)?.message ?? String(error);
  return new ConfigError(
    `DATA_DIR ${path.resolve(dir)} cannot be written: ${cause}${code ? ` (${code})` : ''}.`,
  );
}

/**
 * A recursive mkdir on a read-only file system reports ENOENT; creating the first missing folder
 * on its own reports the real cause.
 */
function realCause(dir: string, error: unknown): unknown {
  if ((error as NodeJS.ErrnoException)?.code !== 'ENOENT') return error;
  let missing = path.resolve(dir);
  while (!existsSync(path.dirname(missing)) && path.dirname(missing) !== missing)
    missing = path.dirname(missing);
  try {
    mkdirSync(missing);
    rmdirSync(missing);
    return error;
  } catch (e) {
    return e;
  }
}

/**
 * Makes sure DATA_DIR exists and takes a write, before PGlite and Azurite start on it: both would
 * otherwise fail deep inside (a stack trace, or PGlite's bare "errno 51") on a read-only or full
 * disk. The probe is 64 KB and synced, so a disk with next to no room fails here too.
 */
export function checkDataDir(dir: string): void {
  const probe = path.join(dir, `.write-probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    const fd = openSync(probe, 'w');
    try {
      writeSync(fd, Buffer.alloc(64 * 1024));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw dataDirProblem(dir, realCause(dir, e));
  } finally {
    try {
      rmSync(probe, { force: true });
    } catch {
      // Nothing was written where nothing can be removed.
    }
  }
}
