import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

// .ci/postgres.sh must work where PostgreSQL is not set up as on the development machines: Debian's
// package creates clusters that authenticate the Unix socket by peer and TCP by scram-sha-256, so
// the passwordless URL those machines use is refused. This reproduces such a cluster with initdb's
// own flags on a spare port and runs the script's start branch against it.
const root = new URL('../..', import.meta.url).pathname;
const canManageClusters =
  process.getuid?.() === 0 &&
  spawnSync('sh', ['-c', 'command -v pg_createcluster && command -v pg_dropcluster']).status === 0 &&
  existsSync('/usr/lib/postgresql');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const version = canManageClusters
  ? execFileSync('sh', ['-c', 'ls /usr/lib/postgresql | sort -V | tail -1']).toString().trim()
  : '';
const cluster = `finwatch_ci_proof_${process.pid}`;
let created = false;

afterAll(() => {
  if (created) spawnSync('pg_dropcluster', ['--stop', version, cluster], { stdio: 'ignore' });
});

describe.skipIf(!canManageClusters)('.ci/postgres.sh on a peer/scram cluster', () => {
  if (!canManageClusters) {
    console.warn('skipped: needs root and Debian pg_createcluster to create a throwaway cluster');
  }

  it('starts the stopped cluster, sets up a password login and prints a URL that reaches a test database', async () => {
    const port = await freePort();
    execFileSync(
      'pg_createcluster',
      [
        version,
        cluster,
        '--port',
        String(port),
        '--',
        '--auth-local',
        'peer',
        '--auth-host',
        'scram-sha-256',
      ],
      { stdio: 'ignore' },
    );
    created = true;

    const run = spawnSync('bash', ['.ci/postgres.sh'], {
      cwd: root,
      env: { ...process.env, FINWATCH_CI_PG_PORT: String(port) },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const url = run.stdout.trim().split('\n').at(-1) ?? '';
    expect(url).toMatch(new RegExp(`^postgresql://finwatch_ci:[0-9a-f]+@127\\.0\\.0\\.1:${port}/test$`));
    expect(run.stderr).toContain('passwordless login refused');

    // The passwordless URL really is refused by this cluster, and the printed one is accepted.
    const refused = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
    await expect(refused.connect()).rejects.toThrow(/password/i);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT current_database() AS db');
      expect(rows[0].db).toBe('test');
      await client.query('CREATE DATABASE finwatch_ci_proof_created');
    } finally {
      await client.end();
    }

    // A second run (CI re-run on the same machine) finds the server up and logs in again.
    const again = spawnSync('bash', ['.ci/postgres.sh'], {
      cwd: root,
      env: { ...process.env, FINWATCH_CI_PG_PORT: String(port) },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('starting PostgreSQL');
  });
});
