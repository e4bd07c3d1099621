import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProblem } from '../support/http.js';
import { createUser } from '../support/users.js';
import {
  batch,
  eventData,
  logData,
  type MetricsHost,
  makeKey,
  nodeData,
  podData,
  postGzip,
  pvcData,
  startMetricsHost,
} from './support.js';

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

describe('metrics read routes', () => {
  let m: MetricsHost;
  /** A user assigned the cluster "prod" only (in another case than stored: assignments compare in lower case). */
  let assigned: MetricsHost['user'];

  beforeAll(async () => {
    m = await startMetricsHost({ Metrics__MaxRows: '100' });
    const prod = await makeKey(m, 'prod');
    const dev = await makeKey(m, 'dev');
    const minute = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
    const prodBatch = batch('prod', [
      ...Array.from({ length: 3 }, (_, i) => ({
        kind: 'pod',
        collectedAt: minute(i + 1),
        data: podData('prod', 0),
      })),
      {
        kind: 'pod',
        collectedAt: minute(2),
        data: podData('prod', 1, { namespace: 'jobs', cpuLimitCores: null, podAge: null }),
      },
      { kind: 'node', collectedAt: minute(1), data: nodeData('prod', 'node-a') },
      { kind: 'node', collectedAt: minute(1), data: nodeData('prod', 'node-b', { isReady: false }) },
      { kind: 'pvc', collectedAt: minute(1), data: pvcData('prod') },
      {
        kind: 'podLog',
        collectedAt: minute(1),
        data: logData('prod', { pod: 'api-0', logContent: 'pod 0 log' }),
      },
      {
        kind: 'podLog',
        collectedAt: minute(2),
        data: logData('prod', { pod: 'api-1', logContent: 'pod 1 log' }),
      },
      { kind: 'event', collectedAt: minute(1), data: eventData('prod') },
      {
        kind: 'event',
        collectedAt: minute(1),
        data: eventData('prod', { eventUid: 'n1', eventType: 'Normal', namespace: 'jobs' }),
      },
    ]);
    expect((await postGzip(m.host.url, prodBatch, prod.key)).status).toBe(200);
    const devBatch = batch('dev', [
      { kind: 'pod', collectedAt: minute(1), data: podData('dev', 5, { namespace: 'secret' }) },
      { kind: 'node', collectedAt: minute(1), data: nodeData('dev', 'dev-node') },
      { kind: 'pvc', collectedAt: minute(1), data: pvcData('dev') },
      { kind: 'podLog', collectedAt: minute(1), data: logData('dev') },
      { kind: 'event', collectedAt: minute(1), data: eventData('dev') },
    ]);
    expect((await postGzip(m.host.url, devBatch, dev.key)).status).toBe(200);
    assigned = await createUser(m.host.services.prisma, false, { clusters: ['PROD'] });
  });
  afterAll(async () => {
    await m?.close();
  });

  it('answers pods (PodMetricDto) newest first with the original field order, lower-case clusters and Z timestamps', async () => {
    const res = await m.api.get('/metrics/api/metrics/namespace?minutes=30&clusterName=PROD&namespace=web', {
      token: m.admin.token,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-resolution')).toBe('raw');
    expect(res.headers.get('x-truncated')).toBeNull();
    expect(res.body).toHaveLength(3);
    const [row] = res.body;
    expect(Object.keys(row)).toEqual([
      'timestamp',
      'clusterName',
      'namespace',
      'pod',
      'container',
      'cpuUsageCores',
      'cpuLimitCores',
      'memoryUsageBytes',
      'memoryLimitBytes',
      'nodeName',
      'podState',
      'restartCount',
      'podAge',
    ]);
    expect(row).toMatchObject({
      clusterName: 'prod',
      namespace: 'web',
      pod: 'api-0',
      container: 'api',
      cpuUsageCores: 0.25,
      cpuLimitCores: 0.5,
      memoryUsageBytes: 157286400,
      memoryLimitBytes: 536870912,
      nodeName: 'node-a',
      podState: 'Running',
      restartCount: 1,
      podAge: 86400,
    });
    expect(row.timestamp).toMatch(ISO_Z);
    const times = res.body.map((r: { timestamp: string }) => Date.parse(r.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const byPath = await m.api.get('/metrics/api/metrics/namespace/jobs?minutes=30', {
      token: m.admin.token,
    });
    expect(byPath.body).toHaveLength(1);
    expect(byPath.body[0]).toMatchObject({ namespace: 'jobs', cpuLimitCores: null, podAge: null });
  });

  it('answers nodes (NodeMetricDto), by query and by path', async () => {
    const res = await m.api.get('/metrics/api/Metrics/node?minutes=30&clusterName=prod', {
      token: m.admin.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.map((n: { nodeName: string }) => n.nodeName).sort()).toEqual(['node-a', 'node-b']);
    expect(Object.keys(res.body[0])).toEqual([
      'timestamp',
      'clusterName',
      'clusterEnvironment',
      'nodeName',
      'cpuUsageCores',
      'cpuCapacityCores',
      'memoryUsageBytes',
      'memoryCapacityBytes',
      'kubernetesVersion',
      'cloudProvider',
      'isReady',
      'hasMemoryPressure',
      'hasDiskPressure',
      'hasPidPressure',
      'architecture',
      'operatingSystem',
      'region',
      'instanceType',
    ]);
    const b = await m.api.get('/metrics/api/metrics/node/node-b?minutes=30', { token: m.admin.token });
    expect(b.body).toEqual([
      expect.objectContaining({
        nodeName: 'node-b',
        isReady: false,
        hasPidPressure: null,
        cpuCapacityCores: 4,
      }),
    ]);
  });

  it('answers PVCs, logs (latest per container) and events in the original shapes', async () => {
    const pvc = await m.api.get('/metrics/api/metrics/pvc?clusterName=prod', { token: m.admin.token });
    expect(pvc.body).toEqual([
      {
        timestamp: expect.stringMatching(ISO_Z),
        clusterName: 'prod',
        namespace: 'web',
        pod: 'db-0',
        pvcNamespace: 'web',
        pvcName: 'data-db-0',
        volumeName: 'pvc-123',
        usedBytes: 1000,
        availableBytes: 9000,
        capacityBytes: 10000,
      },
    ]);
    expect(
      (await m.api.get('/metrics/api/metrics/pvc/namespace/other', { token: m.admin.token })).body,
    ).toEqual([]);
    // The web client's log call: namespace in the path, container and cluster in the query, no pod.
    const logs = await m.api.get(
      '/metrics/api/metrics/pod/log/namespace/web?container=api&minutes=30&clusterName=prod',
      {
        token: m.admin.token,
      },
    );
    expect(logs.body.map((l: { logContent: string }) => l.logContent)).toEqual(['pod 0 log', 'pod 1 log']);
    expect(Object.keys(logs.body[0])).toEqual([
      'timestamp',
      'clusterName',
      'namespace',
      'pod',
      'container',
      'logContent',
    ]);
    const one = await m.api.get('/metrics/api/metrics/pod/log/namespace/web/pod/api-1?clusterName=prod', {
      token: m.admin.token,
    });
    expect(one.body.map((l: { pod: string }) => l.pod)).toEqual(['api-1']);
    const limited = await m.api.get('/metrics/api/metrics/pod/log?clusterName=prod&limit=1', {
      token: m.admin.token,
    });
    expect(limited.body).toHaveLength(1);
    expect(limited.headers.get('x-truncated')).toBe('true');
    const events = await m.api.get(
      '/metrics/api/events?minutes=60&limit=5000&clusterName=prod&eventType=Warning',
      {
        token: m.admin.token,
      },
    );
    expect(events.body).toHaveLength(1);
    expect(Object.keys(events.body[0])).toEqual([
      'timestamp',
      'clusterName',
      'namespace',
      'eventName',
      'eventUid',
      'involvedObjectKind',
      'involvedObjectName',
      'involvedObjectNamespace',
      'eventType',
      'reason',
      'message',
      'sourceComponent',
      'count',
      'firstTimestamp',
      'lastTimestamp',
    ]);
    expect(events.body[0]).toMatchObject({
      eventUid: 'uid-1',
      count: 3,
      firstTimestamp: '2026-01-13T10:00:00Z',
    });
    const jobs = await m.api.get('/metrics/api/events/namespace/jobs?clusterName=prod', {
      token: m.admin.token,
    });
    expect(jobs.body.map((e: { eventUid: string }) => e.eventUid)).toEqual(['n1']);
  });

  it('lists clusters and namespaces', async () => {
    expect((await m.api.get('/metrics/api/metrics/clusters', { token: m.admin.token })).body).toEqual([
      'dev',
      'prod',
    ]);
    expect(
      (await m.api.get('/metrics/api/metrics/namespaces?clusterName=prod', { token: m.admin.token })).body,
    ).toEqual(['jobs', 'web']);
  });

  it('shows a user only the clusters assigned to them, and refuses a named other cluster with 403', async () => {
    expect((await m.api.get('/metrics/api/metrics/clusters', { token: assigned.token })).body).toEqual([
      'prod',
    ]);
    expect((await m.api.get('/metrics/api/metrics/clusters', { token: m.user.token })).body).toEqual([]);
    const everything = [
      '/metrics/api/metrics/namespace?minutes=30',
      '/metrics/api/metrics/node?minutes=30',
      '/metrics/api/metrics/pvc',
      '/metrics/api/metrics/pod/log',
      '/metrics/api/events',
    ];
    for (const path of everything) {
      const mine = await m.api.get(path, { token: assigned.token });
      expect(mine.status, path).toBe(200);
      expect(mine.body.length, path).toBeGreaterThan(0);
      expect(new Set(mine.body.map((r: { clusterName: string }) => r.clusterName)), path).toEqual(
        new Set(['prod']),
      );
      const none = await m.api.get(path, { token: m.user.token });
      expect(none.body, path).toEqual([]);
    }
    expect((await m.api.get('/metrics/api/metrics/namespaces', { token: assigned.token })).body).toEqual([
      'jobs',
      'web',
    ]);
    for (const path of [
      '/metrics/api/metrics/namespace?clusterName=dev',
      '/metrics/api/metrics/node?clusterName=DEV',
      '/metrics/api/metrics/namespaces?clusterName=dev',
      '/metrics/api/events?clusterName=dev',
      '/metrics/api/metrics/pod/log/namespace/secret?clusterName=dev',
    ]) {
      expect(isProblem(await m.api.get(path, { token: assigned.token }), 403), path).toBe(true);
    }
  });

  it('sends a sample list again for Metrics__ReadCacheSeconds (dashboards poll), each caller its own clusters', async () => {
    const key = (await makeKey(m, 'polled')).key;
    const node = (at: number, name: string) => ({
      kind: 'node',
      collectedAt: new Date(Date.now() - at).toISOString(),
      data: nodeData('polled', name),
    });
    expect((await postGzip(m.host.url, batch('polled', [node(60_000, 'n-1')]), key)).status).toBe(200);
    const path = '/metrics/api/metrics/node?minutes=30&clusterName=polled';
    const first = await m.api.get(path, { token: m.admin.token });
    expect(first.body.map((n: { nodeName: string }) => n.nodeName)).toEqual(['n-1']);
    // A node seen since: this host keeps answers 15 s (the default), so the poll right after
    // gets the same answer, headers included; a list with other filters is built afresh.
    expect((await postGzip(m.host.url, batch('polled', [node(1_000, 'n-2')]), key)).status).toBe(200);
    const again = await m.api.get(path, { token: m.admin.token });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-resolution')).toBe(first.headers.get('x-resolution'));
    const wider = await m.api.get('/metrics/api/metrics/node?minutes=31&clusterName=polled', {
      token: m.admin.token,
    });
    expect(wider.body.map((n: { nodeName: string }) => n.nodeName).sort()).toEqual(['n-1', 'n-2']);
  });

  it('refuses anonymous reads with 401 and bad numbers with 400', async () => {
    const anon = await m.api.get('/metrics/api/metrics/node');
    expect(anon.status).toBe(401);
    for (const path of [
      '/metrics/api/metrics/node?minutes=abc',
      '/metrics/api/metrics/node?minutes=0',
      '/metrics/api/metrics/namespace?minutes=-5',
      '/metrics/api/events?limit=5001',
      '/metrics/api/metrics/pod/log?limit=0',
      '/metrics/api/metrics/cleanup?days=-1',
    ]) {
      const res = path.includes('cleanup')
        ? await m.api.delete(path, { token: m.admin.token })
        : await m.api.get(path, { token: m.admin.token });
      expect(isProblem(res, 400), path).toBe(true);
    }
  });

  it("lists every reporting node at long windows: a node's newest row carries its latest sample's time", async () => {
    // The web client's node table shows a node whose newest row is under 10 minutes old. An
    // average row carries its step's start: on this host (100 rows, 50 points per node) an hour at
    // 48 hours and 6 hours at 7 days.
    const key = (await makeKey(m, 'longview')).key;
    // A whole second: the PostgreSQL store keeps a sample's time to the second.
    const latest = Math.floor(Date.now() / 1000) * 1000 - 61_000;
    const samples = ['n-1', 'n-2'].flatMap((node) =>
      Array.from({ length: 180 }, (_, i) => ({
        kind: 'node',
        collectedAt: new Date(latest - i * 60_000).toISOString(),
        data: nodeData('longview', node),
      })),
    );
    expect((await postGzip(m.host.url, batch('longview', samples), key)).status).toBe(200);
    for (const [minutes, resolution, stepMs] of [
      [2880, '1h', 3_600_000],
      [10080, '6h', 21_600_000],
    ] as const) {
      const res = await m.api.get(`/metrics/api/metrics/node?minutes=${minutes}&clusterName=longview`, {
        token: m.admin.token,
      });
      expect(res.headers.get('x-resolution')).toBe(resolution);
      const times = res.body.map((r: { timestamp: string }) => Date.parse(r.timestamp));
      // Newest first: the two newest rows are the nodes' latest samples, the rest their steps' starts.
      expect(times.slice(0, 2)).toEqual([latest, latest]);
      expect(new Set(res.body.slice(0, 2).map((r: { nodeName: string }) => r.nodeName))).toEqual(
        new Set(['n-1', 'n-2']),
      );
      expect(times.slice(2).every((t: number) => t % stepMs === 0 && t < latest)).toBe(true);
      expect(times).toEqual([...times].sort((a, b) => b - a));
    }
  });

  it('picks the step from the window, the points per series and Metrics__MaxRows, and says it in X-Resolution', async () => {
    // This host answers at most 100 rows: one container may have 100 points, so a day is cut into
    // steps of at least 1440 / 98 minutes, rounded up to 15; a week of two containers (50 points
    // each) into steps of at least 10080 / 48 minutes, rounded up to 6 hours.
    const day = await m.api.get(
      '/metrics/api/metrics/namespace?minutes=1440&clusterName=prod&namespace=web',
      {
        token: m.admin.token,
      },
    );
    expect(day.headers.get('x-resolution')).toBe('15m');
    const week = await m.api.get('/metrics/api/metrics/namespace?minutes=10080&clusterName=prod', {
      token: m.admin.token,
    });
    expect(week.headers.get('x-resolution')).toBe('6h');
    expect(new Set(week.body.map((r: { pod: string }) => r.pod))).toEqual(new Set(['api-0', 'api-1']));

    // Two hours of a container sampled every minute.
    const key = (await makeKey(m, 'minutely')).key;
    const end = Math.floor(Date.now() / 60_000) * 60_000;
    const samples = Array.from({ length: 120 }, (_, i) => ({
      kind: 'pod',
      collectedAt: new Date(end - i * 60_000).toISOString(),
      data: podData('minutely', 0, { CpuUsageCores: i / 1000 }),
    }));
    expect((await postGzip(m.host.url, batch('minutely', samples), key)).status).toBe(200);
    // 30 minutes: its raw samples, every one in the window (a step of 30 / 98 minutes holds one),
    // newest first (29 to 31 of them, as the window's start falls between two minutes).
    const recent = await m.api.get('/metrics/api/metrics/namespace?minutes=30&clusterName=minutely', {
      token: m.admin.token,
    });
    expect(recent.headers.get('x-resolution')).toBe('raw');
    expect(recent.body.length).toBeGreaterThanOrEqual(29);
    expect(recent.body.map((r: { cpuUsageCores: number }) => r.cpuUsageCores)).toEqual(
      Array.from({ length: recent.body.length }, (_, i) => i / 1000),
    );
    // 3 hours: 5-minute averages, one row per bucket the samples fall in, newest first, each at
    // its bucket's start but the newest, which carries the latest sample's time.
    const longer = await m.api.get('/metrics/api/metrics/namespace?minutes=180&clusterName=minutely', {
      token: m.admin.token,
    });
    expect(longer.headers.get('x-resolution')).toBe('5m');
    const buckets = new Set(samples.map((x) => Math.floor(Date.parse(x.collectedAt) / 300_000) * 300_000));
    expect(longer.body.map((r: { timestamp: string }) => Date.parse(r.timestamp))).toEqual([
      end,
      ...[...buckets].sort((a, b) => b - a).slice(1),
    ]);
    expect(longer.body[0].cpuUsageCores).toBeCloseTo(
      samples
        .filter((x) => Date.parse(x.collectedAt) >= [...buckets].sort((a, b) => b - a)[0]!)
        .reduce((sum, x, _, all) => sum + x.data.CpuUsageCores / all.length, 0),
      6,
    );
  });

  it('cuts an answer at Metrics__MaxRows with X-Truncated when even the fewest points per series pass it', async () => {
    const key = (await makeKey(m, 'big')).key;
    const records = Array.from({ length: 150 }, (_, i) => ({ kind: 'pod', data: podData('big', i) }));
    expect((await postGzip(m.host.url, batch('big', records), key)).status).toBe(200);
    const cut = await m.api.get('/metrics/api/metrics/namespace?minutes=30&clusterName=big', {
      token: m.admin.token,
    });
    expect(cut.body).toHaveLength(100);
    expect(cut.headers.get('x-truncated')).toBe('true');
    expect(cut.headers.get('x-row-limit')).toBe('100');
  });

  it('keeps table sizes and cleanup for administrators; cleanup removes the data and is audited', async () => {
    expect((await m.api.get('/metrics/api/clickhouse/table-sizes', { token: m.user.token })).status).toBe(
      403,
    );
    const sizes = await m.api.get('/metrics/api/clickhouse/table-sizes', { token: m.admin.token });
    expect(sizes.status).toBe(200);
    expect(Object.keys(sizes.body[0])).toEqual(['database', 'table', 'totalSize', 'totalSizeBytes']);
    expect(sizes.body.map((s: { table: string }) => s.table)).toContain('pod_raw');
    const refused = await m.api.delete('/metrics/api/metrics/cleanup?days=0', { token: assigned.token });
    expect(isProblem(refused, 403)).toBe(true);
    expect(
      (await m.api.get('/metrics/api/metrics/node?clusterName=prod', { token: m.admin.token })).body,
    ).toHaveLength(2);
    const kept = await m.api.delete('/metrics/api/metrics/cleanup?days=7', { token: m.admin.token });
    expect(kept.status).toBe(200);
    expect(
      (await m.api.get('/metrics/api/metrics/node?clusterName=prod', { token: m.admin.token })).body,
    ).toHaveLength(2);
    const all = await m.api.delete('/metrics/api/metrics/cleanup?days=0', { token: m.admin.token });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ success: true, message: expect.any(String) });
    expect(
      (await m.api.get('/metrics/api/metrics/node?clusterName=prod', { token: m.admin.token })).body,
    ).toEqual([]);
    const audit = await m.host.services.prisma.auditRecord.count({ where: { action: 'metrics.cleanup' } });
    expect(audit).toBe(2);
  });
});
