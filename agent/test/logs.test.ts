import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_RESEND_MS } from '../src/collectors/logs.js';
import type { Pod } from '../src/kube-types.js';
import { emptyCluster, startFakeKube, TOKEN } from './fakes/kube-server.js';
import { node, sampleCluster } from './fixtures.js';
import { bodies, type Harness, harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('pod logs', () => {
  it('posts the last LOG_TAIL_LINES lines of every running container and skips the others', async () => {
    h = await harness(sampleCluster(), { COLLECT_LOGS: 'true', LOG_TAIL_LINES: '10' });
    await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    const logs = bodies(h.ingest, '/api/metrics/pod/log');
    expect(logs.map((l) => `${l['pod']}/${l['container']}`).sort()).toEqual([
      'db-0/postgres',
      'db-0/proxy',
      'web-1/app',
      'web-1/sidecar',
    ]);
    const app = logs.find((l) => l['container'] === 'app');
    const expected = Array.from({ length: 10 }, (_, i) => `web-1/app line ${491 + i}\n`).join('');
    expect(app).toEqual({
      clusterName: 'test-cluster',
      namespace: 'shop',
      pod: 'web-1',
      container: 'app',
      logContent: expected,
    });
    const reads = h.kube.requests.filter((r) => r.path.endsWith('/log'));
    expect(
      reads.every((r) => r.query.get('tailLines') === '10' && r.query.get('limitBytes') === '262144'),
    ).toBe(true);
  });

  it('caps a log at LOG_MAX_BYTES even when the API server ignores limitBytes', async () => {
    const cluster = sampleCluster();
    cluster.ignoreLimitBytes = true;
    cluster.logs = () => 'x'.repeat(200_000);
    h = await harness(cluster, { COLLECT_LOGS: 'true', LOG_MAX_BYTES: '2048' });
    await h.agent.runOnce();
    const logs = bodies(h.ingest, '/api/metrics/pod/log');
    expect(logs).toHaveLength(4);
    expect(logs.every((l) => String(l['logContent']).length === 2048)).toBe(true);
  });

  it('reads every log when capped ones are cut off mid-answer', async () => {
    const cluster = sampleCluster();
    const web = cluster.pods.find((p) => p.metadata?.name === 'web-1');
    // 28 running containers in all: the log pool's connections are reused after a capped read closes one.
    for (let i = 0; i < 12; i++) {
      cluster.pods.push({
        ...structuredClone(web),
        metadata: { ...web?.metadata, name: `web-x${i}`, uid: `x${i}` },
      });
    }
    cluster.ignoreLimitBytes = true;
    // The 13 `app` logs are over the cap, so their reads are aborted while others are in flight.
    cluster.logs = (_ns, _pod, container) => (container === 'app' ? 'y'.repeat(200_000) : 'short line\n');
    h = await harness(cluster, { COLLECT_LOGS: 'true', LOG_MAX_BYTES: '2048' });
    const summary = await h.agent.runOnce();
    const logs = bodies(h.ingest, '/api/metrics/pod/log');
    expect(logs).toHaveLength(28);
    expect(logs.filter((l) => l['logContent'] === 'short line\n')).toHaveLength(15);
    expect(logs.filter((l) => String(l['logContent']).length === 2048)).toHaveLength(13);
    expect(summary.logReadErrors).toBe(0);
  });

  it('does not read the logs of containers on a NotReady node, and reads every other running one', async () => {
    const cluster = sampleCluster();
    const web = cluster.pods.find((p) => p.metadata?.name === 'web-1');
    // Running, as pods on a node that stopped answering stay until they are evicted.
    cluster.pods.push({
      ...structuredClone(web),
      metadata: { ...web?.metadata, name: 'web-on-b', uid: 'on-b' },
      spec: { ...structuredClone(web?.spec), nodeName: 'node-b' },
    });
    h = await harness(cluster, { COLLECT_LOGS: 'true' });
    await h.agent.runOnce();
    const reads = h.kube.requests.filter((r) => r.path.endsWith('/log')).map((r) => r.path.split('/')[6]);
    expect(reads).not.toContain('web-on-b');
    expect(new Set(reads)).toEqual(new Set(['web-1', 'db-0']));
    const logs = bodies(h.ingest, '/api/metrics/pod/log');
    expect(logs.map((l) => `${l['pod']}/${l['container']}`).sort()).toEqual([
      'db-0/postgres',
      'db-0/proxy',
      'web-1/app',
      'web-1/sidecar',
    ]);
    // Its metrics are still posted: only the log read is left out.
    expect(bodies(h.ingest, '/api/metrics/pod').some((b) => b['pod'] === 'web-on-b')).toBe(true);
  });

  it('keeps LOG_CONCURRENCY log reads in flight on an API server that answers one request per connection at a time', async () => {
    const cluster = emptyCluster();
    cluster.nodes = [node('node-1'), node('node-2')];
    cluster.pods = Array.from(
      { length: 40 },
      (_, i): Pod => ({
        metadata: {
          name: `p-${i}`,
          namespace: 'shop',
          uid: `p-${i}`,
          creationTimestamp: '2026-01-01T00:00:00Z',
        },
        spec: { nodeName: `node-${(i % 2) + 1}`, containers: [{ name: 'c' }] },
        status: {
          phase: 'Running',
          containerStatuses: [{ name: 'c', restartCount: 0, state: { running: {} } }],
        },
      }),
    );
    cluster.logs = () => 'line\n';
    // Each kubelet answer takes a while, as it does through the API server's proxy. Had the reads been
    // pipelined 4 deep over 2 connections, the fake (serving a connection's requests in turn, as Go does)
    // would have seen 2 at once.
    cluster.logDelayMs = 30;
    h = await harness(cluster, { COLLECT_LOGS: 'true', NAMESPACES_TO_WATCH: 'shop', LOG_CONCURRENCY: '8' });
    const summary = await h.agent.runOnce();
    expect(summary.posted.log).toBe(40);
    expect(h.kube.maxConcurrentLogReads).toBe(8);
  });

  it('posts each log as the API server sent it: non-ASCII text, quotes, backslashes, control characters, invalid bytes as U+FFFD', async () => {
    const cluster = sampleCluster();
    const sent = Buffer.concat([
      Buffer.from('café "quoted" back\\slash\ttab \u0001 ✓ 😀\n'),
      Buffer.from([0xff, 0xc3]),
      Buffer.from(' end\r\n'),
    ]);
    cluster.logs = (_ns, pod, container) => (pod === 'web-1' && container === 'app' ? sent : 'plain\n');
    h = await harness(cluster, { COLLECT_LOGS: 'true' });
    await h.agent.runOnce();
    expect(h.ingest.violations).toEqual([]);
    const logs = bodies(h.ingest, '/api/metrics/pod/log');
    expect(logs.find((l) => l['container'] === 'app')?.['logContent']).toBe(
      'café "quoted" back\\slash\ttab \u0001 ✓ 😀\n\ufffd\ufffd end\r\n',
    );
    expect(logs.filter((l) => l['logContent'] === 'plain\n')).toHaveLength(3);
  });

  it('does not post a log that is only whitespace, Unicode spaces included', async () => {
    const cluster = sampleCluster();
    const logs: Record<string, string | Buffer> = {
      'web-1/app': ' \n\t\r\n\v\f',
      'web-1/sidecar': '\u00a0\u2028\ufeff\n',
      'db-0/postgres': '\u00a0x\n',
      'db-0/proxy': Buffer.from([0x20, 0xff, 0x0a]),
    };
    cluster.logs = (_ns, pod, container) => logs[`${pod}/${container}`] ?? '';
    h = await harness(cluster, { COLLECT_LOGS: 'true' });
    await h.agent.runOnce();
    const posted = bodies(h.ingest, '/api/metrics/pod/log');
    expect(posted.map((l) => [`${l['pod']}/${l['container']}`, l['logContent']]).sort()).toEqual([
      ['db-0/postgres', '\u00a0x\n'],
      ['db-0/proxy', ' \ufffd\n'],
    ]);
  });

  it('reads at most LOG_CONCURRENCY logs at once', async () => {
    const cluster = sampleCluster();
    cluster.logDelayMs = 40;
    h = await harness(cluster, { COLLECT_LOGS: 'true', LOG_CONCURRENCY: '2' });
    await h.agent.runOnce();
    expect(bodies(h.ingest, '/api/metrics/pod/log')).toHaveLength(4);
    expect(h.kube.maxConcurrentLogReads).toBe(2);
  });

  it('reads no logs when COLLECT_LOGS is off', async () => {
    h = await harness(sampleCluster());
    await h.agent.runOnce();
    expect(h.kube.requests.some((r) => r.path.endsWith('/log'))).toBe(false);
    expect(bodies(h.ingest, '/api/metrics/pod/log')).toHaveLength(0);
  });
});

describe('fake API server', () => {
  it('answers pipelined requests on one connection one after another, as the Go HTTP server does', async () => {
    const cluster = sampleCluster();
    cluster.logDelayMs = 100;
    const kube = await startFakeKube(cluster);
    try {
      const read = `GET /api/v1/namespaces/shop/pods/web-1/log?container=app HTTP/1.1\r\nHost: fake\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`;
      const socket = connect(kube.port, kube.host);
      const started = performance.now();
      let received = '';
      await new Promise<void>((resolve, reject) => {
        socket.on('data', (chunk) => {
          received += chunk.toString('latin1');
          if (received.split('HTTP/1.1 200').length - 1 === 3) resolve();
        });
        socket.on('error', reject);
        socket.write(read + read + read);
      });
      socket.destroy();
      // Three reads sent at once, served in turn: never two at a time, about three delays in all.
      expect(kube.maxConcurrentLogReads).toBe(1);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      await kube.close();
    }
  });
});

describe('pod logs in batches', () => {
  const FAST = { backoffMs: [20, 40], refusedBackoffMs: 60_000 };
  const logPath = '/api/metrics/pod/log';

  it('sends a log again only when it changed, or after LOG_RESEND_MS; one-object posts send every log every cycle', async () => {
    const cluster = sampleCluster();
    const original = cluster.logs;
    let changed = '';
    cluster.logs = (namespace, pod, container) =>
      `${original(namespace, pod, container)}${container === changed ? 'one more line\n' : ''}`;
    h = await harness(
      cluster,
      { INGEST_MODE: 'batch', COLLECT_LOGS: 'true' },
      { batch: true },
      undefined,
      FAST,
    );
    await h.agent.runOnce();
    expect(bodies(h.ingest, logPath)).toHaveLength(4);
    // Nothing changed: the second cycle reads the four logs and sends none.
    const second = await h.agent.runOnce();
    expect(bodies(h.ingest, logPath)).toHaveLength(4);
    expect(second.logsUnchanged).toBe(4);
    expect(h.kube.requests.filter((r) => r.path.endsWith('/log'))).toHaveLength(8);
    // One container wrote a line: only its log goes.
    changed = 'app';
    const third = await h.agent.runOnce();
    const sent = bodies(h.ingest, logPath).slice(4);
    expect(sent.map((l) => l['container'])).toEqual(['app']);
    expect(String(sent[0]!['logContent']).endsWith('one more line\n')).toBe(true);
    expect(third.logsUnchanged).toBe(3);
  });

  it('sends every log again once LOG_RESEND_MS have passed, so the web client never sees a stale one drop out of its window', async () => {
    h = await harness(
      sampleCluster(),
      { INGEST_MODE: 'batch', COLLECT_LOGS: 'true' },
      { batch: true },
      undefined,
      FAST,
    );
    await h.agent.runOnce();
    for (const [key, entry] of (h.agent.sentLogs as unknown as { sent: Map<string, { at: number }> }).sent) {
      (h.agent.sentLogs as unknown as { sent: Map<string, { hash: string; at: number }> }).sent.set(key, {
        ...(entry as { hash: string; at: number }),
        at: entry.at - LOG_RESEND_MS,
      });
    }
    await h.agent.runOnce();
    expect(bodies(h.ingest, logPath)).toHaveLength(8);
  });

  it('one-object posts send every log every cycle, as the original agent does', async () => {
    h = await harness(sampleCluster(), { COLLECT_LOGS: 'true' });
    await h.agent.runOnce();
    await h.agent.runOnce();
    expect(bodies(h.ingest, logPath)).toHaveLength(8);
  });
});
