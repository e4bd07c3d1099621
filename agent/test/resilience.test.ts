import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundPort, HealthState, startHealthServer } from '../src/health.js';
import { IngestClient } from '../src/ingest.js';
import { createLogger } from '../src/logger.js';
import { runLoop } from '../src/loop.js';
import { startFakeIngest } from './fakes/ingest-server.js';
import { sampleCluster } from './fixtures.js';
import { bodies, type Harness, harness, type LogLine } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  h = undefined;
});

function memoryLogger(): { log: ReturnType<typeof createLogger>; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { log: createLogger('debug', sink), lines };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const pod = {
  clusterName: 'c',
  namespace: 'n',
  pod: 'p',
  container: 'c',
  cpuUsageCores: 0,
  cpuLimitCores: null,
  memoryUsageBytes: 0,
  memoryLimitBytes: null,
  nodeName: null,
  podState: 'Running',
  restartCount: 0,
  podAge: 1,
};

describe('ingest client', () => {
  it('retries a post that never reached the server (connection refused)', async () => {
    const port = await freePort();
    const { log } = memoryLogger();
    const client = new IngestClient(
      `http://127.0.0.1:${port}/metrics`,
      { concurrency: 2, timeoutMs: 2000 },
      log,
    );
    const late = new Promise<Awaited<ReturnType<typeof startFakeIngest>>>((resolve) =>
      setTimeout(() => resolve(startFakeIngest({ port })), 100),
    );
    await client.send('pod', pod);
    await client.flush();
    const ingest = await late;
    expect(client.takeStats().posted.pod).toBe(1);
    expect(ingest.accepted).toHaveLength(1);
    await client.close();
    await ingest.close();
  });

  it('does not retry a post that timed out, since the server may have stored it', async () => {
    const ingest = await startFakeIngest({ hangOnce: new Set(['/api/metrics/pod']) });
    const { log } = memoryLogger();
    const client = new IngestClient(ingest.url, { concurrency: 2, timeoutMs: 300 }, log);
    await client.send('pod', pod);
    await client.send('pod', { ...pod, pod: 'q' });
    await client.flush();
    const stats = client.takeStats();
    expect(stats.failed.pod).toBe(1);
    expect(stats.posted.pod).toBe(1);
    expect(ingest.attempts).toHaveLength(2);
    await client.close();
    await ingest.close();
  });

  it('does not retry a post the ingest API answered with 500', async () => {
    h = await harness(sampleCluster(), {}, { failing: new Set(['/api/metrics/node']) });
    const summary = await h.agent.runOnce();
    expect(summary.failed.node).toBe(3);
    expect(h.ingest.attempts.filter((a) => a.path === '/api/metrics/node')).toHaveLength(3);
  });

  it('keeps at most POST_CONCURRENCY posts in flight against a slow ingest API', async () => {
    h = await harness(sampleCluster(), { POST_CONCURRENCY: '2' }, { slowMs: { '/api/metrics/pod': 60 } });
    const summary = await h.agent.runOnce();
    expect(summary.posted.pod).toBe(6);
    expect(h.ingest.maxInFlight).toBe(2);
    expect(h.ingest.violations).toEqual([]);
  });

  it('skips the whole cycle, reading nothing from Kubernetes, while the ingest API is unreachable', async () => {
    const port = await freePort();
    h = await harness(sampleCluster(), { COLLECT_LOGS: 'true' }, {}, (config) => {
      config.metricsApiUrl = `http://127.0.0.1:${port}/metrics`;
    });
    const summary = await h.agent.runOnce();
    expect(summary).toMatchObject({ ingestDown: true, degraded: false });
    expect(summary.posted).toEqual({ pod: 0, log: 0, node: 0, pvc: 0, event: 0 });
    expect(h.kube.requests).toEqual([]);
    expect(h.logs.some((l) => l.msg.includes('ingest API unreachable; cycle skipped'))).toBe(true);
  });

  it('stops reading container logs as soon as the ingest API goes down during a cycle', async () => {
    const port = await freePort();
    const ingest = await startFakeIngest({ port, validate: false });
    const cluster = sampleCluster();
    // Log reads are slow, so the outage starts while most of them are still queued.
    cluster.logDelayMs = 150;
    h = await harness(cluster, { COLLECT_LOGS: 'true', LOG_CONCURRENCY: '1' }, {}, (config) => {
      config.metricsApiUrl = ingest.url;
    });
    const cycle = h.agent.runOnce();
    const kube = h.kube;
    // The outage starts once the first log read is under way (not after a guessed delay).
    await vi.waitFor(() => expect(kube.requests.some((r) => r.path.endsWith('/log'))).toBe(true), {
      timeout: 10_000,
      interval: 5,
    });
    await ingest.close();
    const summary = await cycle;
    expect(summary.ingestDown).toBe(true);
    // 5 running containers would be read. Read: the one in flight when the API went away, and the next,
    // which starts while the first one's post is still connecting; then the refused connection stops them.
    expect(h.kube.requests.filter((r) => r.path.endsWith('/log')).length).toBeLessThanOrEqual(2);
  });

  it('marks the cycle degraded when the API server is unreachable', async () => {
    h = await harness(sampleCluster());
    await h.kube.close();
    const summary = await h.agent.runOnce();
    expect(summary.degraded).toBe(true);
    expect(summary.kubeErrors).toBeGreaterThan(0);
  });
});

describe('startup probe', () => {
  it('says METRICS_API_URL probably lacks the route prefix when /api/Version answers 404', async () => {
    h = await harness(sampleCluster(), {}, {}, (config) => {
      config.metricsApiUrl = config.metricsApiUrl.replace(/\/metrics$/, '');
    });
    await h.agent.probeIngest();
    const line = h.logs.find((l) => l.msg.includes('route prefix'));
    expect(line).toMatchObject({ level: 'error', status: 404 });
    expect(line?.msg).toContain('/metrics');
  });

  it('logs the ingest API version when the URL is right', async () => {
    h = await harness(sampleCluster());
    await h.agent.probeIngest();
    expect(h.logs.find((l) => l.msg === 'ingest API reachable')).toMatchObject({ version: '1.0.0.0' });
  });
});

describe('collection loop', () => {
  // The loop's waits run on fake timers: every gap below is exact, whatever the machine's load.
  it('never overlaps cycles, says when one overran, and stops on abort', async () => {
    vi.useFakeTimers();
    const { log, lines } = memoryLogger();
    const controller = new AbortController();
    let running = 0;
    let maxRunning = 0;
    const starts: number[] = [];
    const loop = runLoop(
      async () => {
        starts.push(Date.now());
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, starts.length === 1 ? 80 : 5));
        running--;
        if (starts.length === 3) controller.abort();
        return { degraded: false };
      },
      { intervalMs: 40 },
      log,
      controller.signal,
    );
    await vi.runAllTimersAsync();
    await loop;
    expect(maxRunning).toBe(1);
    expect(starts).toHaveLength(3);
    expect(lines.some((l) => l.level === 'warn' && l.msg.includes('longer than the interval'))).toBe(true);
    const [a = 0, b = 0, c = 0] = starts;
    // The 80 ms cycle overran the 40 ms interval: the next starts as it ends, then one interval on.
    expect([b - a, c - b]).toEqual([80, 40]);
  });

  it('backs off exponentially while degraded and resets once healthy', async () => {
    vi.useFakeTimers();
    const { log } = memoryLogger();
    const controller = new AbortController();
    const starts: number[] = [];
    const loop = runLoop(
      async () => {
        starts.push(Date.now());
        if (starts.length === 5) controller.abort();
        return { degraded: starts.length <= 3 };
      },
      { intervalMs: 20, maxBackoffMs: 1000 },
      log,
      controller.signal,
    );
    await vi.runAllTimersAsync();
    await loop;
    const gaps = starts.slice(1).map((t, i) => t - (starts[i] ?? 0));
    // 20 ms interval doubled per degraded cycle: 40, 80, 160, then back to 20.
    expect(gaps).toEqual([40, 80, 160, 20]);
  });

  it('does not back off while only the ingest API is down', async () => {
    vi.useFakeTimers();
    const { log, lines } = memoryLogger();
    const controller = new AbortController();
    const starts: number[] = [];
    const loop = runLoop(
      async () => {
        starts.push(Date.now());
        if (starts.length === 4) controller.abort();
        return { degraded: false, ingestDown: true };
      },
      { intervalMs: 100, maxBackoffMs: 10_000 },
      log,
      controller.signal,
    );
    await vi.runAllTimersAsync();
    await loop;
    const gaps = starts.slice(1).map((t, i) => t - (starts[i] ?? t));
    // An exponential back-off would wait 200, 400, 800 ms.
    expect(gaps).toEqual([100, 100, 100]);
    expect(lines.filter((l) => l.msg.includes('backing off'))).toEqual([]);
  });

  it('posts again within one interval of the ingest API coming back, with no log reads while it was away', async () => {
    const port = await freePort();
    h = await harness(
      sampleCluster(),
      { METRICS_COLLECTION_INTERVAL_SECONDS: '1', COLLECT_LOGS: 'true' },
      {},
      (config) => {
        config.metricsApiUrl = `http://127.0.0.1:${port}/metrics`;
      },
    );
    const controller = new AbortController();
    const loop = h.agent.run(controller.signal);
    const skipped = () => (h?.logs ?? []).filter((l) => l.msg.startsWith('ingest API unreachable')).length;
    // Three skipped cycles: an exponential back-off would now wait 8 s. (How long the loop waits
    // between cycles is the loop tests' business above, on fake timers; here: what the agent does.)
    await vi.waitFor(() => expect(skipped()).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 20 });
    const skippedWhileDown = skipped();
    const readsWhileDown = h.kube.requests.length;
    const ingest = await startFakeIngest({ port });
    try {
      await vi.waitFor(() => expect(ingest.accepted.length).toBeGreaterThan(0), {
        timeout: 10_000,
        interval: 10,
      });
      expect(readsWhileDown).toBe(0);
      // The agent never backed off for the ingest API, and posted in the first cycle that began
      // after it came back (at most one cycle was already under way, skipped, when it did).
      expect(h.logs.filter((l) => l.msg.includes('backing off'))).toEqual([]);
      expect(skipped() - skippedWhileDown).toBeLessThanOrEqual(1);
    } finally {
      controller.abort();
      await loop;
      await ingest.close();
    }
  });

  it('survives a cycle that throws', async () => {
    const { log, lines } = memoryLogger();
    const controller = new AbortController();
    let n = 0;
    await runLoop(
      async () => {
        n++;
        if (n === 1) throw new Error('boom');
        controller.abort();
        return { degraded: false };
      },
      { intervalMs: 1, maxBackoffMs: 1 },
      log,
      controller.signal,
    );
    expect(n).toBe(2);
    expect(lines.some((l) => l.level === 'error' && l.msg === 'cycle failed')).toBe(true);
  });

  it('runs the real agent cycle after cycle on the interval', async () => {
    h = await harness(sampleCluster(), { METRICS_COLLECTION_INTERVAL_SECONDS: '1' });
    const controller = new AbortController();
    const health = new HealthState(60_000);
    const loop = h.agent.run(controller.signal, health);
    while (health.completedCycles < 1) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await loop;
    expect(bodies(h.ingest, '/api/metrics/node')).toHaveLength(3);
  });
});

describe('health endpoints', () => {
  it('answers /healthz at once and /readyz only after the first cycle, until shutdown', async () => {
    const state = new HealthState(1000);
    const server = await startHealthServer(state, 0);
    const base = `http://127.0.0.1:${boundPort(server)}`;
    const status = async (path: string): Promise<number> => (await fetch(base + path)).status;
    expect(await status('/healthz')).toBe(200);
    expect(await status('/readyz')).toBe(503);
    state.cycleStarted();
    state.cycleEnded();
    expect(await status('/readyz')).toBe(200);
    state.stopping = true;
    expect(await status('/readyz')).toBe(503);
    expect(await status('/nope')).toBe(404);
    server.close();
  });

  it('shows in the /healthz body how many batches are buffered and how many were dropped', async () => {
    const state = new HealthState(60_000);
    const server = await startHealthServer(state, 0);
    state.ingest = () => ({ mode: 'batch', buffered: { batches: 2 }, dropped: { batches: 3, records: 27 } });
    const res = await fetch(`http://127.0.0.1:${boundPort(server)}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      completedCycles: 0,
      ingest: { mode: 'batch', buffered: { batches: 2 }, dropped: { batches: 3, records: 27 } },
    });
    server.close();
  });

  it('fails liveness when a cycle is stuck', () => {
    const state = new HealthState(-1);
    state.cycleStarted();
    expect(state.live).toBe(false);
  });
});
