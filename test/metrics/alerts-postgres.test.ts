import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_PG_URL } from '../support/databases.js';
import { sharingWith, startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { createUser, type TestUser } from '../support/users.js';
import { ANONYMOUS_INGEST, at, HEALTHY, type NodeState, nodeData, sendNodes } from './alerts-support.js';

/** Several instances of the app on one PostgreSQL server, as in Azure with more than one instance. */
describe.skipIf(!TEST_PG_URL)('metrics alerts across instances and restarts (PostgreSQL)', () => {
  let a: TestHost;
  let b: TestHost;
  let admin: TestUser;
  const options = {
    queueWorker: false,
    notifier: false,
    silenceTimer: false,
    metricsTimer: false,
    database: 'postgres' as const,
    settings: ANONYMOUS_INGEST,
  };

  beforeAll(async () => {
    a = await startTestHost(options);
    b = await startTestHost(sharingWith(a, options));
    admin = await createUser(a.services.prisma, true);
    const channel = await a.services.prisma.notificationChannel.create({
      data: { name: 'ops', kind: 'slack', target: 'http://127.0.0.1:9/hook' },
    });
    await a.services.prisma.metricsNotification.create({
      data: { clusterName: 'multi', notificationId: channel.id },
    });
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const alertRows = async (host: TestHost) =>
    (
      await apiClient(host.url).get('/metrics/api/MetricsAlert/metricsAlerts/cluster/multi?days=2', {
        token: admin.token,
      })
    ).body as Array<{ nodeName: string; timeStamp: string; status: boolean; kind: string }>;

  it('two instances given the same records at once raise one alert per transition', async () => {
    const nodes = ['n1', 'n2', 'n3', 'n4'];
    const flips: NodeState[] = [
      HEALTHY,
      { ...HEALTHY, isReady: false },
      HEALTHY,
      { ...HEALTHY, hasDiskPressure: null },
    ];
    // Every minute, each node's record reaches both instances at the same moment (a retried post
    // landing on another instance), and half the nodes also go to each instance on their own.
    vi.useFakeTimers({ toFake: ['Date'] });
    for (let minute = 0; minute < 12; minute++) {
      vi.setSystemTime(at(minute));
      const state = flips[minute % flips.length]!;
      const records = nodes.map((n) => ({ at: at(minute), data: nodeData('multi', n, state) }));
      await Promise.all([
        sendNodes(a, 'multi', records),
        sendNodes(b, 'MULTI', records),
        sendNodes(a, 'multi', records.slice(0, 2)),
        sendNodes(b, 'multi', records.slice(2)),
      ]);
    }
    // 11 changes after each node's first record, for 4 nodes.
    const rows = await alertRows(b);
    expect(rows).toHaveLength(44);
    for (const n of nodes) {
      expect(
        rows
          .filter((r) => r.nodeName === n)
          .map((r) => r.timeStamp)
          .sort(),
      ).toEqual(
        Array.from({ length: 11 }, (_, i) =>
          at(i + 1)
            .toISOString()
            .replace('Z', ''),
        ),
      );
    }
    // One outbox row per alert for the one channel mapped to the cluster.
    expect(await a.services.prisma.notificationDelivery.count({ where: { eventType: 'metricsAlert' } })).toBe(
      44,
    );
  });

  it('two instances checking silence at once raise it once', async () => {
    const now = at(30);
    const raised = await Promise.all([
      a.services.metricsAlerts.checkSilence(now),
      b.services.metricsAlerts.checkSilence(now),
      a.services.metricsAlerts.checkSilence(now),
      b.services.metricsAlerts.checkSilence(now),
    ]);
    expect(raised.flat().map((r) => [r.kind, r.clusterName])).toEqual([['clusterSilence', 'multi']]);
  });

  it('keeps node state across a restart: the first record after it is compared, not primed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(40));
    // The instance that does not own the test database restarts (closing the first would drop it).
    await b.close();
    b = await startTestHost(sharingWith(a, options));
    // The last stored state (minute 11) is hasDiskPressure null; the same again raises nothing…
    await sendNodes(b, 'multi', [
      { at: at(40), data: nodeData('multi', 'n1', { ...HEALTHY, hasDiskPressure: null }) },
    ]);
    // …a change after the restart raises one, and the cluster's silence clears once.
    await sendNodes(b, 'multi', [{ at: at(41), data: nodeData('multi', 'n1', HEALTHY) }]);
    vi.useRealTimers();
    const rows = await alertRows(b);
    expect(rows.slice(0, 2).map((r) => [r.kind, r.nodeName, r.status])).toEqual([
      ['node', 'n1', true],
      ['clusterSilence', '', true],
    ]);
    expect(rows).toHaveLength(47);
  });
});
