import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHDB_AVAILABLE, type ChdbHttpBridge, startChdbHttpBridge } from '../support/chdb-http-bridge.js';
import { startTestHost } from '../support/host.js';
import {
  batch,
  type MetricsHost,
  makeKey,
  nodeData,
  podData,
  postGzip,
  startMetricsHost,
} from './support.js';

// With Metrics__ClickHouseUrl set the app stores and reads metrics in ClickHouse: the same routes,
// the same answers, the rows in ClickHouse (chDB behind the HTTP bridge here).
describe.skipIf(!CHDB_AVAILABLE)('metrics service on the ClickHouse store', () => {
  let bridge: ChdbHttpBridge;
  let m: MetricsHost;
  let key: string;

  beforeAll(async () => {
    bridge = await startChdbHttpBridge({ user: 'finwatch', password: 'ch-secret' });
    m = await startMetricsHost({
      Metrics__ClickHouseUrl: bridge.url,
      Metrics__ClickHouseUser: 'finwatch',
      Metrics__ClickHousePassword: 'ch-secret',
      Metrics__ClickHouseDatabase: 'host_metrics',
    });
    key = (await makeKey(m, 'Prod-AKS')).key;
  });
  afterAll(async () => {
    await m?.close();
    await bridge?.close();
  });

  it('selects the ClickHouse engine', () => {
    expect(m.host.services.metrics.store.engine).toBe('clickhouse');
  });

  it('stores a gzip batch once in ClickHouse and answers it on the original read route', async () => {
    const body = batch('prod-aks', [
      { kind: 'pod', data: podData('prod-aks', 0) },
      { kind: 'pod', data: podData('prod-aks', 1, { CpuUsageCores: 1.5 }) },
      { kind: 'node', data: nodeData('prod-aks') },
    ]);
    const first = await postGzip(m.host.url, body, key);
    expect(first).toEqual({
      status: 200,
      body: { success: true, batchId: body.batchId, records: 3, duplicate: false },
    });
    const again = await postGzip(m.host.url, body, key);
    expect(again.body).toMatchObject({ duplicate: true });

    const stored = bridge.session.query(
      "SELECT pod, cpu_usage_cores FROM host_metrics.pod_raw WHERE cluster = 'prod-aks' ORDER BY pod",
      'TabSeparated',
    );
    expect(stored).toBe('api-0\t0.25\napi-1\t1.5\n');

    const res = await m.api.get('/metrics/api/metrics/namespace?minutes=30&clusterName=PROD-AKS', {
      token: m.admin.token,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-resolution')).toBe('raw');
    expect(
      (res.body as Array<{ pod: string; cpuUsageCores: number; clusterName: string }>)
        .map((r) => [r.clusterName, r.pod, r.cpuUsageCores])
        .sort(),
    ).toEqual([
      ['prod-aks', 'api-0', 0.25],
      ['prod-aks', 'api-1', 1.5],
    ]);

    const sizes = await m.api.get('/metrics/api/clickhouse/table-sizes', { token: m.admin.token });
    expect(sizes.status).toBe(200);
    expect((sizes.body as Array<{ database: string; table: string }>).map((s) => s.table)).toContain(
      'pod_raw',
    );
  });

  it('stops startup with the reason when ClickHouse refuses the credentials', async () => {
    await expect(
      startTestHost({
        settings: {
          Metrics__ClickHouseUrl: bridge.url,
          Metrics__ClickHouseUser: 'finwatch',
          Metrics__ClickHousePassword: 'wrong',
        },
        queueWorker: false,
        notifier: false,
        metricsTimer: false,
      }),
    ).rejects.toThrow(/could not open ClickHouse .*Authentication failed/);
  });
});
