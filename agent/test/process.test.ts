import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startFakeIngest } from './fakes/ingest-server.js';
import { startFakeKube } from './fakes/kube-server.js';
import { sampleCluster } from './fixtures.js';
import type { LogLine } from './helpers.js';

const agentDir = fileURLToPath(new URL('..', import.meta.url));

interface Run {
  child: ChildProcess;
  lines: LogLine[];
  exit: Promise<{ code: number | null; at: number }>;
}

/** The real entry point, as `npm start -w agent` runs it. */
function startAgent(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: agentDir,
    env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', HEALTH_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as LogLine);
  });
  const exit = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, at: Date.now() })),
  );
  return { child, lines, exit };
}

const valid = {
  CLUSTER_NAME: 'c1',
  METRICS_API_URL: 'http://127.0.0.1:9/metrics',
  NAMESPACES_TO_WATCH: 'shop',
};

describe('agent process', () => {
  it.concurrent.each([
    [{ CLUSTER_NAME: '' }, 'CLUSTER_NAME', 'CLUSTER_NAME environment variable is required'],
    [
      { NAMESPACES_TO_WATCH: '' },
      'NAMESPACES_TO_WATCH',
      'NAMESPACES_TO_WATCH environment variable is required',
    ],
    [{ LOG_TAIL_LINES: 'ten' }, 'LOG_TAIL_LINES', 'whole number'],
    [{ LOG_LEVEL: 'Chatty' }, 'LOG_LEVEL', 'must be one of'],
  ])('exits 1 with one fatal line naming the variable for %j', async (override, variable, message) => {
    const run = startAgent({ ...valid, ...override });
    const { code } = await run.exit;
    expect(code).toBe(1);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toMatchObject({ level: 'fatal', variable });
    expect(run.lines[0]?.msg).toContain(message);
  });

  it('starts with a warning naming the variable for an interval of 0 or text, as existing Helm values hold', async () => {
    const run = startAgent({
      ...valid,
      METRICS_COLLECTION_INTERVAL_SECONDS: '0',
      COLLECT_LOGS: 'yes',
      LOG_LEVEL: 'Info',
    });
    await run.exit;
    // Past the settings: the line after the warning is about the (absent) Kubernetes configuration.
    expect(run.lines[0]).toMatchObject({ level: 'warn', variable: 'METRICS_COLLECTION_INTERVAL_SECONDS' });
    expect(run.lines.at(-1)).toMatchObject({
      level: 'fatal',
      msg: 'cannot load the Kubernetes configuration',
    });
  });

  it('exits 1 with a clear line when no Kubernetes configuration can be found', async () => {
    const run = startAgent(valid);
    const { code } = await run.exit;
    expect(code).toBe(1);
    expect(run.lines.at(-1)).toMatchObject({
      level: 'fatal',
      msg: 'cannot load the Kubernetes configuration',
    });
  });

  it('on SIGTERM finishes in-flight posts, starts no new work and exits 0 within 10 s', async () => {
    const kube = await startFakeKube(sampleCluster());
    const ingest = await startFakeIngest({ slowMs: { '/api/metrics/pod': 1500 } });
    const run = startAgent({
      ...valid,
      KUBECONFIG: kube.kubeconfig,
      METRICS_API_URL: ingest.url,
      NAMESPACES_TO_WATCH: 'shop,data',
      POST_CONCURRENCY: '3',
      INGEST_MODE: 'single',
    });
    try {
      const deadline = Date.now() + 15_000;
      while (ingest.attempts.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(ingest.attempts).toHaveLength(3);
      const sentAt = Date.now();
      run.child.kill('SIGTERM');
      const { code, at } = await run.exit;
      expect(code).toBe(0);
      expect(at - sentAt).toBeLessThan(10_000);
      // The three posts that were in flight completed; nothing new was started after the signal.
      expect(ingest.accepted).toHaveLength(3);
      expect(ingest.attempts).toHaveLength(3);
      expect(run.lines.map((l) => l.msg)).toContain('stopping: no new work, finishing in-flight posts');
      expect(run.lines.at(-1)?.msg).toBe('stopped');
    } finally {
      run.child.kill('SIGKILL');
      await Promise.all([kube.close(), ingest.close()]);
    }
  });
});
