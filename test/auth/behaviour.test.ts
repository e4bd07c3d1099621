import argon2 from 'argon2';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { UserRow } from '../../shared/auth/users.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { forgeToken, PASSWORD, seedUser, sleep, tokenOf, uniq } from './helpers.js';

const MOBILE_KEY = 'mobile-key-for-tests-0123456789';
const NOTIFY_KEY = 'notification-service-key-for-tests-0123';
const SUB_A = '4b1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e9f';
const SUB_B = '0f0e0d0c-0b0a-4909-8807-060504030201';

describe('auth service behaviour', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: UserRow;
  let adminToken: string;

  beforeAll(async () => {
    host = await startTestHost({
      queueWorker: false,
      settings: {
        MOBILE_API_KEY: MOBILE_KEY,
        BLOCKED_DOMAINS: 'blocked.example, @Evil.Example',
        ADMIN_EMAILS: 'boss@example.com',
        Notification__ServiceKey: NOTIFY_KEY,
      },
    });
    api = apiClient(host.url);
    admin = await seedUser(host, { isAdmin: true });
    adminToken = tokenOf(host, admin);
  });
  afterAll(async () => {
    await host?.close();
  });

  describe('sign-in and tokens', () => {
    it('logs in by email or user name and returns a token with the original claims plus sub, email, iat, nbf, exp', async () => {
      const user = await seedUser(host);
      const byEmail = await api.post('/auth/api/Auth/login', {
        json: { username: user.email.toUpperCase(), password: PASSWORD },
      });
      expect(byEmail.status).toBe(200);
      expect(Object.keys(byEmail.body)).toEqual(['token']);
      const byName = await api.post('/auth/api/Auth/login', {
        json: { UserName: user.username, PASSWORD: PASSWORD },
      });
      expect(byName.status).toBe(200);
      const decoded = jwt.decode(byEmail.body.token, { complete: true })!;
      expect(decoded.header.alg).toBe('HS256');
      const c = decoded.payload as Record<string, unknown>;
      expect(c).toMatchObject({
        id: user.id,
        sub: user.id,
        givenname: user.username,
        surname: user.username,
        emailaddress: user.email,
        email: user.email,
        isAdmin: 'False',
        iss: 'finwatch-test',
        aud: 'finwatch-test',
      });
      expect(c.nbf).toBe(c.iat);
      expect((c.exp as number) - (c.iat as number)).toBe(1440 * 60);
      const me = await api.get('/auth/api/User/GetUserDetailsByToken', { token: byEmail.body.token });
      expect(me.body).toEqual({ id: user.id, username: user.username, email: user.email, isAdmin: false });
    });

    it('answers wrong credentials and unknown accounts with the same 400, never 401', async () => {
      const user = await seedUser(host);
      const wrong = await api.post('/auth/api/Auth/login', {
        json: { username: user.email, password: 'nope-nope' },
      });
      const unknown = await api.post('/auth/api/Auth/login', {
        json: { username: `ghost-${uniq()}@example.com`, password: 'nope-nope' },
      });
      const noPassword = await seedUser(host, { password: false });
      const directoryOnly = await api.post('/auth/api/Auth/login', {
        json: { username: noPassword.email, password: 'nope-nope' },
      });
      for (const r of [wrong, unknown, directoryOnly]) {
        expect(isProblem(r, 400)).toBe(true);
        expect(r.body.message).toBe('Invalid credentials.');
      }
      const bad = await api.post('/auth/api/Auth/login', { json: { username: user.email } });
      expect(isProblem(bad, 400)).toBe(true);
      expect(bad.body.errors.password).toBeDefined();
      expect(isProblem(await api.post('/auth/api/Auth/login', { raw: '{not json' }), 400)).toBe(true);
    });

    it('does the same work for an unknown account as for a known one: one argon2 verification of the same cost', async () => {
      const user = await seedUser(host);
      const verify = vi.spyOn(argon2, 'verify');
      // What an argon2 hash string says its cost is (memory, passes, lanes).
      const cost = (hash: string) => hash.split('$')[3];
      try {
        const costs = async (username: string) => {
          verify.mockClear();
          const r = await api.post('/auth/api/Auth/login', {
            json: { username, password: 'wrong-password' },
          });
          expect(isProblem(r, 400)).toBe(true);
          return verify.mock.calls.map(([hash]) => cost(hash));
        };
        const known = await costs(user.email);
        const unknown = await costs(`ghost-${uniq()}@example.com`);
        expect(known).toHaveLength(1);
        expect(unknown).toEqual(known);
      } finally {
        verify.mockRestore();
      }
    });

    it('throttles an account from one address after 10 failures in 15 minutes with 429 and Retry-After, even for the right password', async () => {
      const user = await seedUser(host);
      const bystander = await seedUser(host);
      // Failures count per account, whether the email or the user name is typed.
      for (let i = 0; i < 10; i++) {
        const r = await api.post('/auth/api/Auth/login', {
          json: { username: i % 2 ? user.email : user.username, password: `wrong-${i}` },
        });
        expect(r.status).toBe(400);
      }
      const blocked = await api.post('/auth/api/Auth/login', {
        json: { username: user.email, password: PASSWORD },
      });
      expect(isProblem(blocked, 429)).toBe(true);
      const retry = Number(blocked.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(800);
      expect(retry).toBeLessThanOrEqual(900);
      const other = await api.post('/auth/api/Auth/login', {
        json: { username: bystander.email, password: PASSWORD },
      });
      expect(other.status).toBe(200);
      // The window passes: failures older than 15 minutes no longer count.
      await host.services.prisma.loginFailure.updateMany({
        where: { account: user.email },
        data: { createdAt: new Date(Date.now() - 16 * 60_000) },
      });
      const after = await api.post('/auth/api/Auth/login', {
        json: { username: user.email, password: PASSWORD },
      });
      expect(after.status).toBe(200);
    });

    it('accepts any listed issuer and audience and up to 5 s of clock skew (Jwt__ClockSkewSeconds), and pins HS256', async () => {
      const user = await seedUser(host);
      const now = Math.floor(Date.now() / 1000);
      const get = (token: string) => api.get('/auth/api/User/GetUserDetailsByToken', { token });
      expect(
        (await get(forgeToken(user, { issuer: 'other-issuer', audience: 'other-audience' }))).status,
      ).toBe(200);
      expect((await get(forgeToken(user, { iat: now - 3600, exp: now - 3 }))).status).toBe(200);
      expect((await get(forgeToken(user, { nbf: now + 3 }))).status).toBe(200);
      expect((await get(forgeToken(user, { iat: now - 3600, exp: now - 30 }))).status).toBe(401);
      expect((await get(forgeToken(user, { nbf: now + 30 }))).status).toBe(401);
      const hs512 = jwt.sign({ sub: user.id, id: user.id }, 'test-signing-key-0123456789-0123456789-abcdef', {
        algorithm: 'HS512',
        issuer: 'finwatch-test',
        audience: 'finwatch-test',
        expiresIn: 600,
      });
      expect((await get(hs512)).status).toBe(401);
      expect((await get('not-a-jwt')).status).toBe(401);
      const basic = await api.get('/auth/api/User/GetUserDetailsByToken', {
        headers: { authorization: 'Basic abc' },
      });
      expect(isProblem(basic, 401)).toBe(true);
    });

    it('refreshToken validates the presented token and returns a new one', async () => {
      const user = await seedUser(host);
      const res = await api.post('/auth/api/Auth/refreshToken', { token: tokenOf(host, user) });
      expect(res.status).toBe(200);
      const claims = jwt.decode(res.body.token) as Record<string, unknown>;
      expect(claims.id).toBe(user.id);
      expect(
        (await api.post('/auth/api/Auth/refreshToken', { token: `${tokenOf(host, user)}x` })).status,
      ).toBe(401);
    });

    it('updatePassword needs the current password, 8+ characters, and retires older tokens', async () => {
      const user = await seedUser(host);
      const old = tokenOf(host, user);
      await sleep(1100);
      const wrong = await api.post('/auth/api/User/updatePassword', {
        token: old,
        json: { currentPassword: 'not-it-at-all', newPassword: 'brand new secret' },
      });
      expect(isProblem(wrong, 400)).toBe(true);
      const short = await api.post('/auth/api/User/updatePassword', {
        token: old,
        json: { currentPassword: PASSWORD, newPassword: 'short' },
      });
      expect(isProblem(short, 400)).toBe(true);
      expect(short.body.errors.newPassword).toBeDefined();
      const done = await api.post('/auth/api/User/updatePassword', {
        token: old,
        json: { currentPassword: PASSWORD, newPassword: 'brand new secret' },
      });
      expect(done.status).toBe(200);
      expect((await api.get('/auth/api/User/GetUserDetailsByToken', { token: old })).status).toBe(401);
      expect((await api.get('/auth/api/User/GetUserDetailsByToken', { token: done.body.token })).status).toBe(
        200,
      );
      const login = await api.post('/auth/api/Auth/login', {
        json: { username: user.email, password: 'brand new secret' },
      });
      expect(login.status).toBe(200);
    });
  });

  describe('Auth/azure (mobile)', () => {
    it('checks the apiKey before creating anything, then creates the user and returns a token', async () => {
      const email = `mobile-${uniq()}@example.com`;
      const wrong = await api.post('/auth/api/Auth/azure', { json: { email, apiKey: 'wrong' } });
      expect(isProblem(wrong, 400)).toBe(true);
      expect(wrong.body.message).toBe('Invalid API key.');
      expect(await host.services.prisma.user.count({ where: { email } })).toBe(0);
      const ok = await api.post('/auth/api/Auth/azure', { json: { Email: email, apikey: MOBILE_KEY } });
      expect(ok.status).toBe(200);
      const user = await host.services.prisma.user.findUniqueOrThrow({ where: { email } });
      expect(user).toMatchObject({ username: email, isAdmin: false, passwordHash: null });
      expect((jwt.decode(ok.body.token) as { id: string }).id).toBe(user.id);
      // Not in DEMO_MODE: no default group.
      expect(await host.services.prisma.userMonitorGroup.count({ where: { userId: user.id } })).toBe(0);
      const again = await api.post('/auth/api/Auth/azure', { json: { email, apiKey: MOBILE_KEY } });
      expect(again.status).toBe(200);
      expect(await host.services.prisma.user.count({ where: { email } })).toBe(1);
    });
  });

  describe('users', () => {
    it('creates an account: 201 with the UserDto; mismatched, short or duplicate input is refused', async () => {
      const id = uniq();
      const body = {
        username: `neo-${id}`,
        userEmail: `Neo-${id}@Example.com`,
        password: PASSWORD,
        repeatPassword: PASSWORD,
      };
      const res = await api.post('/auth/api/User/create', { json: body });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        username: `neo-${id}`,
        email: `neo-${id}@example.com`,
        isAdmin: false,
      });
      const mismatch = await api.post('/auth/api/User/create', {
        json: { ...body, userEmail: `x-${id}@example.com`, repeatPassword: 'something else' },
      });
      expect(isProblem(mismatch, 400)).toBe(true);
      expect(mismatch.body.message).toBe('Passwords do not match.');
      const short = await api.post('/auth/api/User/create', {
        json: { ...body, userEmail: `y-${id}@example.com`, password: 'short', repeatPassword: 'short' },
      });
      expect(isProblem(short, 400)).toBe(true);
      const badEmail = await api.post('/auth/api/User/create', {
        json: { ...body, userEmail: 'not-an-email' },
      });
      expect(badEmail.body.errors.userEmail).toBeDefined();
      const dup = await api.post('/auth/api/User/create', { json: { ...body, username: `other-${id}` } });
      expect(isProblem(dup, 409)).toBe(true);
    });

    it('does not make an ADMIN_EMAILS account an administrator at registration (no proof of ownership)', async () => {
      const res = await api.post('/auth/api/User/create', {
        json: {
          username: 'the-boss',
          userEmail: 'Boss@example.com',
          password: PASSWORD,
          repeatPassword: PASSWORD,
        },
      });
      expect(res.status).toBe(201);
      expect(res.body.isAdmin).toBe(false);
    });

    it('refuses blocked domains on create, sign-in, mobile sign-in and every use of a token', async () => {
      const create = await api.post('/auth/api/User/create', {
        json: {
          username: `b-${uniq()}`,
          userEmail: 'someone@BLOCKED.example',
          password: PASSWORD,
          repeatPassword: PASSWORD,
        },
      });
      expect(isProblem(create, 403)).toBe(true);
      const azure = await api.post('/auth/api/Auth/azure', {
        json: { email: 'x@evil.example', apiKey: MOBILE_KEY },
      });
      expect(isProblem(azure, 403)).toBe(true);
      const user = await seedUser(host, { email: `late-${uniq()}@blocked.example` });
      const login = await api.post('/auth/api/Auth/login', {
        json: { username: user.email, password: PASSWORD },
      });
      expect(isProblem(login, 403)).toBe(true);
      const use = await api.get('/auth/api/User/GetUserDetailsByToken', { token: tokenOf(host, user) });
      expect(isProblem(use, 403)).toBe(true);
      // A subdomain or a look-alike is not the blocked domain.
      const near = await seedUser(host, { email: `ok-${uniq()}@notblocked.example` });
      expect(
        (await api.get('/auth/api/User/GetUserDetailsByToken', { token: tokenOf(host, near) })).status,
      ).toBe(200);
    });

    it('looks users up by id, email and user name (204 when absent, 400 for a bad id)', async () => {
      const user = await seedUser(host);
      const token = tokenOf(host, user);
      const dto = { id: user.id, username: user.username, email: user.email, isAdmin: false };
      expect((await api.get(`/auth/api/User/GetById/${user.id}`, { token })).body).toEqual(dto);
      expect(
        (await api.get(`/auth/api/User/GetByEmail/${user.email.toUpperCase()}`, { token })).body,
      ).toEqual(dto);
      expect((await api.get(`/auth/api/User/GetByUserName/${user.username}`, { token })).body).toEqual(dto);
      const none = await api.get('/auth/api/User/GetById/00000000-0000-4000-8000-000000000000', { token });
      expect(none.status).toBe(204);
      expect(none.text).toBe('');
      expect(
        (await api.get(`/auth/api/User/GetByEmail/nobody-${uniq()}@example.com`, { token })).status,
      ).toBe(204);
      expect(isProblem(await api.get('/auth/api/User/GetById/not-a-guid', { token }), 400)).toBe(true);
      expect(typeof (await api.get('/auth/api/User/GetUserCount', { token })).body).toBe('number');
    });

    it('GET User/{email}: that user, or 404 when neither known, the caller, nor in the directory', async () => {
      const user = await seedUser(host);
      const other = await seedUser(host);
      const token = tokenOf(host, user);
      expect((await api.get(`/auth/api/user/${other.email}`, { token })).body.id).toBe(other.id);
      expect((await api.get(`/auth/api/User/${user.email}`, { token })).body.id).toBe(user.id);
      expect(isProblem(await api.get(`/auth/api/User/nobody-${uniq()}@example.com`, { token }), 404)).toBe(
        true,
      );
    });

    it('lists all users for an administrator and users of a group', async () => {
      const user = await seedUser(host);
      await api.post('/auth/api/UsersMonitorGroup/AssignUserToGroup', {
        token: tokenOf(host, user),
        json: { groupMonitorId: 4242 },
      });
      const all = await api.get('/auth/api/User/GetAll', { token: adminToken });
      expect(all.body.some((u: { id: string }) => u.id === user.id)).toBe(true);
      expect(Object.keys(all.body[0]).sort()).toEqual(['email', 'id', 'isAdmin', 'username']);
      const group = await api.get('/auth/api/User/GetAllByGroupId/4242', { token: tokenOf(host, user) });
      expect(group.body).toEqual([
        { id: user.id, username: user.username, email: user.email, isAdmin: false },
      ]);
      expect(isProblem(await api.get('/auth/api/User/GetAllByGroupId/abc', { token: adminToken }), 400)).toBe(
        true,
      );
    });

    it('PUT User/update changes username, email and isAdmin; demotion takes effect at once', async () => {
      const user = await seedUser(host);
      const token = tokenOf(host, user);
      const promoted = await api.put('/auth/api/User/update', {
        token: adminToken,
        json: { id: user.id, username: `${user.username}-x`, email: `X-${user.email}`, isAdmin: true },
      });
      expect(promoted.body).toEqual({
        id: user.id,
        username: `${user.username}-x`,
        email: `x-${user.email}`,
        isAdmin: true,
      });
      expect((await api.get('/auth/api/User/GetAll', { token })).status).toBe(200);
      await api.put('/auth/api/User/update', {
        token: adminToken,
        json: { id: user.id, username: user.username, email: user.email, isAdmin: false },
      });
      expect((await api.get('/auth/api/User/GetAll', { token })).status).toBe(403);
      const clash = await api.put('/auth/api/User/update', {
        token: adminToken,
        json: { id: user.id, username: admin.username, email: user.email, isAdmin: false },
      });
      expect(isProblem(clash, 409)).toBe(true);
      const missing = await api.put('/auth/api/User/update', {
        token: adminToken,
        json: {
          id: '00000000-0000-4000-8000-000000000000',
          username: 'whoever',
          email: 'w@example.com',
          isAdmin: false,
        },
      });
      expect(isProblem(missing, 404)).toBe(true);
      const bad = await api.put('/auth/api/User/update', { token: adminToken, json: { id: user.id } });
      expect(isProblem(bad, 400)).toBe(true);
    });

    it('never demotes or deletes the last administrator', async () => {
      // Make `admin` the only administrator.
      await host.services.prisma.user.updateMany({
        where: { id: { not: admin.id } },
        data: { isAdmin: false },
      });
      host.services.auth.users.invalidate();
      const demote = await api.put('/auth/api/User/update', {
        token: adminToken,
        json: { id: admin.id, username: admin.username, email: admin.email, isAdmin: false },
      });
      expect(isProblem(demote, 409)).toBe(true);
      expect(
        isProblem(await api.delete(`/auth/api/User/delete/${admin.id}`, { token: adminToken }), 409),
      ).toBe(true);
      expect(isProblem(await api.delete('/auth/api/User/delete', { token: adminToken }), 409)).toBe(true);
      const second = await seedUser(host, { isAdmin: true });
      expect((await api.delete(`/auth/api/User/delete/${second.id}`, { token: adminToken })).status).toBe(
        200,
      );
      expect(
        isProblem(await api.delete(`/auth/api/User/delete/${second.id}`, { token: adminToken }), 404),
      ).toBe(true);
    });

    it('lets only one of two concurrent demotions of the last two administrators through', async () => {
      await host.services.prisma.user.updateMany({
        where: { id: { not: admin.id } },
        data: { isAdmin: false },
      });
      host.services.auth.users.invalidate();
      const second = await seedUser(host, { isAdmin: true });
      const demote = (u: UserRow, by: UserRow) =>
        api.put('/auth/api/User/update', {
          token: tokenOf(host, by),
          json: { id: u.id, username: u.username, email: u.email, isAdmin: false },
        });
      const results = await Promise.all([demote(admin, second), demote(second, admin)]);
      const admins = await host.services.prisma.user.count({ where: { isAdmin: true } });
      // Restore `admin` as the administrator for the other tests.
      await host.services.prisma.user.update({ where: { id: admin.id }, data: { isAdmin: true } });
      host.services.auth.users.invalidate();
      // One wins; the other is refused: 409 when both got past the admin check at once, else 403
      // because its caller was demoted first. Either way one administrator remains.
      const statuses = results.map((r) => r.status).sort();
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      expect(admins).toBe(1);
    });

    it('deleting a user deletes its device tokens, clusters, subscriptions, groups, actions and token', async () => {
      const user = await seedUser(host);
      const token = tokenOf(host, user);
      await api.post('/auth/api/User/UpdateUserDeviceToken', { token, json: { deviceToken: 'dev-1' } });
      await api.post('/auth/api/UserClusters', {
        token: adminToken,
        json: { userId: user.id, clusterName: 'aks' },
      });
      await api.post('/auth/api/UserSubscriptions', {
        token: adminToken,
        json: { userId: user.id, subscriptionId: SUB_A },
      });
      await api.post('/auth/api/UsersMonitorGroup/AssignUserToGroup', { token, json: { groupMonitorId: 3 } });
      await api.post('/auth/api/UserAction/create', { token, json: { action: 'x' } });
      const res = await api.delete('/auth/api/User/delete', { token });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      const p = host.services.prisma;
      const where = { where: { userId: user.id } };
      expect(
        await Promise.all([
          p.userDeviceToken.count(where),
          p.userCluster.count(where),
          p.userSubscription.count(where),
          p.userMonitorGroup.count(where),
          p.userAction.count(where),
        ]),
      ).toEqual([0, 0, 0, 0, 0]);
      expect(isProblem(await api.get('/auth/api/User/GetUserDetailsByToken', { token }), 401)).toBe(true);
    });
  });

  describe('device tokens', () => {
    it('stores a device token once and lists tokens as string arrays (by user for self or admin, by group for the Notification service key)', async () => {
      const user = await seedUser(host);
      const token = tokenOf(host, user);
      for (const t of ['tok-a', 'tok-a', 'tok-b']) {
        const r = await api.post('/auth/api/User/UpdateUserDeviceToken', { token, json: { DeviceToken: t } });
        expect(r.status).toBe(200);
      }
      expect((await api.get('/auth/api/User/GetUserDeviceTokenList', { token })).body).toEqual([
        'tok-a',
        'tok-b',
      ]);
      expect(
        (await api.get(`/auth/api/User/GetUserDeviceTokenListByUserId/${user.id}`, { token: adminToken }))
          .body,
      ).toEqual(['tok-a', 'tok-b']);
      await api.post('/auth/api/UsersMonitorGroup/AssignUserToGroup', {
        token,
        json: { groupMonitorId: 9191 },
      });
      const byGroup = await api.get('/auth/api/User/GetUserDeviceTokenListByGroupId/9191', {
        headers: { 'X-Notification-Key': NOTIFY_KEY },
      });
      expect(byGroup.body).toEqual(['tok-a', 'tok-b']);
      expect(
        isProblem(await api.post('/auth/api/User/UpdateUserDeviceToken', { token, json: {} }), 400),
      ).toBe(true);
    });
  });

  describe('user actions', () => {
    it('stamps actions with the server time when absent and lists own actions, all for an administrator', async () => {
      const user = await seedUser(host);
      const other = await seedUser(host);
      const token = tokenOf(host, user);
      const before = Date.now();
      expect(
        (
          await api.post('/auth/api/UserAction/create', {
            token,
            json: { action: 'login', userId: other.id },
          })
        ).status,
      ).toBe(200);
      await api.post('/auth/api/UserAction/create', {
        token: tokenOf(host, other),
        json: { action: 'other', timeStamp: '2026-01-02T03:04:05Z' },
      });
      const mine = await api.get('/auth/api/UserAction', { token });
      expect(mine.body).toHaveLength(1);
      expect(mine.body[0]).toMatchObject({ userId: user.id, action: 'login' });
      expect(Date.parse(mine.body[0].timeStamp)).toBeGreaterThanOrEqual(before - 1000);
      const all = await api.get('/auth/api/UserAction', { token: adminToken });
      const theirs = all.body.find((a: { userId: string }) => a.userId === other.id);
      expect(theirs.timeStamp).toBe('2026-01-02T03:04:05.000Z');
      expect(
        isProblem(await api.post('/auth/api/UserAction/create', { token, json: { action: '' } }), 400),
      ).toBe(true);
      expect(
        isProblem(
          await api.post('/auth/api/UserAction/create', {
            token,
            json: { action: 'a', timeStamp: 'yesterday' },
          }),
          400,
        ),
      ).toBe(true);
    });
  });

  describe('clusters, subscriptions and monitor groups', () => {
    it('replaces clusters in one go; an empty list removes all; a missing list is 400', async () => {
      const user = await seedUser(host);
      const path = '/auth/api/UserClusters/CreateOrUpdate';
      await api.post(path, { token: adminToken, json: { userId: user.id, clusters: ['b', 'a', ' ', 'a'] } });
      const list = await api.get(`/auth/api/UserClusters/GetAllByUserId/${user.id}`, {
        token: tokenOf(host, user),
      });
      expect(list.body).toEqual([
        { userId: user.id, clusterName: 'a' },
        { userId: user.id, clusterName: 'b' },
      ]);
      await api.post(path, { token: adminToken, json: { userId: user.id, clusters: [] } });
      expect(
        (await api.get(`/auth/api/UserClusters/GetAllByUserId/${user.id}`, { token: adminToken })).body,
      ).toEqual([]);
      expect(isProblem(await api.post(path, { token: adminToken, json: { userId: user.id } }), 400)).toBe(
        true,
      );
      const ghost = { userId: '00000000-0000-4000-8000-000000000000', clusters: ['x'] };
      expect(isProblem(await api.post(path, { token: adminToken, json: ghost }), 404)).toBe(true);
    });

    it('replaces subscriptions (GUIDs only) and lists them for the user or an administrator', async () => {
      const user = await seedUser(host);
      const path = '/auth/api/UserSubscriptions/CreateOrUpdate';
      await api.post(path, { token: adminToken, json: { userId: user.id, subscriptions: [SUB_A, SUB_B] } });
      await api.post(path, { token: adminToken, json: { UserId: user.id, Subscriptions: [SUB_B] } });
      const list = await api.get(`/auth/api/UserSubscriptions/GetAllByUserId/${user.id}`, {
        token: tokenOf(host, user),
      });
      expect(list.body).toEqual([{ userId: user.id, subscriptionId: SUB_B }]);
      const bad = await api.post(path, {
        token: adminToken,
        json: { userId: user.id, subscriptions: ['nope'] },
      });
      expect(isProblem(bad, 400)).toBe(true);
      const single = await api.post('/auth/api/UserSubscriptions', {
        token: adminToken,
        json: { userId: user.id, subscriptionId: SUB_A },
      });
      expect(single.status).toBe(200);
      expect(
        (await api.get(`/auth/api/UserSubscriptions/GetAllByUserId/${user.id}`, { token: adminToken })).body,
      ).toHaveLength(2);
    });

    it('monitor groups: self-assignment ignores the body userId, replace refuses an empty list, delete removes a group', async () => {
      const user = await seedUser(host);
      const victim = await seedUser(host);
      const token = tokenOf(host, user);
      await api.post('/auth/api/UsersMonitorGroup/AssignUserToGroup', {
        token,
        json: { userId: victim.id, groupMonitorId: 11 },
      });
      await api.post('/auth/api/UsersMonitorGroup/AssignUserToGroup', { token, json: { groupMonitorId: 0 } });
      const mine = await api.get('/auth/api/UsersMonitorGroup/GetAll', { token });
      expect(mine.body).toEqual([{ id: expect.any(String), userId: user.id, groupMonitorId: 11 }]);
      expect(
        (await api.get(`/auth/api/UsersMonitorGroup/GetAllByUserId/${victim.id}`, { token: adminToken }))
          .body,
      ).toEqual([]);

      const empty = await api.post('/auth/api/UsersMonitorGroup/create', { token: adminToken, json: [] });
      expect(isProblem(empty, 400)).toBe(true);
      const replaced = await api.post('/auth/api/UsersMonitorGroup/create', {
        token: adminToken,
        json: [
          { userId: user.id, groupMonitorId: 21 },
          { userId: user.id, groupMonitorId: 22 },
          { userId: user.id, groupMonitorId: 0 },
        ],
      });
      expect(replaced.status).toBe(200);
      // GetAllByUserId is for administrators, even with the caller's own id (its own list is GetAll).
      expect((await api.get(`/auth/api/UsersMonitorGroup/GetAllByUserId/${user.id}`, { token })).status).toBe(
        403,
      );
      const groups = await api.get(`/auth/api/UsersMonitorGroup/GetAllByUserId/${user.id}`, {
        token: adminToken,
      });
      expect(groups.body.map((g: { groupMonitorId: number }) => g.groupMonitorId)).toEqual([21, 22]);
      expect((await api.delete('/auth/api/UsersMonitorGroup/21', { token: adminToken })).status).toBe(200);
      expect(
        (await api.get('/auth/api/UsersMonitorGroup/GetAll', { token })).body.map(
          (g: { groupMonitorId: number }) => g.groupMonitorId,
        ),
      ).toEqual([22]);
      expect(isProblem(await api.delete('/auth/api/UsersMonitorGroup/abc', { token: adminToken }), 400)).toBe(
        true,
      );
    });
  });
});
