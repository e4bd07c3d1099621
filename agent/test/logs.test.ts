import { afterEach, describe, expect, it } from 'vitest';
import { sampleCluster } from './fixtures.js';
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
