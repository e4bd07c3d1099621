import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../finops-api/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { exportLines, focusCsv } from './export-fixture.js';

const SUB = '5e1eb5b0-1313-4a13-9d13-0000000000a1';

/** GET CostImports/history: what the Imports page lists, for the subscription's users and admins. */
describe('cost import history', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let user: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false, { subscriptions: [SUB] });
    outsider = await createUser(host.services.prisma, false);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers empty lists before any import, then the import with its rows, days and author', async () => {
    const before = await api.get(`/finops/api/CostImports/history?subscriptionId=${SUB}`, {
      token: user.token,
    });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ imports: [], failed: [] });

    const csv = focusCsv(
      exportLines(SUB, '2026-09-01', 30, [
        { resourceGroup: 'rg-a', service: 'Storage', resource: 'st-1', level: 10 },
      ]),
    );
    const posted = await fetch(`${host.url}/finops/api/CostImports?subscriptionId=${SUB}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'text/csv' },
      body: csv,
    });
    expect(posted.status).toBe(200);
    const summary = (await posted.json()) as { importId: number; analysisRunId: number };

    const after = await api.get(`/finops/api/CostImports/history?subscriptionId=${SUB.toUpperCase()}`, {
      token: user.token,
    });
    expect(after.status).toBe(200);
    expect(after.body.failed).toEqual([]);
    expect(after.body.imports).toEqual([
      {
        importId: summary.importId,
        analysisRunId: summary.analysisRunId,
        subscriptionId: SUB,
        source: 'http',
        format: 'focus',
        location: null,
        rows: 30,
        skippedRows: 0,
        from: '2026-09-01',
        to: '2026-09-30',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        createdBy: user.email,
      },
    ]);
  });

  it('refuses a user the subscription is not assigned to (403) and a malformed id (400)', async () => {
    const refused = await api.get(`/finops/api/CostImports/history?subscriptionId=${SUB}`, {
      token: outsider.token,
    });
    expect(refused.status).toBe(403);
    const bad = await api.get('/finops/api/CostImports/history?subscriptionId=not-a-guid', {
      token: user.token,
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    const missing = await api.get('/finops/api/CostImports/history', { token: user.token });
    expect(missing.status).toBe(400);
    expect((await api.get(`/finops/api/CostImports/history?subscriptionId=${SUB}`)).status).toBe(401);
  });
});
