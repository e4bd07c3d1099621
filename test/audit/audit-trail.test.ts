import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAudit } from '../../shared/audit/record.js';
import { pruneAudit } from '../../shared/audit/trail.js';
import type { UserRow } from '../../shared/auth/users.js';
import { PASSWORD, seedUser, tokenOf, uniq } from '../auth/helpers.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

const SUB = '4b1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e9f';
const AGENT = 'audit-test-agent/1.0';

describe('audit trail through HTTP', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: UserRow;
  let adminToken: string;

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false, settings: { MOBILE_API_KEY: 'mobile-key-0123456789' } });
    api = apiClient(host.url);
    admin = await seedUser(host, { isAdmin: true });
    adminToken = tokenOf(host, admin);
  });
  afterAll(async () => {
    await host?.close();
  });

  const as = (token: string) => ({ token, headers: { 'user-agent': AGENT } });

  /** The records of one action about one user (as actor or target), newest first, through the API. */
  async function records(action: string, userId?: string) {
    const q = new URLSearchParams({ action, ...(userId ? { userId } : {}) });
    const res = await api.get(`/auth/api/Audit?${q}`, { token: adminToken });
    expect(res.status).toBe(200);
    return res.body as Array<Record<string, any>>;
  }

  it('records a successful sign-in with the actor, client address and user agent', async () => {
    const user = await seedUser(host);
    const res = await api.post('/auth/api/Auth/login', {
      json: { username: user.email, password: PASSWORD },
      headers: { 'user-agent': AGENT },
    });
    expect(res.status).toBe(200);
    const [r] = await records('signIn.succeeded', user.id);
    expect(r).toMatchObject({
      actorId: user.id,
      actorEmail: user.email,
      action: 'signIn.succeeded',
      targetType: 'user',
      targetId: user.id,
      details: { method: 'password' },
      clientAddress: '127.0.0.1',
      userAgent: AGENT,
    });
    expect(Date.now() - Date.parse(r!.at)).toBeLessThan(60_000);
  });

  it('takes the client address from the connection, not from what the client claims', async () => {
    const user = await seedUser(host);
    await api.post('/auth/api/Auth/login', {
      json: { username: user.email, password: PASSWORD },
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect((await records('signIn.succeeded', user.id))[0]).toMatchObject({ clientAddress: '127.0.0.1' });
  });

  it('records failed sign-ins with their reason, for known and unknown accounts', async () => {
    const user = await seedUser(host);
    await api.post('/auth/api/Auth/login', { json: { username: user.email, password: 'not the password' } });
    const ghost = `ghost-${uniq()}@example.com`;
    await api.post('/auth/api/Auth/login', { json: { username: ghost, password: 'whatever' } });
    await api.post('/auth/api/Auth/azure', { json: { email: user.email, apiKey: 'wrong key' } });
    const failed = await records('signIn.failed');
    expect(failed.find((r) => r.actorId === user.id && r.details.reason === 'wrong password')).toBeDefined();
    expect(failed.find((r) => r.actorEmail === ghost)).toMatchObject({
      actorId: null,
      details: { reason: 'unknown account' },
    });
    expect(
      failed.find((r) => r.actorEmail === user.email && r.details.reason === 'invalid mobile API key'),
    ).toBeDefined();
  });

  it('records a password change and a password reset', async () => {
    const user = await seedUser(host);
    const changed = await api.post('/auth/api/User/updatePassword', {
      ...as(tokenOf(host, user)),
      json: { currentPassword: PASSWORD, newPassword: 'another passphrase' },
    });
    expect(changed.status).toBe(200);
    expect((await records('password.changed', user.id))[0]).toMatchObject({
      actorId: user.id,
      userAgent: AGENT,
    });

    expect((await api.post(`/auth/api/User/resetPassword/${user.email}`)).status).toBe(200);
    await host.services.auth.idle();
    expect((await records('password.resetRequested', user.id))[0]).toMatchObject({ targetId: user.id });
    const mail = host.services.auth.mailer.outbox.find((m) => m.to === user.email);
    const code = /code=([A-Za-z0-9_-]+)/.exec(mail!.text)![1];
    const done = await api.post('/auth/api/User/resetPassword/confirm', {
      json: { email: user.email, code, newPassword: 'a third passphrase' },
    });
    expect(done.status).toBe(204);
    expect((await records('password.reset', user.id))[0]).toMatchObject({
      actorId: user.id,
      targetId: user.id,
    });
  });

  it('records a user the mobile key creates on first use', async () => {
    const email = `mobile-${uniq()}@example.com`;
    const res = await api.post('/auth/api/Auth/azure', { json: { email, apiKey: 'mobile-key-0123456789' } });
    expect(res.status).toBe(200);
    const user = await host.services.prisma.user.findUniqueOrThrow({ where: { email } });
    expect((await records('user.created', user.id))[0]).toMatchObject({
      actorId: user.id,
      targetId: user.id,
      details: { isAdmin: false, via: 'mobile key' },
    });
  });

  it('records user creation, update with the admin flag change, and deletion by an administrator', async () => {
    const email = `audit-${uniq()}@example.com`;
    const created = await api.post('/auth/api/User/create', {
      json: { username: `audit-${uniq()}`, userEmail: email, password: PASSWORD, repeatPassword: PASSWORD },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await records('user.created', id))[0]).toMatchObject({ actorId: id, targetId: id });

    const updated = await api.put('/auth/api/User/update', {
      ...as(adminToken),
      json: { id, username: created.body.username, email, isAdmin: true },
    });
    expect(updated.status).toBe(200);
    expect((await records('user.updated', id))[0]).toMatchObject({
      actorId: admin.id,
      targetId: id,
      details: { isAdmin: { from: false, to: true } },
    });

    expect((await api.delete(`/auth/api/User/delete/${id}`, as(adminToken))).status).toBe(200);
    expect((await records('user.deleted', id))[0]).toMatchObject({
      actorId: admin.id,
      targetId: id,
      details: { email, wasAdmin: true },
    });
  });

  it('records every change of cluster, subscription and monitor-group assignments', async () => {
    const user = await seedUser(host);
    const ok = async (path: string, json: unknown) =>
      expect((await api.post(path, { ...as(adminToken), json })).status).toBe(200);
    await ok('/auth/api/UserClusters', { userId: user.id, clusterName: 'aks-1' });
    await ok('/auth/api/UserClusters/CreateOrUpdate', { userId: user.id, clusters: ['aks-2'] });
    await ok('/auth/api/UserSubscriptions', { userId: user.id, subscriptionId: SUB });
    await ok('/auth/api/UserSubscriptions/CreateOrUpdate', { userId: user.id, subscriptions: [] });
    await ok('/auth/api/UsersMonitorGroup/create', [{ userId: user.id, groupMonitorId: 7 }]);
    expect(
      (
        await api.post('/auth/api/UsersMonitorGroup/AssignUserToGroup', {
          ...as(tokenOf(host, user)),
          json: { groupMonitorId: 9 },
        })
      ).status,
    ).toBe(200);
    expect((await api.delete('/auth/api/UsersMonitorGroup/9', as(adminToken))).status).toBe(200);

    const clusters = await records('userClusters.changed', user.id);
    expect(clusters.map((r) => r.details)).toEqual([{ from: ['aks-1'], to: ['aks-2'] }, { added: 'aks-1' }]);
    expect(clusters.every((r) => r.actorId === admin.id)).toBe(true);
    const subs = await records('userSubscriptions.changed', user.id);
    expect(subs.map((r) => r.details)).toEqual([{ from: [SUB], to: [] }, { added: SUB }]);
    const groups = await records('monitorGroups.changed', user.id);
    expect(groups.map((r) => [r.actorId, r.details])).toEqual([
      [user.id, { added: 9 }],
      [admin.id, { from: [], to: [7] }],
    ]);
    const groupDelete = (await records('monitorGroups.changed')).find(
      (r) => r.targetType === 'monitorGroup' && r.targetId === '9',
    );
    expect(groupDelete).toMatchObject({ actorId: admin.id, details: { removedAllUsers: true, count: 1 } });
  });

  it('records a device token added, by its tail only', async () => {
    const user = await seedUser(host);
    const token = `ExponentPushToken[${uniq()}abcdef]`;
    const res = await api.post('/auth/api/User/UpdateUserDeviceToken', {
      ...as(tokenOf(host, user)),
      json: { deviceToken: token },
    });
    expect(res.status).toBe(200);
    const [r] = await records('deviceToken.added', user.id);
    expect(r).toMatchObject({ actorId: user.id, details: { deviceTokenEnd: token.slice(-6) } });
    expect(JSON.stringify(r)).not.toContain(token);
  });

  it('records FinOps subscription metadata created, updated and deleted', async () => {
    const sub = `0f0e0d0c-0b0a-4909-8807-${uniq()}0000`;
    const created = await api.post('/finops/api/Subscriptions', {
      ...as(adminToken),
      json: { subscriptionId: sub, budget: 100 },
    });
    expect(created.status).toBe(200);
    const put = await api.put(`/finops/api/Subscriptions/${created.body.id}`, {
      ...as(adminToken),
      json: { budget: 250 },
    });
    expect(put.status).toBe(200);
    expect((await api.delete(`/finops/api/Subscriptions/${created.body.id}`, as(adminToken))).status).toBe(
      204,
    );
    const mine = (
      await records('subscription.created,subscription.updated,subscription.deleted', admin.id)
    ).filter((r) => r.targetId === sub);
    expect(mine.map((r) => [r.action, r.actorId])).toEqual([
      ['subscription.deleted', admin.id],
      ['subscription.updated', admin.id],
      ['subscription.created', admin.id],
    ]);
    expect(mine[1]!.details).toEqual({ budget: 250 });
  });

  it('records analysis starts and cleanups', async () => {
    const user = await seedUser(host);
    const started = await api.post('/finops/api/Analysis/start-async', {
      ...as(tokenOf(host, user)),
      json: SUB,
    });
    expect(started.status).toBe(202);
    expect((await records('analysis.started', user.id))[0]).toMatchObject({
      actorId: user.id,
      targetType: 'subscription',
      targetId: SUB,
      details: { mode: 'async', jobId: started.body.jobId },
    });
    expect((await api.post('/finops/api/Analysis/cleanup', as(adminToken))).status).toBe(200);
    const [cleanup] = await records('analysis.cleanup', admin.id);
    expect(cleanup).toMatchObject({ actorId: admin.id, details: { analysisRunsDeleted: 0 } });
  });

  it('pages like the other lists and filters by time range; only administrators read it', async () => {
    const user = await seedUser(host);
    for (let i = 0; i < 3; i++) {
      await api.post('/auth/api/Auth/login', { json: { username: user.email, password: `wrong-${i}` } });
    }
    const page = await api.get(`/auth/api/Audit?userId=${user.id}&action=signIn.failed&page=2&pageSize=2`, {
      token: adminToken,
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-total-count')).toBe('3');
    expect(page.headers.get('x-page')).toBe('2');
    expect(page.headers.get('x-page-size')).toBe('2');
    expect(page.body).toHaveLength(1);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    const none = await api.get(`/auth/api/Audit?userId=${user.id}&from=${future}`, { token: adminToken });
    expect(none.body).toEqual([]);
    const upTo = await api.get(`/auth/api/Audit?userId=${user.id}&to=${future}`, { token: adminToken });
    expect(upTo.body).toHaveLength(3);

    expect(isProblem(await api.get('/auth/api/Audit', { token: tokenOf(host, user) }), 403)).toBe(true);
    expect(isProblem(await api.get('/auth/api/Audit'), 401)).toBe(true);
    const bad = await api.get('/auth/api/Audit?from=yesterday', { token: adminToken });
    expect(isProblem(bad, 400)).toBe(true);
    expect(bad.body.message).toBe('from must be an ISO 8601 date (YYYY-MM-DD) or date and time');
  });

  it('commits the action and its record together or neither', async () => {
    const user = await seedUser(host);
    // A record the database refuses (jsonb cannot hold NUL) rolls the action back with it.
    await expect(
      host.services.prisma.$transaction(async (tx) => {
        await tx.user.update({ where: { id: user.id }, data: { username: `renamed-${uniq()}` } });
        await recordAudit(tx, {
          actor: { userId: user.id },
          action: 'user.updated',
          details: { note: 'a\u0000b' },
        });
      }),
    ).rejects.toThrow();
    const after = await host.services.prisma.user.findUnique({ where: { id: user.id } });
    expect(after!.username).toBe(user.username);
  });

  it('prunes a trail larger than one batch completely, batch by batch', async () => {
    const at = new Date(Date.now() - 800 * 86_400_000);
    await host.services.prisma.auditRecord.createMany({
      data: Array.from({ length: 7 }, () => ({ action: 'test.batch', at })),
    });
    expect(await pruneAudit(host.services.prisma, 365, Date.now(), 3)).toBe(7);
    expect(await host.services.prisma.auditRecord.count({ where: { action: 'test.batch' } })).toBe(0);
  });

  it('deletes records past the retention', async () => {
    const old = await host.services.prisma.auditRecord.create({
      data: { action: 'test.old', at: new Date(Date.now() - 400 * 86_400_000) },
    });
    const recent = await host.services.prisma.auditRecord.create({
      data: { action: 'test.old', at: new Date(Date.now() - 300 * 86_400_000) },
    });
    expect(await pruneAudit(host.services.prisma, 365)).toBe(1);
    const left = await host.services.prisma.auditRecord.findMany({ where: { action: 'test.old' } });
    expect(left.map((r) => r.id)).toEqual([recent.id]);
    expect(left.map((r) => r.id)).not.toContain(old.id);
  });
});
