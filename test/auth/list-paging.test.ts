import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_UNPAGED_ROWS } from '../../shared/auth/routes/common.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { seedUser, tokenOf } from './helpers.js';

const NOTIFY_KEY = 'notification-service-key-for-tests-0123';

// User/GetAll was once unbounded and UserAction cut silently at 10,000. Every auth list is
// paged by the one rule (page, pageSize, X-Total-Count) and, unpaged, keeps the plain array the web
// client reads, bounded, with the true total in X-Total-Count.
describe('auth lists: bounded plain arrays, paged on request, every cut visible', () => {
  let host: TestHost;
  let adminToken: string;
  const api = () => apiClient(host.url);
  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false, settings: { Notification__ServiceKey: NOTIFY_KEY } });
    adminToken = tokenOf(host, await seedUser(host, { isAdmin: true }));
  });
  afterAll(async () => {
    await host?.close();
  });

  it('pages User/GetAll and tells the total', async () => {
    for (let i = 0; i < 3; i++) await seedUser(host);
    const total = await host.services.prisma.user.count();
    const all = await api().get('/auth/api/User/GetAll', { token: adminToken });
    expect(all.body).toHaveLength(total);
    expect(all.headers.get('x-total-count')).toBe(String(total));
    const page2 = await api().get('/auth/api/User/GetAll?page=2&pageSize=2', { token: adminToken });
    expect(page2.body).toEqual(all.body.slice(2, 4));
    expect(page2.headers.get('x-total-count')).toBe(String(total));
    expect(page2.headers.get('x-page-size')).toBe('2');
    expect(isProblem(await api().get('/auth/api/User/GetAll?pageSize=0', { token: adminToken }), 400)).toBe(
      true,
    );
  });

  it(`answers UserAction unpaged with the newest ${AUTH_UNPAGED_ROWS} and the true total, and the rest by page`, async () => {
    const user = await seedUser(host);
    const base = Date.UTC(2026, 0, 1);
    await host.services.prisma.userAction.createMany({
      data: Array.from({ length: AUTH_UNPAGED_ROWS + 5 }, (_, i) => ({
        userId: user.id,
        action: `action ${i}`,
        timeStamp: new Date(base + i * 1000),
      })),
    });
    const token = tokenOf(host, user);
    const unpaged = await api().get('/auth/api/UserAction', { token });
    expect(unpaged.body).toHaveLength(AUTH_UNPAGED_ROWS);
    expect(unpaged.body[0].action).toBe(`action ${AUTH_UNPAGED_ROWS + 4}`);
    expect(unpaged.headers.get('x-total-count')).toBe(String(AUTH_UNPAGED_ROWS + 5));
    const last = await api().get(`/auth/api/UserAction?page=${AUTH_UNPAGED_ROWS / 5000 + 1}&pageSize=5000`, {
      token,
    });
    expect(last.body.map((a: { action: string }) => a.action)).toEqual(
      [4, 3, 2, 1, 0].map((i) => `action ${i}`),
    );
  });

  it('pages the push tokens of a group, one entry per token', async () => {
    const [a, b] = [await seedUser(host), await seedUser(host)];
    await host.services.prisma.userMonitorGroup.createMany({
      data: [a, b].map((u) => ({ userId: u.id, groupMonitorId: 77 })),
    });
    await host.services.prisma.userDeviceToken.createMany({
      data: [
        { userId: a.id, deviceToken: 'tok-1' },
        { userId: b.id, deviceToken: 'tok-2' },
        { userId: b.id, deviceToken: 'tok-1' },
        { userId: a.id, deviceToken: 'tok-3' },
      ],
    });
    const headers = { 'X-Notification-Key': NOTIFY_KEY };
    const all = await api().get('/auth/api/User/GetUserDeviceTokenListByGroupId/77', { headers });
    expect(all.body).toEqual(['tok-1', 'tok-2', 'tok-3']);
    expect(all.headers.get('x-total-count')).toBe('3');
    const second = await api().get('/auth/api/User/GetUserDeviceTokenListByGroupId/77?page=2&pageSize=2', {
      headers,
    });
    expect(second.body).toEqual(['tok-3']);
  });
});
