import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SimEndpoint } from '../../dev/azure-sim/faults.js';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import type { AzureAccess } from '../../shared/finops/azure/index.js';
import { type Harness, SUB, startHarness } from '../azure/helpers.js';
import { SUB_A, startAnalysisHost, USER } from '../finops-engine/support.js';
import type { TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';

// The simulator's slow switch holds every answer of one endpoint far longer than the request
// timeout: to the client it is a silent API (connection accepted, nothing comes back).
const SILENCE_MS = 60_000;
const TIMEOUT_MS = 500;

describe('Azure requests against a silent API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ resourcesPerSubscription: 5 });
  });
  afterEach(() => h.sim.faults.reset());
  afterAll(async () => {
    await h?.sim.close();
  });

  const calls: Array<[SimEndpoint, string, (a: AzureAccess) => Promise<unknown>]> = [
    ['token', 'the token request', (a) => a.getSubscriptionName(SUB)],
    ['subscription', 'the subscription lookup', (a) => a.getSubscriptionName(SUB)],
    ['graph', 'the Resource Graph query', (a) => a.listResources(SUB)],
    ['cost', 'the cost query', (a) => a.monthToDateByGroupAndService(SUB)],
  ];

  for (const [endpoint, what, call] of calls) {
    it(`gives up on ${what} after the request timeout instead of waiting for the answer`, {
      timeout: 20_000,
    }, async () => {
      const access = h.access({ requestTimeoutMs: TIMEOUT_MS });
      // Warm up the token (and metadata) first, except when the token itself is the silent one.
      if (endpoint !== 'token') await access.getSubscriptionName(SUB);
      h.sim.faults.slow(SILENCE_MS, endpoint);
      const started = Date.now();
      const outcome = await Promise.race([
        call(access).then(
          () => 'answered',
          (err: unknown) => err,
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000)),
      ]);
      expect(outcome).toBeInstanceOf(Error);
      expect(String((outcome as Error).message)).toMatch(/did not answer within 1 s|network_error/);
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  }

  it('still answers normally when the API is merely slower than usual but within the timeout', async () => {
    const access = h.access({ requestTimeoutMs: 5_000 });
    h.sim.faults.slow(200, 'cost');
    const r = await access.monthToDateByGroupAndService(SUB);
    expect(r.rows.length).toBeGreaterThan(0);
  });
});

describe('the single-analysis gate with a silent cost API', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 5 });
    host = await startAnalysisHost(sim, { extra: { Cloud__RequestTimeoutSeconds: '1' } });
  });
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('fails the analysis with a clear reason and frees the gate for the next one', {
    timeout: 60_000,
  }, async () => {
    const api = apiClient(host.url);
    sim.faults.slow(SILENCE_MS, 'cost');
    const started = Date.now();
    const stuck = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(stuck.body.success).toBe(false);
    expect(stuck.body.errorDetails).toMatch(/did not answer within 1 s/);
    sim.faults.reset();
    const next = await api.post('/finops/api/Analysis/start', { token: USER, json: SUB_A });
    expect(next.body.success).toBe(true);
  });
});
