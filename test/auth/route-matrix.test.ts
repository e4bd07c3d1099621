import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { versionRoutes } from '../../shared/app/version-routes.js';
import { authRoutes } from '../../shared/auth/routes.js';
import type { UserRow } from '../../shared/auth/users.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { algNoneToken, forgeToken, PASSWORD, seedUser, tokenOf, uniq } from './helpers.js';

// Every /auth/api route against every kind of caller: who gets in, who gets 401, who gets 403.

/** `service`: the Notification service's key, which no principal here holds (test/auth/notification-key.test.ts). */
type Kind = 'none' | 'user' | 'self' | 'admin' | 'service';
interface Subjects {
  owner: UserRow;
  other: UserRow;
  admin: UserRow;
}
interface Row {
  method: string;
  path: (s: Subjects) => string;
  kind: Kind;
  json?: (s: Subjects) => unknown;
  /** Status of an allowed call (default: any 2xx). */
  ok?: number;
  /** Destructive for the caller: fresh subjects for each principal. */
  fresh?: boolean;
}

const SUB = '4b1d3c8e-2f7a-4c1b-9e3d-0a5b6c7d8e9f';
const MOBILE_KEY = 'mobile-key-for-tests-0123456789';

const rows: Row[] = [
  { method: 'GET', path: () => '/auth/api/Version', kind: 'none' },
  {
    method: 'POST',
    path: () => '/auth/api/Auth/login',
    kind: 'none',
    json: (s) => ({ username: s.owner.email, password: PASSWORD }),
  },
  {
    method: 'POST',
    path: () => '/auth/api/Auth/azure',
    kind: 'none',
    json: () => ({ email: `mobile-${uniq()}@example.com`, apiKey: MOBILE_KEY }),
  },
  { method: 'POST', path: () => '/auth/api/Auth/refreshToken', kind: 'user' },
  {
    method: 'POST',
    path: () => '/auth/api/User/create',
    kind: 'none',
    json: () => {
      const id = uniq();
      return {
        username: `new-${id}`,
        userEmail: `new-${id}@example.com`,
        password: PASSWORD,
        repeatPassword: PASSWORD,
      };
    },
    ok: 201,
  },
  { method: 'DELETE', path: (s) => `/auth/api/User/delete/${s.other.id}`, kind: 'admin', fresh: true },
  { method: 'DELETE', path: () => '/auth/api/User/delete', kind: 'user', fresh: true },
  {
    method: 'PUT',
    path: () => '/auth/api/User/update',
    kind: 'admin',
    json: (s) => ({ id: s.owner.id, username: s.owner.username, email: s.owner.email, isAdmin: false }),
  },
  { method: 'POST', path: (s) => `/auth/api/User/resetPassword/${s.owner.email}`, kind: 'none' },
  // The reset page: no code answers the refusal page; a JSON post is not the form.
  { method: 'GET', path: () => '/auth/api/ResetPassword', kind: 'none', ok: 400 },
  { method: 'GET', path: () => '/auth/api/Audit', kind: 'admin' },
  // Fresh subjects: ending the sessions would retire the shared owner's token for later rows.
  { method: 'POST', path: (s) => `/auth/api/User/${s.owner.id}/revokeSessions`, kind: 'admin', fresh: true },
  { method: 'POST', path: () => '/auth/api/User/signOutEverywhere', kind: 'user', fresh: true },
  { method: 'POST', path: () => '/auth/api/ResetPassword', kind: 'none', json: () => ({}), ok: 415 },
  {
    method: 'POST',
    path: () => '/auth/api/User/resetPassword/confirm',
    kind: 'none',
    json: (s) => ({ email: s.owner.email, code: 'not-a-code', newPassword: 'another password' }),
    ok: 400,
  },
  {
    method: 'POST',
    path: () => '/auth/api/User/updatePassword',
    kind: 'user',
    json: () => ({ currentPassword: PASSWORD, newPassword: PASSWORD }),
    fresh: true,
  },
  { method: 'GET', path: () => '/auth/api/User/GetAll', kind: 'admin' },
  { method: 'GET', path: () => '/auth/api/User/GetAllByGroupId/5', kind: 'user' },
  { method: 'GET', path: (s) => `/auth/api/User/GetById/${s.owner.id}`, kind: 'user' },
  { method: 'GET', path: (s) => `/auth/api/User/GetByEmail/${s.owner.email}`, kind: 'user' },
  { method: 'GET', path: (s) => `/auth/api/User/GetByUserName/${s.owner.username}`, kind: 'user' },
  { method: 'GET', path: (s) => `/auth/api/User/${s.owner.email}`, kind: 'user' },
  { method: 'GET', path: () => '/auth/api/User/GetUserCount', kind: 'user' },
  { method: 'GET', path: () => '/auth/api/User/GetUserDetailsByToken', kind: 'user' },
  {
    method: 'POST',
    path: () => '/auth/api/User/UpdateUserDeviceToken',
    kind: 'user',
    json: () => ({ deviceToken: `device-${uniq()}` }),
  },
  { method: 'GET', path: () => '/auth/api/User/GetUserDeviceTokenList', kind: 'user' },
  { method: 'GET', path: (s) => `/auth/api/User/GetUserDeviceTokenListByUserId/${s.owner.id}`, kind: 'self' },
  { method: 'GET', path: () => '/auth/api/User/GetUserDeviceTokenListByGroupId/5', kind: 'service' },
  {
    method: 'POST',
    path: () => '/auth/api/UserAction/create',
    kind: 'user',
    json: () => ({ action: 'opened' }),
  },
  { method: 'GET', path: () => '/auth/api/UserAction', kind: 'user' },
  {
    method: 'POST',
    path: () => '/auth/api/UserClusters',
    kind: 'admin',
    json: (s) => ({ userId: s.owner.id, clusterName: 'aks-1' }),
  },
  {
    method: 'POST',
    path: () => '/auth/api/UserClusters/CreateOrUpdate',
    kind: 'admin',
    json: (s) => ({ userId: s.owner.id, clusters: ['aks-1', 'aks-2'] }),
  },
  { method: 'GET', path: (s) => `/auth/api/UserClusters/GetAllByUserId/${s.owner.id}`, kind: 'self' },
  {
    method: 'POST',
    path: () => '/auth/api/UserSubscriptions',
    kind: 'admin',
    json: (s) => ({ userId: s.owner.id, subscriptionId: SUB }),
  },
  {
    method: 'POST',
    path: () => '/auth/api/UserSubscriptions/CreateOrUpdate',
    kind: 'admin',
    json: (s) => ({ userId: s.owner.id, subscriptions: [SUB] }),
  },
  { method: 'GET', path: (s) => `/auth/api/UserSubscriptions/GetAllByUserId/${s.owner.id}`, kind: 'self' },
  {
    method: 'POST',
    path: () => '/auth/api/UsersMonitorGroup/AssignUserToGroup',
    kind: 'user',
    json: () => ({ groupMonitorId: 5 }),
  },
  {
    method: 'POST',
    path: () => '/auth/api/UsersMonitorGroup/create',
    kind: 'admin',
    json: (s) => [{ userId: s.owner.id, groupMonitorId: 5 }],
  },
  { method: 'GET', path: () => '/auth/api/UsersMonitorGroup/GetAll', kind: 'user' },
  // Admin in the original even for the caller's own id (its own groups are at GetAll).
  { method: 'GET', path: (s) => `/auth/api/UsersMonitorGroup/GetAllByUserId/${s.owner.id}`, kind: 'admin' },
  { method: 'DELETE', path: () => '/auth/api/UsersMonitorGroup/77', kind: 'admin' },
];

const placeholders = {
  owner: { id: '{userId}', email: '{email}', username: '{name}' },
  other: { id: '{userId}' },
  admin: {},
} as unknown as Subjects;
const labelOf = (row: Row) => `${row.method} ${row.path(placeholders)}`;

type Principal =
  | 'anonymous'
  | 'user'
  | 'other user'
  | 'admin'
  | 'expired token'
  | 'wrong issuer'
  | 'wrong audience'
  | 'alg none'
  | 'another key'
  | 'deleted user';
const PRINCIPALS: Principal[] = [
  'anonymous',
  'user',
  'other user',
  'admin',
  'expired token',
  'wrong issuer',
  'wrong audience',
  'alg none',
  'another key',
  'deleted user',
];
const INVALID = new Set<Principal>([
  'anonymous',
  'expired token',
  'wrong issuer',
  'wrong audience',
  'alg none',
  'another key',
  'deleted user',
]);

/** What a principal gets on a route kind: 'ok', 401 or 403. */
function expected(kind: Kind, p: Principal): 'ok' | 401 | 403 {
  if (kind === 'none') return 'ok';
  if (kind === 'service') return 401;
  if (INVALID.has(p)) return 401;
  if (kind === 'user') return 'ok';
  if (kind === 'self') return p === 'other user' ? 403 : 'ok';
  return p === 'admin' ? 'ok' : 403;
}

describe('auth route and caller matrix', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let shared: Subjects;
  let deleted: UserRow;

  async function subjects(): Promise<Subjects> {
    return {
      owner: await seedUser(host),
      other: await seedUser(host),
      admin: await seedUser(host, { isAdmin: true }),
    };
  }

  function tokenFor(p: Principal, s: Subjects): string | undefined {
    const now = Math.floor(Date.now() / 1000);
    switch (p) {
      case 'anonymous':
        return undefined;
      case 'user':
        return tokenOf(host, s.owner);
      case 'other user':
        return tokenOf(host, s.other);
      case 'admin':
        return tokenOf(host, s.admin);
      case 'expired token':
        return forgeToken(s.admin, { iat: now - 7200, exp: now - 3600 });
      case 'wrong issuer':
        return forgeToken(s.admin, { issuer: 'someone-else' });
      case 'wrong audience':
        return forgeToken(s.admin, { audience: 'someone-else' });
      case 'alg none':
        return algNoneToken(s.admin);
      case 'another key':
        return forgeToken(s.admin, { key: 'a-completely-different-signing-key-0123456789' });
      case 'deleted user':
        return tokenOf(host, deleted);
    }
  }

  beforeAll(async () => {
    host = await startTestHost({
      queueWorker: false,
      // Every principal asks for a reset of the same account; the limit has its own tests.
      settings: { MOBILE_API_KEY: MOBILE_KEY, PasswordReset__MaxPerEmailPerHour: '1000' },
    });
    api = apiClient(host.url);
    shared = await subjects();
    deleted = await seedUser(host, { isAdmin: true });
    await host.services.auth.users.delete(deleted.id);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('covers every route of the auth table and Version', () => {
    const templates = [...versionRoutes.filter((r) => r.service === 'auth'), ...authRoutes].map((r) =>
      `${r.method} /auth/api/${r.path}`
        .replace(/\{(userEmail|email)\}/, '{email}')
        .replace('{userName}', '{name}')
        .replace('{groupId}', '5')
        .replace('{groupMonitorId}', '77'),
    );
    expect(rows.map(labelOf).sort()).toEqual(templates.sort());
  });

  for (const row of rows) {
    const label = labelOf(row);
    it(`${label} (${row.kind}): allowed, 401 or 403 by caller`, async () => {
      const outcomes: Record<string, string> = {};
      const wanted: Record<string, string> = {};
      for (const p of PRINCIPALS) {
        const s = row.fresh ? await subjects() : shared;
        const res = await api.call(row.method, row.path(s), {
          ...(tokenFor(p, s) ? { token: tokenFor(p, s) } : {}),
          ...(row.json ? { json: row.json(s) } : {}),
        });
        const want = expected(row.kind, p);
        wanted[p] = String(want === 'ok' ? (row.ok ?? '2xx') : want);
        const ok = row.ok ? res.status === row.ok : res.status >= 200 && res.status < 300;
        outcomes[p] = ok && want === 'ok' ? wanted[p]! : String(res.status);
        if (want !== 'ok') expect(isProblem(res, want), `${p}: ${res.text}`).toBe(true);
        if (want === 401) expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
      expect(outcomes).toEqual(wanted);
    });
  }
});
