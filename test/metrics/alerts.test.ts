import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliverDue, outboxDeps } from '../../shared/notify/outbox.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { createUser, type TestUser } from '../support/users.js';
import {
  ANONYMOUS_INGEST,
  at,
  HEALTHY,
  nodeData,
  postNode,
  sendNodes,
  startReceiver,
  wall,
} from './alerts-support.js';

const ALERTS = '/metrics/api/MetricsAlert/metricsAlerts';

describe('node status alerts, notifications and the alert routes', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: TestUser;
  let user: TestUser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    host = await startTestHost({
      queueWorker: false,
      notifier: false,
      silenceTimer: false,
      metricsTimer: false,
      settings: ANONYMOUS_INGEST,
    });
    api = apiClient(host.url);
    admin = await createUser(host.services.prisma, true);
    user = await createUser(host.services.prisma, false, { clusters: ['Prod-AKS'] });
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const alerts = async (query = '', token = admin.token) => api.get(`${ALERTS}${query}`, { token });

  it('raises one alert per change of the four conditions, none for a first record, none for late or repeated records', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(30));
    const c = 'Prod-AKS';
    // First record of each node: primes the state, no alert.
    await sendNodes(host, c, [{ at: at(0), data: nodeData(c, 'n1') }]);
    // Same conditions again: nothing.
    await sendNodes(host, c, [{ at: at(1), data: nodeData(c, 'n1') }]);
    // Not ready and memory pressure: one alert.
    await sendNodes(host, c, [
      { at: at(2), data: nodeData(c, 'n1', { ...HEALTHY, isReady: false, hasMemoryPressure: true }) },
    ]);
    // The same records again under another batch id (a resend): nothing new. The same batch id
    // is a duplicate, stored once.
    const again = [
      { at: at(2), data: nodeData(c, 'n1', { ...HEALTHY, isReady: false, hasMemoryPressure: true }) },
    ];
    await sendNodes(host, c, again);
    expect(await sendNodes(host, c, again, '7d7c3f0e-0c4e-4b7e-9a51-2f0a6c1d9e01')).toEqual(
      expect.objectContaining({ duplicate: false }),
    );
    expect(await sendNodes(host, c, again, '7d7c3f0e-0c4e-4b7e-9a51-2f0a6c1d9e01')).toEqual(
      expect.objectContaining({ duplicate: true }),
    );
    // A record collected before the stored one arrives late: it does not turn the state back.
    await sendNodes(host, c, [{ at: at(1), data: nodeData(c, 'n1') }]);
    // null counts as a value: true → null is a change.
    await sendNodes(host, c, [
      { at: at(3), data: nodeData(c, 'n1', { ...HEALTHY, isReady: null, hasMemoryPressure: true }) },
    ]);
    // Several records of one node in one batch, out of order: each change once, in collection order.
    await sendNodes(host, c, [
      { at: at(6), data: nodeData(c, 'n1', { ...HEALTHY, hasDiskPressure: true }) },
      { at: at(5), data: nodeData(c, 'n1') },
      { at: at(4), data: nodeData(c, 'n1', { ...HEALTHY, isReady: null, hasMemoryPressure: true }) },
    ]);

    const res = await alerts('?clusterName=PROD-aks&days=7');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('4');
    expect(res.body.map((a: any) => [a.timeStamp, a.status, a.message])).toEqual([
      [wall(6), false, 'Node n1 has issues: Disk pressure detected'],
      [wall(5), true, 'Node n1 is healthy. All conditions are OK.'],
      [wall(3), false, 'Node n1 has issues: Memory pressure detected'],
      [wall(2), false, 'Node n1 has issues: Node is not ready, Memory pressure detected'],
    ]);
    expect(res.body[0]).toEqual({
      id: expect.any(Number),
      nodeName: 'n1',
      clusterName: 'prod-aks',
      timeStamp: wall(6),
      status: false,
      message: 'Node n1 has issues: Disk pressure detected',
      kind: 'node',
    });
  });

  it("raises alerts from the original agent's one-object posts too (collected when received)", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(100));
    await postNode(host, nodeData('Single', 's1'));
    vi.setSystemTime(at(101));
    await postNode(host, nodeData('Single', 's1', { ...HEALTHY, hasPidPressure: true }));
    vi.setSystemTime(at(102));
    await postNode(host, nodeData('Single', 's1', { ...HEALTHY, hasPidPressure: true }));
    const res = await alerts('?clusterName=single&days=1');
    expect(res.body.map((a: any) => [a.clusterName, a.nodeName, a.timeStamp, a.message])).toEqual([
      ['single', 's1', wall(101), 'Node s1 has issues: PID pressure detected'],
    ]);
  });

  it('bounds and scopes the lists: days, node, paging, a user sees only assigned clusters', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(30));
    await sendNodes(host, 'other', [{ at: at(0), data: nodeData('other', 'x1') }]);
    await sendNodes(host, 'other', [{ at: at(1), data: nodeData('other', 'x1', { isReady: false }) }]);

    // The administrator sees both clusters, the user only the one assigned to them.
    expect((await alerts('?days=7')).headers.get('x-total-count')).toBe('6');
    const mine = await alerts('?days=7', user.token);
    expect(mine.status).toBe(200);
    expect(new Set(mine.body.map((a: any) => a.clusterName))).toEqual(new Set(['prod-aks']));
    expect(isProblem(await alerts('?clusterName=other', user.token), 403)).toBe(true);
    expect(
      isProblem(
        await api.get('/metrics/api/MetricsAlert/metricsAlerts/cluster/other', { token: user.token }),
        403,
      ),
    ).toBe(true);

    const byNode = await api.get('/metrics/api/MetricsAlert/metricsAlerts/cluster/OTHER/node/x1?days=1', {
      token: admin.token,
    });
    expect(byNode.body.map((a: any) => a.message)).toEqual(['Node x1 has issues: Node is not ready']);
    const page = await alerts('?clusterName=prod-aks&days=7&page=2&pageSize=3');
    expect(page.body).toHaveLength(1);
    expect(page.headers.get('x-total-count')).toBe('4');

    // An alert of eight days ago is outside a 7-day window, inside a 9-day one.
    await sendNodes(host, 'old', [{ at: at(-8 * 1440 - 1), data: nodeData('old', 'o1') }]);
    await sendNodes(host, 'old', [{ at: at(-8 * 1440), data: nodeData('old', 'o1', { isReady: false }) }]);
    expect((await alerts('?clusterName=old&days=7')).body).toEqual([]);
    expect((await alerts('?clusterName=old&days=9')).body.map((a: any) => a.timeStamp)).toEqual([
      wall(-8 * 1440),
    ]);

    expect(isProblem(await alerts('?days=0'), 400)).toBe(true);
    expect(isProblem(await alerts('?days=abc'), 400)).toBe(true);
    expect((await api.get(ALERTS)).status).toBe(401);
  });

  it('maps clusters to notification channels with the original 400 texts, 422 for an unknown channel, no 500 on concurrent duplicates', async () => {
    const channel = await api.post('/finops/api/NotificationChannels', {
      token: admin.token,
      json: { name: 'cluster ops', kind: 'slack', target: receiver.url },
    });
    expect(channel.status).toBe(201);
    const id = channel.body.id as number;
    const add = (json: unknown, token = user.token) =>
      api.post('/metrics/api/MetricsNotification/addMetricsNotification', { token, json });

    const blank = await add({ clusterName: ' ', notificationId: id });
    expect(isProblem(blank, 400) && blank.body.detail).toBe('ClusterName is required');
    const missing = await add({ notificationId: id });
    expect(missing.body.detail).toBe('ClusterName is required');
    const zero = await add({ clusterName: 'prod-aks', notificationId: 0 });
    expect(isProblem(zero, 400) && zero.body.detail).toBe('NotificationId must be greater than 0');
    expect(isProblem(await add({ clusterName: null, notificationId: id }), 400)).toBe(true);
    const unknown = await add({ clusterName: 'prod-aks', notificationId: id + 1000 });
    expect(isProblem(unknown, 422)).toBe(true);
    expect(unknown.body.errors.notificationId).toHaveLength(1);
    expect(isProblem(await add({ clusterName: 'other', notificationId: id }), 403)).toBe(true);

    // Five at once: one is stored, the others are the original's duplicate 400, never a 500.
    const together = await Promise.all(
      Array.from({ length: 5 }, () => add({ ClusterName: 'PROD-AKS', NotificationId: id })),
    );
    expect(together.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
    expect(together.find((r) => r.status === 400)!.body.detail).toBe(
      'Notification already exists for this cluster',
    );

    const list = await api.get('/metrics/api/MetricsNotification/clusterNotifications/Prod-AKS', {
      token: user.token,
    });
    expect(list.body).toEqual([{ clusterName: 'prod-aks', notificationId: id }]);
    expect(
      isProblem(
        await api.get('/metrics/api/MetricsNotification/clusterNotifications/other', { token: user.token }),
        403,
      ),
    ).toBe(true);
  });

  it('sends each alert once to the channels mapped to its cluster, through the outbox', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(40));
    const before = receiver.received.length;
    await sendNodes(host, 'prod-aks', [{ at: at(20), data: nodeData('prod-aks', 'n1', { isReady: false }) }]);
    // Another cluster's alert goes to no channel of this one.
    await sendNodes(host, 'other', [{ at: at(20), data: nodeData('other', 'x1') }]);
    vi.useRealTimers();
    const deps = outboxDeps(host.services);
    expect(await deliverDue(deps)).toBe(1);
    expect(await deliverDue(deps)).toBe(0);
    const got = receiver.received.slice(before);
    expect(got).toEqual([
      {
        text: `Node n1 has issues: Node is not ready (cluster prod-aks, ${at(20).toISOString()})`,
      },
    ]);

    // Removing the mapping stops further deliveries; removing it again still answers 200.
    const channelId = (await host.services.prisma.metricsNotification.findFirstOrThrow()).notificationId;
    const remove = () =>
      api.post('/metrics/api/MetricsNotification/removeMetricsNotification', {
        token: user.token,
        json: { clusterName: 'prod-aks', notificationId: channelId },
      });
    expect((await remove()).status).toBe(200);
    expect((await remove()).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(41));
    await sendNodes(host, 'prod-aks', [{ at: at(21), data: nodeData('prod-aks', 'n1') }]);
    vi.useRealTimers();
    expect(await deliverDue(deps)).toBe(0);
  });
});
