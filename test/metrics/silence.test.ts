import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalHost } from '../../dev/host.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { createUser, type TestUser } from '../support/users.js';
import { ANONYMOUS_INGEST, at, nodeData, sendNodes, wall } from './alerts-support.js';

describe('silence: a cluster or a node that stops reporting', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: TestUser;

  beforeAll(async () => {
    host = await startTestHost({
      queueWorker: false,
      notifier: false,
      silenceTimer: false,
      metricsTimer: false,
      settings: { ...ANONYMOUS_INGEST, Metrics__SilenceAfterMinutes: '5', Metrics__RetentionAlertsDays: '2' },
    });
    api = apiClient(host.url);
    admin = await createUser(host.services.prisma, true);
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Node records of the cluster's nodes, sent at the faked clock's minute. */
  async function report(minute: number, nodes: string[]) {
    vi.setSystemTime(at(minute));
    await sendNodes(
      host,
      'sil',
      nodes.map((n) => ({ at: at(minute), data: nodeData('sil', n) })),
    );
  }
  const check = async (minute: number) => {
    vi.setSystemTime(at(minute));
    return host.services.metricsAlerts.checkSilence();
  };
  const listed = async () =>
    (
      await api.get('/metrics/api/MetricsAlert/metricsAlerts/cluster/sil?days=2', { token: admin.token })
    ).body.map((a: any) => [a.timeStamp, a.kind, a.nodeName, a.status, a.message]);

  it('raises one alert when the whole cluster stops, none per node, and clears it when data returns', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await report(0, ['a', 'b']);
    await report(1, ['a', 'b']);
    expect(await check(5)).toEqual([]); // 4 minutes: not yet
    expect((await check(7)).map((a) => [a.kind, a.status])).toEqual([['clusterSilence', false]]);
    // Later checks (any instance) do not raise it again.
    expect(await check(8)).toEqual([]);
    expect(await check(30)).toEqual([]);
    // Data returns: the alert clears once, on the first request.
    await report(31, ['a', 'b']);
    await report(32, ['a', 'b']);
    expect(await check(33)).toEqual([]);
    expect(await listed()).toEqual([
      [wall(31), 'clusterSilence', '', true, 'Cluster sil is reporting again after 24 minutes of silence.'],
      [
        wall(7),
        'clusterSilence',
        '',
        false,
        'Cluster sil has sent no node data for 6 minutes: its agent may be down.',
      ],
    ]);
  });

  it('raises a node alert for a node that stops while its cluster reports, cleared when the node returns', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await report(40, ['a', 'b']);
    await report(43, ['a']);
    await report(46, ['a']);
    const raised = await check(46);
    expect(raised.map((a) => [a.kind, a.nodeName, a.status])).toEqual([['nodeSilence', 'b', false]]);
    expect(await check(47)).toEqual([]);
    await report(50, ['a', 'b']);
    const rows = await listed();
    expect(rows.slice(0, 2)).toEqual([
      [wall(50), 'nodeSilence', 'b', true, 'Node b is reporting again after 4 minutes of silence.'],
      [
        wall(46),
        'nodeSilence',
        'b',
        false,
        'Node b has sent no data for 6 minutes while its cluster still reports.',
      ],
    ]);
  });

  it('deletes alerts older than Metrics__RetentionAlertsDays on its pass', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(60));
    const day = 1440;
    for (const [minute, ready] of [
      [-3 * day, true],
      [-3 * day + 1, false],
      [-day, true],
    ] as const) {
      await sendNodes(host, 'kept', [{ at: at(minute), data: nodeData('kept', 'k1', { isReady: ready }) }]);
    }
    const listed = async () =>
      (
        await api.get('/metrics/api/MetricsAlert/metricsAlerts/cluster/kept?days=5', { token: admin.token })
      ).body.map((a: any) => a.timeStamp);
    expect(await listed()).toEqual([wall(-day), wall(-3 * day + 1)]);
    await check(61);
    expect(await listed()).toEqual([wall(-day)]);
  });

  it('runs on the local host as a timer at second 30 of every minute', async () => {
    const spy = vi.spyOn(host.services.metricsAlerts, 'checkSilence').mockResolvedValue([]);
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    vi.setSystemTime(new Date(Date.UTC(2026, 0, 1, 12, 0, 10)));
    const second = await startLocalHost({
      config: host.config,
      services: host.services,
      queueWorker: false,
      notifier: false,
      metricsTimer: false,
    });
    try {
      await vi.advanceTimersByTimeAsync(19_000);
      expect(spy).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1_500);
      expect(spy).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
      await second.close();
      spy.mockRestore();
    }
  });
});
