import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken, verifyOwnToken } from '../../shared/auth/tokens.js';
import type { UserRow } from '../../shared/auth/users.js';
import { loadConfig } from '../../shared/config/index.js';
import { forgeToken, PASSWORD, seedUser, tokenOf, uniq } from '../auth/helpers.js';
import { startTestHost, TEST_JWT_KEY, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

const SUB = '0b5c6a1e-1111-4a2b-8c3d-00000000000a';
const NOTIFY_KEY = 'notification-service-key-for-tests-0123';

/** A raw request (fetch cannot send TRACE, nor a 20 KB request line). */
function raw(
  url: string,
  o: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${o.path}`, { method: o.method, headers: o.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

describe('hostile edges of the HTTP surface', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: UserRow;
  let adminToken: string;

  beforeAll(async () => {
    host = await startTestHost({
      queueWorker: false,
      settings: { PUBLIC_BASE_URL: 'https://finwatch.example.com/', Notification__ServiceKey: NOTIFY_KEY },
    });
    api = apiClient(host.url);
    admin = await seedUser(host, { isAdmin: true });
    adminToken = tokenOf(host, admin);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('6: DELETE User/delete/ (empty id, trailing slash) never deletes the caller', async () => {
    const user = await seedUser(host);
    const token = tokenOf(host, user);
    for (const path of ['/auth/api/User/delete/', '/auth/api/User/delete//', '/auth/api//User/delete']) {
      const res = await api.delete(path, { token });
      expect(isProblem(res, 400)).toBe(true);
    }
    const adminRes = await api.delete('/auth/api/User/delete/', { token: adminToken });
    expect(isProblem(adminRes, 400)).toBe(true);
    expect(await host.services.prisma.user.count({ where: { id: { in: [user.id, admin.id] } } })).toBe(2);
    // The exact self-delete path still works.
    expect((await api.delete('/auth/api/User/delete', { token })).status).toBe(200);
  });

  it('7: every answer carries nosniff and Referrer-Policy, auth answers no-store, pages a frame-ancestors CSP, Location ignores Host', async () => {
    const user = await seedUser(host);
    const answers = [
      await api.post('/auth/api/Auth/login', { json: { username: user.email, password: PASSWORD } }),
      await api.get('/auth/api/User/GetUserDetailsByToken', { token: tokenOf(host, user) }),
      await api.get('/auth/api/no-such-route'),
      await api.get('/finops/api/Version'),
      await api.get('/finops/api/AnalysisRuns', { token: 'bad' }),
      await api.call('OPTIONS', '/finops/api/AnalysisRuns', {
        headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      }),
    ];
    for (const res of answers) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.headers.get('cache-control')).toBe('no-store');
    expect(answers[1]!.headers.get('cache-control')).toBe('no-store');
    const page = await api.get('/finops/api/swagger');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const started = await api.post('/finops/api/Analysis/start-async', {
      token: adminToken,
      json: SUB,
      headers: { host: 'evil.example' },
    });
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(
      `https://finwatch.example.com/finops/api/Analysis/jobs/${started.body.jobId}`,
    );
  });

  it('8: refuses a token issued in the same second as a password change, accepts one issued after it, and honours Jwt__ClockSkewSeconds', async () => {
    const user = await seedUser(host);
    const second = Math.floor(Date.now() / 1000) * 1000;
    const before = issueToken(host.config.auth, user, second + 100);
    const after = issueToken(host.config.auth, user, second + 300);
    await host.services.prisma.user.update({
      where: { id: user.id },
      data: { credentialsChangedAt: new Date(second + 200) },
    });
    host.services.auth.users.forget(user.id, user.email);
    const me = (token: string) => api.get('/auth/api/User/GetUserDetailsByToken', { token });
    expect(isProblem(await me(before), 401)).toBe(true);
    expect((await me(after)).status).toBe(200);
    // A token without the ms claim issued in that second is refused too.
    const plain = forgeToken(user, { iat: second / 1000, exp: second / 1000 + 3600 });
    expect(isProblem(await me(plain), 401)).toBe(true);

    const now = Math.floor(Date.now() / 1000);
    const stale = forgeToken(user, { iat: now - 100, exp: now - 3 });
    const settings = (skew: string) =>
      loadConfig({
        WEBAPP_ENVIRONMENT: 'Development',
        Jwt__Key: TEST_JWT_KEY,
        Jwt__Issuers: 'finwatch-test',
        Jwt__Audiences: 'finwatch-test',
        Jwt__ClockSkewSeconds: skew,
      }).auth;
    expect(() => verifyOwnToken(settings('0'), stale)).toThrow(/expired/);
    expect(verifyOwnToken(settings('10'), stale).sub).toBe(user.id);
    expect(settings('').Jwt__ClockSkewSeconds).toBe(5);
  });

  it('12: a NUL character in a body field, a path parameter or a query value is a 400', async () => {
    const token = tokenOf(host, await seedUser(host));
    const answers = [
      await api.post('/auth/api/Auth/login', { json: { username: 'a\u0000b', password: 'x' } }),
      await api.post('/auth/api/UserAction/create', { token, json: { action: 'ok\u0000' } }),
      await api.post('/auth/api/User/create', { json: { 'user\u0000name': 'x' } }),
      await api.get('/auth/api/User/GetByUserName/a%00b', { token }),
      await api.get('/auth/api/User/GetByEmail/a%00b%40example.com', { token }),
      await api.get('/finops/api/Dashboard/summary?subscriptionId=%00', { token }),
      await api.get(`/finops/api/HistoricalCosts/subscription/${SUB}?startDate=2024-01-01%00`, { token }),
    ];
    for (const res of answers) expect(isProblem(res, 400)).toBe(true);
  });

  it('14: group ids beyond a 32-bit integer are a 400, the largest one is fine', async () => {
    const token = tokenOf(host, await seedUser(host));
    for (const id of ['2147483648', '99999999999999999999', '-2147483649', '1e300']) {
      expect(isProblem(await api.get(`/auth/api/User/GetAllByGroupId/${id}`, { token }), 400)).toBe(true);
      const byGroup = await api.get(`/auth/api/User/GetUserDeviceTokenListByGroupId/${id}`, {
        headers: { 'X-Notification-Key': NOTIFY_KEY },
      });
      expect(isProblem(byGroup, 400)).toBe(true);
      const del = await api.delete(`/auth/api/UsersMonitorGroup/${id}`, { token: adminToken });
      expect(isProblem(del, 400)).toBe(true);
    }
    expect((await api.get('/auth/api/User/GetAllByGroupId/2147483647', { token })).status).toBe(200);
    const assign = await api.post('/auth/api/UsersMonitorGroup/AssignUserToGroup', {
      token,
      json: { groupMonitorId: 2147483648 },
    });
    expect(isProblem(assign, 400)).toBe(true);
  });

  it('15: TRACE, a 20 KB URL or header, and a non-JSON content type are answered in problem+json', async () => {
    const trace = await raw(host.url, { method: 'TRACE', path: '/auth/api/Version' });
    expect(trace.status).toBe(405);
    expect(trace.headers['content-type']).toMatch(/application\/problem\+json/);
    const longUrl = await raw(host.url, { method: 'GET', path: `/auth/api/User/${'x'.repeat(20_000)}` });
    expect(longUrl.status).toBe(431);
    expect(JSON.parse(longUrl.body).status).toBe(431);
    const longHeader = await raw(host.url, {
      method: 'GET',
      path: '/auth/api/Version',
      headers: { 'x-big': 'y'.repeat(20_000) },
    });
    expect(longHeader.status).toBe(431);
    expect(longHeader.headers['content-type']).toMatch(/application\/problem\+json/);

    const body = { username: `nobody-${uniq()}@example.com`, password: 'wrong-password' };
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      const res = await api.post('/auth/api/Auth/login', {
        raw: JSON.stringify(body),
        headers: { 'content-type': type },
      });
      expect(isProblem(res, 415)).toBe(true);
    }
    for (const type of [
      'application/json; charset=utf-8',
      'text/json',
      'application/merge-patch+json',
      'APPLICATION/JSON',
    ]) {
      const res = await api.post('/auth/api/Auth/login', {
        raw: JSON.stringify(body),
        headers: { 'content-type': type },
      });
      expect(isProblem(res, 400)).toBe(true);
      expect(res.body.message).toBe('Invalid credentials.');
    }
    // The JSON-string body of start-async, with or without a content type, and a body-less refresh.
    const token = adminToken;
    const bare = await raw(host.url, {
      method: 'POST',
      path: '/finops/api/Analysis/start-async',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify(SUB),
    });
    expect(bare.status).toBe(202);
    expect((await api.post('/auth/api/Auth/refreshToken', { token })).status).toBe(200);
  });
});
