import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm run admin` as an operator runs it on the folder `npm start` uses: always PGlite, whatever
// database the test hosts use, so this file stays out of the PostgreSQL pass (its two child
// processes, each starting PGlite, are half a minute of a run).
const OPERATOR = 'ops@corp.example';

function npmRunAdmin(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
      env: { ...process.env, ...env, ConnectionStrings__SqlConnectionString: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, out }));
  });
}

describe('npm run admin on the local PGlite data folder', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'finwatch-admin-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('grants in the folder npm start uses, and the grant is there for the next run', {
    timeout: 180_000,
  }, async () => {
    const granted = await npmRunAdmin(['grant', OPERATOR], { DATA_DIR: dataDir });
    expect(granted.out).toContain(`database: PGlite in ${path.join(dataDir, 'pglite')}`);
    expect(granted.out).toContain(`${OPERATOR} is an administrator (account created without a password)`);
    expect(granted.code).toBe(0);
    const listed = await npmRunAdmin(['list'], { DATA_DIR: dataDir });
    expect(listed.out).toContain(`${OPERATOR} (ops; no password; last sign-in never)`);
    expect(listed.code).toBe(0);
  });
});
