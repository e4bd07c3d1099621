import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { createUser, simulatorSettings, type TestUser } from '../finops-api/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';

const SUB = '7a1c0de0-2222-4b3c-9d4e-000000000131';

// Detection runs after a real analysis (POST /Analysis/start against the Azure simulator), not only
// after imports: the orchestrator's hook, with the analysis day itself left out.
describe('anomaly detection and forecast after an analysis', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let user: TestUser;

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 20 });
    host = await startTestHost({ queueWorker: false, notifier: false, settings: simulatorSettings(sim.url) });
    user = await createUser(host.services.prisma, false);
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('runs after each analysis: no anomaly on steady costs, budget events queued once, a forecast', {
    timeout: 90_000,
  }, async () => {
    const api = apiClient(host.url);
    const prisma = host.services.prisma;
    // The hook's observable effects: a budget far below the cost queues the budget events.
    await api.post('/finops/api/Subscriptions', {
      token: user.token,
      json: { subscriptionId: SUB, description: 'sim', budget: 1, infraSupportCost: 0 },
    });
    const channel = await prisma.notificationChannel.create({
      data: { name: 'finance', kind: 'email', target: 'finance@example.test' },
    });
    const runIds: number[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await api.post('/finops/api/Analysis/start', { token: user.token, json: SUB });
      expect(res.body.success).toBe(true);
      runIds.push(res.body.analysisRunId);
    }
    // The simulator's costs are steady (each resource's base cost ±15 % a day, six months): no anomaly.
    const list = await api.get(`/finops/api/Anomalies?subscriptionId=${SUB}`, { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    const month = new Date().toISOString().slice(0, 7);
    const deliveries = await prisma.notificationDelivery.findMany({ where: { channelId: channel.id } });
    const keys = deliveries.map((d) => d.eventKey).sort();
    const sub = SUB.toLowerCase();
    // Two analyses, one row per event (the day of the month decides whether the month has data yet).
    expect(keys).toEqual(
      new Date().getUTCDate() === 1
        ? [`forecast:${sub}:${month}:overBudget`]
        : [`budget:${sub}:${month}:100`, `budget:${sub}:${month}:80`, `forecast:${sub}:${month}:overBudget`],
    );
    const f = await api.get(`/finops/api/Forecast/${SUB}`, { token: user.token });
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({
      subscriptionId: SUB,
      analysisRunId: runIds[1],
      budget: 1,
      budgetStatus: 'overBudget',
      method: 'seasonal-baseline',
    });
    expect(f.body.forecastMonthEnd).toBeGreaterThan(f.body.actualToDate);
  });
});
