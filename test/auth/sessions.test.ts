import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_CACHE_SECONDS } from '../../shared/auth/sessions.js';
import type { UserRow } from '../../shared/auth/users.js';
import { TEST_PG_URL } from '../support/databases.js';
import { sharingWith, startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { PASSWORD, seedUser, tokenOf } from './helpers.js';

const login = async (api: ReturnType<typeof apiClient>, user: UserRow) => {
  const res = await api.post('/auth/api/Auth/login', { json: { username: user.email, password: PASSWORD } });
  expect(res.status).toBe(200);
  return res.body.token as string;
};
const whoAmI = (api: ReturnType<typeof apiClient>, token: string) =>
  api.get('/auth/api/User/GetUserDetailsByToken', { token });

describe('sessions an administrator or the user can end', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let adminToken: string;
  let admin: UserRow;

  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    admin = await seedUser(host, { isAdmin: true });
    adminToken = tokenOf(host, admin);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('signOutEverywhere refuses every token of the caller issued before it, this one included', async () => {
    const user = await seedUser(host);
    const phone = await login(api, user);
    const laptop = await login(api, user);
    expect((await whoAmI(api, phone)).status).toBe(200);
    const res = await api.post('/auth/api/User/signOutEverywhere', { token: laptop });
    expect(res.status).toBe(204);
    for (const token of [phone, laptop]) {
      const refused = await whoAmI(api, token);
      expect(isProblem(refused, 401)).toBe(true);
    }
    // A sign-in right after the cut works.
    expect((await whoAmI(api, await login(api, user))).status).toBe(200);
  });

  it('revokeSessions lets an administrator end a user’s sessions, and is recorded', async () => {
    const user = await seedUser(host);
    const token = await login(api, user);
    const res = await api.post(`/auth/api/User/${user.id}/revokeSessions`, { token: adminToken });
    expect(res.status).toBe(204);
    expect(isProblem(await whoAmI(api, token), 401)).toBe(true);
    // The administrator's own session is untouched.
    expect((await whoAmI(api, adminToken)).status).toBe(200);
    const audit = await api.get(`/auth/api/Audit?action=user.sessionsRevoked&userId=${user.id}`, {
      token: adminToken,
    });
    expect(audit.body[0]).toMatchObject({
      actorId: admin.id,
      targetId: user.id,
      details: { scope: 'admin' },
    });
  });

  it('answers 404 for an unknown user and 403 for a non-administrator', async () => {
    const user = await seedUser(host);
    const unknown = await api.post('/auth/api/User/9b2f6c1e-1111-4222-8333-444455556666/revokeSessions', {
      token: adminToken,
    });
    expect(isProblem(unknown, 404)).toBe(true);
    const notAdmin = await api.post(`/auth/api/User/${admin.id}/revokeSessions`, {
      token: tokenOf(host, user),
    });
    expect(isProblem(notAdmin, 403)).toBe(true);
    expect((await whoAmI(api, adminToken)).status).toBe(200);
  });
});

// Two instances of the app on one PostgreSQL database: a revocation on one is honoured by the
// other once its cached user row expires (USER_CACHE_SECONDS). Host B's cache runs on a clock the
// tests move, so the window is stepped over, not waited out.
describe.runIf(TEST_PG_URL)('ending sessions on two hosts sharing one PostgreSQL database', () => {
  let a: TestHost;
  let b: TestHost;
  let bNow = 1_000_000;
  const cacheWindowPasses = () => {
    bNow += USER_CACHE_SECONDS * 1000 + 1;
  };

  beforeAll(async () => {
    a = await startTestHost({ queueWorker: false, database: 'postgres' });
    b = await startTestHost(
      sharingWith(a, { queueWorker: false, servicesOptions: { cacheClock: () => bNow } }),
    );
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a revocation on one host is honoured by the other once the user-cache window has passed', async () => {
    const apiA = apiClient(a.url);
    const apiB = apiClient(b.url);
    const admin = await seedUser(a, { isAdmin: true });
    const user = await seedUser(a);
    const token = await login(apiB, user);
    // B has the user row cached now.
    expect((await whoAmI(apiB, token)).status).toBe(200);
    expect(
      (await apiA.post(`/auth/api/User/${user.id}/revokeSessions`, { token: tokenOf(a, admin) })).status,
    ).toBe(204);
    expect(isProblem(await whoAmI(apiA, token), 401)).toBe(true);
    // Within the window B still answers from its cached row: the documented bound of the delay.
    expect((await whoAmI(apiB, token)).status).toBe(200);
    cacheWindowPasses();
    expect(isProblem(await whoAmI(apiB, token), 401)).toBe(true);
    // And from then on, on both.
    expect(isProblem(await whoAmI(apiB, token), 401)).toBe(true);
    expect(isProblem(await whoAmI(apiA, token), 401)).toBe(true);
  });

  it('signOutEverywhere on one host ends the sessions used on the other', async () => {
    const apiA = apiClient(a.url);
    const apiB = apiClient(b.url);
    const user = await seedUser(a);
    const onA = await login(apiA, user);
    const onB = await login(apiB, user);
    expect((await whoAmI(apiB, onB)).status).toBe(200);
    expect((await apiA.post('/auth/api/User/signOutEverywhere', { token: onA })).status).toBe(204);
    expect(isProblem(await whoAmI(apiA, onA), 401)).toBe(true);
    expect((await whoAmI(apiB, onB)).status).toBe(200);
    cacheWindowPasses();
    expect(isProblem(await whoAmI(apiB, onB), 401)).toBe(true);
  });
});
