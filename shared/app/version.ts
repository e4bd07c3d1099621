import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findVersion(): string {
  if (process.env.FINWATCH_VERSION) return process.env.FINWATCH_VERSION;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'finwatch' && pkg.version) return pkg.version;
    } catch {
      // keep walking up
    }
    dir = path.dirname(dir);
  }
  return '0.0.0';
}

/** The package version, read once: what GET /Version answers. */
export const APP_VERSION = findVersion();
