import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, tokenOf } from '../auth/helpers.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

// The malformed-input sweep (sweep.test.ts) sends an unpaired surrogate in every property of every
// route and asks for no 5xx; this file pins the answer on the routes that store and audit the field.
// A JSON string with an unpaired surrogate in a field the audit trail records answered
// 500 (PostgreSQL's jsonb refuses it); UserAction/create stored U+FFFD instead. The edge refuses it
// on every route with a 400 naming the field, before anything is stored.
describe('unpaired UTF-16 surrogates are refused at the edge, naming the field', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers 400 on every route that records the field, and stores nothing', async () => {
    const admin = await seedUser(host, { isAdmin: true });
    const user = await seedUser(host);
    const token = tokenOf(host, admin);
    const sub = await host.services.prisma.subscription.create({
      data: { subscriptionId: '6f1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e01', description: 'before' },
    });
    const lone = 'x\ud800y';
    const probes: Array<{
      method: 'post' | 'put';
      path: string;
      body: Record<string, unknown>;
      field: string;
    }> = [
      {
        method: 'put',
        path: '/auth/api/User/update',
        body: { id: user.id, username: lone, email: user.email, isAdmin: false },
        field: 'username',
      },
      {
        method: 'post',
        path: '/auth/api/User/UpdateUserDeviceToken',
        body: { deviceToken: lone },
        field: 'deviceToken',
      },
      {
        method: 'post',
        path: '/auth/api/UserClusters',
        body: { userId: user.id, clusterName: lone },
        field: 'clusterName',
      },
      {
        method: 'post',
        path: '/auth/api/UserClusters/CreateOrUpdate',
        body: { userId: user.id, clusters: ['ok', lone] },
        field: 'clusters[1]',
      },
      { method: 'post', path: '/auth/api/UserAction/create', body: { action: lone }, field: 'action' },
      {
        method: 'put',
        path: `/finops/api/Subscriptions/${sub.id}`,
        body: { description: lone },
        field: 'description',
      },
    ];
    const api = apiClient(host.url);
    for (const p of probes) {
      // JSON.stringify escapes the lone surrogate, so the wire carries the "\ud800" escape itself.
      const raw = JSON.stringify(p.body);
      expect(raw).toContain('\\ud800');
      const res = await api[p.method](p.path, { token, raw });
      expect(isProblem(res, 400), `${p.path}: ${res.status} ${res.text.slice(0, 200)}`).toBe(true);
      expect(Object.keys(res.body.errors)).toEqual([p.field]);
      expect(res.body.detail).toMatch(new RegExp(`^${p.field.replace(/[[\]]/g, '\\$&')} `));
    }
    // Nothing was stored: the user, the lists, the actions and the subscription are as before.
    expect(await host.services.prisma.user.findUnique({ where: { id: user.id } })).toMatchObject({
      username: user.username,
    });
    expect(await host.services.prisma.userDeviceToken.count({ where: { userId: admin.id } })).toBe(0);
    expect(await host.services.prisma.userCluster.count({ where: { userId: user.id } })).toBe(0);
    expect(await host.services.prisma.userAction.count({ where: { userId: admin.id } })).toBe(0);
    expect((await host.services.prisma.subscription.findUnique({ where: { id: sub.id } }))?.description).toBe(
      'before',
    );
  });
});
