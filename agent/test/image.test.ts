import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { startFakeIngest } from './fakes/ingest-server.js';
import { startFakeKube } from './fakes/kube-server.js';
import { sampleCluster } from './fixtures.js';

const agentDir = fileURLToPath(new URL('..', import.meta.url));

/** The image's final stage: agent/dist and agent/package.json under /app, and no node_modules anywhere. */
let app: string;
beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'agent-image-'));
  mkdirSync(join(app, 'agent'));
  execFileSync(process.execPath, ['build.mjs', join(app, 'agent', 'dist')], {
    cwd: agentDir,
    stdio: 'ignore',
  });
  cpSync(join(agentDir, 'package.json'), join(app, 'agent', 'package.json'));
}, 60_000);

function size(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((n, entry) => n + size(join(path, entry)), 0);
}

/** The image's CMD, run from the image's working directory. */
function runImageCmd(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const cmd = JSON.parse(
    /^CMD (\[.*\])$/m.exec(readFileSync(join(agentDir, 'Dockerfile'), 'utf8'))?.[1] ?? '[]',
  );
  const [, ...args] = cmd as string[];
  const child = spawn(process.execPath, args, {
    cwd: app,
    env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', HEALTH_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (c: Buffer) => {
    text += c.toString('utf8');
  });
  child.stderr?.on('data', (c: Buffer) => {
    text += c.toString('utf8');
  });
  return { child, output: () => text };
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

describe('image runtime tree', () => {
  it('is the bundle alone: no node_modules, under 8 MB', () => {
    expect(readdirSync(app).sort()).toEqual(['agent']);
    expect(readdirSync(join(app, 'agent')).sort()).toEqual(['dist', 'package.json']);
    expect(size(app)).toBeLessThan(8 * 1024 * 1024);
  });

  it('runs a full cycle without node_modules (kubeconfig through the lazily loaded client chunk)', async () => {
    const kube = await startFakeKube(sampleCluster());
    const ingest = await startFakeIngest();
    const run = runImageCmd({
      KUBECONFIG: kube.kubeconfig,
      CLUSTER_NAME: 'image',
      METRICS_API_URL: ingest.url,
      NAMESPACES_TO_WATCH: 'shop,data',
      COLLECT_LOGS: 'true',
    });
    try {
      await until(() => run.output().includes('cycle finished'), 15_000);
      expect(run.output()).toContain('cycle finished');
      expect(ingest.violations).toEqual([]);
      expect(ingest.accepted.filter((r) => r.path === '/api/metrics/node')).toHaveLength(3);
      expect(ingest.accepted.some((r) => r.path === '/api/metrics/pod/log')).toBe(true);
    } finally {
      run.child.kill('SIGKILL');
      await Promise.all([kube.close(), ingest.close()]);
    }
  });

  it('loads the Sentry chunk when SENTRY_DSN is set and reports an error line', async () => {
    const envelopes: string[] = [];
    const sentry = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        envelopes.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((resolve) => sentry.listen(0, '127.0.0.1', resolve));
    const kube = await startFakeKube(sampleCluster());
    const ingest = await startFakeIngest();
    const run = runImageCmd({
      KUBECONFIG: kube.kubeconfig,
      CLUSTER_NAME: 'image',
      // Without the /metrics prefix: /api/Version answers 404, which the agent logs as an error.
      METRICS_API_URL: ingest.origin,
      NAMESPACES_TO_WATCH: 'shop',
      SENTRY_DSN: `http://public@127.0.0.1:${(sentry.address() as AddressInfo).port}/1`,
    });
    try {
      await until(() => envelopes.some((e) => e.includes('route prefix')), 15_000);
      expect(envelopes.some((e) => e.includes('route prefix'))).toBe(true);
    } finally {
      run.child.kill('SIGKILL');
      sentry.closeAllConnections();
      await new Promise<void>((resolve) => sentry.close(() => resolve()));
      await Promise.all([kube.close(), ingest.close()]);
    }
  });
});
