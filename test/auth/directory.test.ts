import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRecordsOf } from '../support/audit.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import {
  CA_FILE,
  CLIENT_ID,
  CLIENT_SECRET,
  type DirectoryServer,
  newKey,
  startDirectoryServer,
  TENANT,
} from './directory-server.js';
import { uniq } from './helpers.js';

describe('directory tokens and the graph lookup', () => {
  let dir: DirectoryServer;
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  const me = (token: string) => api.get('/auth/api/User/GetUserDetailsByToken', { token });

  beforeAll(async () => {
    dir = await startDirectoryServer();
    host = await startTestHost({
      queueWorker: false,
      settings: {
        CloudAd__Instance: `${dir.url}/`,
        CloudAd__TenantId: TENANT,
        CloudAd__ClientId: CLIENT_ID,
        CloudAd__ClientSecret: CLIENT_SECRET,
        CloudAd__CaFile: CA_FILE,
        DownstreamApi__BaseUrl: `${dir.url}/v1.0`,
        BLOCKED_DOMAINS: 'blocked.example',
        ADMIN_EMAILS: 'chief@corp.example',
      },
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
    await dir?.close();
  });

  it('accepts a directory token for the client id or api://<client id> and creates the user on first use', async () => {
    const email = `ada-${uniq()}@corp.example`;
    const first = await me(dir.sign({ preferred_username: email, name: 'Ada' }));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ id: expect.any(String), username: email, email, isAdmin: false });
    const again = await me(
      dir.sign({ preferred_username: email.toUpperCase() }, { audience: `api://${CLIENT_ID}` }),
    );
    expect(again.body.id).toBe(first.body.id);
    // Both kinds of token work on every Bearer route, e.g. refreshToken mints an own token.
    const own = await api.post('/auth/api/Auth/refreshToken', { token: dir.sign({ email }) });
    expect((jwt.decode(own.body.token) as { id: string }).id).toBe(first.body.id);
    expect((await me(own.body.token)).body.id).toBe(first.body.id);
  });

  it('records a sign-in when a directory token is exchanged for an own token, not when an own token is renewed', async () => {
    const email = `grace-${uniq()}@corp.example`;
    const own = await api.post('/auth/api/Auth/refreshToken', { token: dir.sign({ email }) });
    expect(own.status).toBe(200);
    const { id } = jwt.decode(own.body.token) as { id: string };
    const signIns = await auditRecordsOf(host.services.prisma, 'signIn.succeeded', id);
    expect(signIns.map((r) => r.details)).toEqual([{ method: 'directory' }]);
    const row = await host.services.prisma.user.findUniqueOrThrow({ where: { id } });
    expect(row.lastLogon).not.toBeNull();

    const renewed = await api.post('/auth/api/Auth/refreshToken', { token: own.body.token });
    expect(renewed.status).toBe(200);
    await me(dir.sign({ email }));
    expect(await auditRecordsOf(host.services.prisma, 'signIn.succeeded', id)).toHaveLength(1);
  });

  it('resolves the caller by email, preferred_username, upn or unique_name, in that order', async () => {
    const id = uniq();
    const viaUpn = await me(dir.sign({ upn: `upn-${id}@corp.example` }));
    expect(viaUpn.body.email).toBe(`upn-${id}@corp.example`);
    const viaUnique = await me(dir.sign({ unique_name: `un-${id}@corp.example` }));
    expect(viaUnique.body.email).toBe(`un-${id}@corp.example`);
    const both = await me(
      dir.sign({ email: `e-${id}@corp.example`, preferred_username: `p-${id}@corp.example` }),
    );
    expect(both.body.email).toBe(`e-${id}@corp.example`);
  });

  it('refuses a token that names no user (never fails open)', async () => {
    const res = await me(dir.sign({ name: 'Nobody', oid: 'x' }));
    expect(isProblem(res, 401)).toBe(true);
    const admin = await api.get('/auth/api/User/GetAll', { token: dir.sign({ name: 'Nobody' }) });
    expect(admin.status).toBe(401);
  });

  it('refuses wrong audience, wrong issuer, expiry, unknown keys, alg none and HS256 with the public key', async () => {
    const claims = { preferred_username: `eve-${uniq()}@corp.example` };
    const stranger = newKey();
    const cases = {
      audience: dir.sign(claims, { audience: 'api://someone-else' }),
      issuer: dir.sign(claims, { issuer: 'https://evil.example/v2.0' }),
      expired: dir.sign(claims, { expiresIn: -120 }),
      'known kid, other key': dir.sign(claims, { key: stranger, kid: dir.published[0]!.kid }),
      'unknown kid': dir.sign(claims, { key: stranger }),
      'alg none': `${Buffer.from('{"alg":"none","kid":"x"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, aud: CLIENT_ID, iss: dir.issuer, exp: 9e9 })).toString('base64url')}.`,
      'HS256 keyed with the public key': jwt.sign(
        { ...claims, aud: CLIENT_ID, iss: dir.issuer },
        dir.published[0]!.publicKey.export({ format: 'pem', type: 'spki' }) as string,
        { algorithm: 'HS256', expiresIn: 600 },
      ),
    };
    const statuses = Object.fromEntries(
      await Promise.all(Object.entries(cases).map(async ([k, t]) => [k, (await me(t)).status] as const)),
    );
    expect(statuses).toEqual(Object.fromEntries(Object.keys(cases).map((k) => [k, 401])));
  });

  it('caches the metadata and keys, picks up a rotated key, and rate-limits refetches for unknown kids', async () => {
    const email = `rot-${uniq()}@corp.example`;
    expect((await me(dir.sign({ email }))).status).toBe(200);
    const before = { ...dir.counts };
    for (let i = 0; i < 5; i++) expect((await me(dir.sign({ email }))).status).toBe(200);
    expect(dir.counts.jwks).toBe(before.jwks);
    expect(dir.counts.metadata).toBe(before.metadata);

    // Rotation: the directory publishes a new key and signs with it.
    const next = newKey();
    dir.published = [next, ...dir.published];
    expect((await me(dir.sign({ email }, { key: next }))).status).toBe(200);
    expect(dir.counts.jwks).toBe(before.jwks + 1);
    expect((await me(dir.sign({ email }, { key: next }))).status).toBe(200);
    expect(dir.counts.jwks).toBe(before.jwks + 1);

    // A flood of unknown kids does not turn into a flood of JWKS requests.
    const flood = await Promise.all(
      Array.from({ length: 25 }, () => me(dir.sign({ email }, { key: newKeyCached() }))),
    );
    expect(flood.every((r) => r.status === 401)).toBe(true);
    expect(dir.counts.jwks - before.jwks).toBeLessThanOrEqual(11);
  });

  it('refuses directory users of a blocked domain (email or upn) with 403', async () => {
    const viaUpn = await me(dir.sign({ email: `x-${uniq()}@corp.example`, upn: `x@blocked.example` }));
    expect(isProblem(viaUpn, 403)).toBe(true);
    const viaEmail = await me(dir.sign({ email: `y-${uniq()}@Blocked.Example` }));
    expect(isProblem(viaEmail, 403)).toBe(true);
  });

  it('makes ADMIN_EMAILS directory users administrators when first seen', async () => {
    const token = dir.sign({ preferred_username: 'chief@corp.example' });
    expect((await me(token)).body.isAdmin).toBe(true);
    expect((await api.get('/auth/api/User/GetAll', { token })).status).toBe(200);
  });

  it('GET User/{email} finds an unknown email in the graph API and creates it; else 404', async () => {
    const caller = dir.sign({ email: `asker-${uniq()}@corp.example` });
    const mail = `grace-${uniq()}@corp.example`;
    dir.graphUsers.push({ mail, userPrincipalName: `grace@${TENANT}.example`, displayName: 'Grace' });
    const graphBefore = dir.counts.graph;
    const found = await api.get(`/auth/api/User/${mail}`, { token: caller });
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ id: expect.any(String), username: mail, email: mail, isAdmin: false });
    expect(dir.counts.graph).toBe(graphBefore + 1);
    expect(dir.counts.token).toBe(1);
    // Now a local user: no second graph call.
    expect((await api.get(`/auth/api/User/${mail}`, { token: caller })).body.id).toBe(found.body.id);
    expect(dir.counts.graph).toBe(graphBefore + 1);
    const missing = await api.get(`/auth/api/User/nobody-${uniq()}@corp.example`, { token: caller });
    expect(isProblem(missing, 404)).toBe(true);
  });
});

const pool = Array.from({ length: 3 }, () => newKey());
let next = 0;
/** Unknown keys without paying for 25 RSA key generations. */
function newKeyCached() {
  const k = pool[next++ % pool.length]!;
  return { ...k, kid: Math.random().toString(36).slice(2) };
}
