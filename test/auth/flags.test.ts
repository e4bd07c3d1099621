import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { PASSWORD, seedUser, tokenOf, uniq } from './helpers.js';

const MOBILE_KEY = 'mobile-key-for-tests-0123456789';

describe('ENABLED_LOGIN_AUTH=false, DEMO_MODE=true, CacheSettings__CacheProvider=None', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    host = await startTestHost({
      queueWorker: false,
      settings: {
        ENABLED_LOGIN_AUTH: 'False',
        DEMO_MODE: 'true',
        MOBILE_API_KEY: MOBILE_KEY,
        CacheSettings__CacheProvider: 'None',
      },
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('refuses login, create, reset password and update password with 403 "Login is disabled."', async () => {
    const user = await seedUser(host);
    const token = tokenOf(host, user);
    const calls = [
      api.post('/auth/api/Auth/login', { json: { username: user.email, password: PASSWORD } }),
      api.post('/auth/api/User/create', {
        json: {
          username: `u-${uniq()}`,
          userEmail: `u-${uniq()}@example.com`,
          password: PASSWORD,
          repeatPassword: PASSWORD,
        },
      }),
      api.post(`/auth/api/User/resetPassword/${user.email}`),
      api.post('/auth/api/User/resetPassword/confirm', {
        json: { email: user.email, code: 'x', newPassword: PASSWORD },
      }),
      api.post('/auth/api/User/updatePassword', {
        token,
        json: { currentPassword: PASSWORD, newPassword: 'something new' },
      }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(isProblem(res, 403)).toBe(true);
      expect(res.body.message).toBe('Login is disabled.');
    }
    expect(await host.services.prisma.passwordResetCode.count()).toBe(0);
  });

  it('answers 403 before it reads the input: an invalid body or path says nothing of the rules', async () => {
    const token = tokenOf(host, await seedUser(host));
    const calls = [
      api.post('/auth/api/Auth/login', { json: {} }),
      api.post('/auth/api/User/create', { json: { username: 1 } }),
      api.post('/auth/api/User/resetPassword/not-an-email'),
      api.post('/auth/api/User/resetPassword/confirm', { json: [] }),
      api.post('/auth/api/User/updatePassword', { token, json: { currentPassword: null } }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(isProblem(res, 403)).toBe(true);
      expect(res.body.message).toBe('Login is disabled.');
    }
  });

  it('keeps directory sign-in, refreshToken and every other route working', async () => {
    const user = await seedUser(host);
    const token = tokenOf(host, user);
    expect((await api.post('/auth/api/Auth/refreshToken', { token })).status).toBe(200);
    expect((await api.get('/auth/api/User/GetUserDetailsByToken', { token })).status).toBe(200);
    const mobile = await api.post('/auth/api/Auth/azure', {
      json: { email: `m-${uniq()}@example.com`, apiKey: MOBILE_KEY },
    });
    expect(mobile.status).toBe(200);
  });

  it('puts users created by Auth/azure into the demo monitor group (24), once, and only after the key matched', async () => {
    const email = `demo-${uniq()}@example.com`;
    const refused = await api.post('/auth/api/Auth/azure', { json: { email, apiKey: 'not-the-key' } });
    expect(isProblem(refused, 400)).toBe(true);
    expect(await host.services.prisma.user.count({ where: { email } })).toBe(0);
    const res = await api.post('/auth/api/Auth/azure', { json: { email, apiKey: MOBILE_KEY } });
    const token = res.body.token as string;
    const groups = await api.get('/auth/api/UsersMonitorGroup/GetAll', { token });
    expect(groups.body).toEqual([{ id: expect.any(String), userId: expect.any(String), groupMonitorId: 24 }]);
    await api.post('/auth/api/Auth/azure', { json: { email, apiKey: MOBILE_KEY } });
    expect((await api.get('/auth/api/UsersMonitorGroup/GetAll', { token })).body).toHaveLength(1);
    // An existing account signing in through the mobile route is not moved into the group.
    const existing = await seedUser(host);
    await api.post('/auth/api/Auth/azure', { json: { email: existing.email, apiKey: MOBILE_KEY } });
    expect(await host.services.prisma.userMonitorGroup.count({ where: { userId: existing.id } })).toBe(0);
  });

  it('without a cache, sees a change made by another instance at once', async () => {
    const user = await seedUser(host);
    const token = tokenOf(host, user);
    expect((await api.get('/auth/api/User/GetUserDetailsByToken', { token })).body.isAdmin).toBe(false);
    // Another instance (straight to the database) promotes, then deletes the user.
    await host.services.prisma.user.update({ where: { id: user.id }, data: { isAdmin: true } });
    expect((await api.get('/auth/api/User/GetUserDetailsByToken', { token })).body.isAdmin).toBe(true);
    await host.services.prisma.user.delete({ where: { id: user.id } });
    expect(isProblem(await api.get('/auth/api/User/GetUserDetailsByToken', { token }), 401)).toBe(true);
  });
});
