import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CA_FILE,
  CLIENT_ID,
  CLIENT_SECRET,
  type DirectoryServer,
  startDirectoryServer,
  TENANT,
} from '../auth/directory-server.js';
import { PASSWORD, seedUser, tokenOf, uniq } from '../auth/helpers.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

const MOBILE_KEY = 'mobile-key-for-hostile-tests-0123456789';
const BOOTSTRAP = 'bootstrap-secret-for-hostile-tests-0123456789';

/** A logger that keeps what it writes (the audit lines). */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  return { log, lines };
}

function directorySettings(dir: DirectoryServer) {
  return {
    CloudAd__Instance: `${dir.url}/`,
    CloudAd__TenantId: TENANT,
    CloudAd__ClientId: CLIENT_ID,
    CloudAd__ClientSecret: CLIENT_SECRET,
    CloudAd__CaFile: CA_FILE,
    DownstreamApi__BaseUrl: `${dir.url}/v1.0`,
  };
}

describe('the shared mobile key and ADMIN_EMAILS', () => {
  let dir: DirectoryServer;
  let host: TestHost;
  let strictHost: TestHost;
  let api: ReturnType<typeof apiClient>;
  const audit = capturingLogger();
  const me = (token: string) => api.get('/auth/api/User/GetUserDetailsByToken', { token });

  beforeAll(async () => {
    dir = await startDirectoryServer();
    host = await startTestHost({
      queueWorker: false,
      settings: {
        ...directorySettings(dir),
        MOBILE_API_KEY: MOBILE_KEY,
        ADMIN_EMAILS: 'first@corp.example,second@corp.example,chief@corp.example,listed@corp.example',
        ADMIN_BOOTSTRAP_SECRET: BOOTSTRAP,
      },
      servicesOptions: { log: audit.log },
    });
    strictHost = await startTestHost({
      queueWorker: false,
      settings: { ...directorySettings(dir), MOBILE_API_KEY: MOBILE_KEY, MOBILE_API_KEY_STRICT: 'true' },
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await strictHost?.close();
    await host?.close();
    await dir?.close();
  });

  const create = (email: string, headers: Record<string, string> = {}) =>
    api.post('/auth/api/User/create', {
      headers,
      json: { username: `u-${uniq()}`, userEmail: email, password: PASSWORD, repeatPassword: PASSWORD },
    });

  // Runs first: the bootstrap works only while no administrator exists.
  it('makes a listed email an administrator at registration only with the one-time bootstrap secret', async () => {
    const plain = await create('listed@corp.example');
    expect(plain.status).toBe(201);
    expect(plain.body.isAdmin).toBe(false);
    const wrong = await create('second@corp.example', { 'X-Admin-Bootstrap': 'guess' });
    expect(wrong.body.isAdmin).toBe(false);
    const first = await create('first@corp.example', { 'X-Admin-Bootstrap': BOOTSTRAP });
    expect(first.body.isAdmin).toBe(true);
    // One-time: now that an administrator exists, the secret grants nothing.
    await host.services.prisma.user.delete({ where: { email: 'second@corp.example' } });
    const again = await create('second@corp.example', { 'X-Admin-Bootstrap': BOOTSTRAP });
    expect(again.body.isAdmin).toBe(false);
    // A password sign-in of a listed email promotes nothing either.
    const login = await api.post('/auth/api/Auth/login', {
      json: { username: 'listed@corp.example', password: PASSWORD },
    });
    expect(login.status).toBe(200);
    expect((await me(login.body.token)).body.isAdmin).toBe(false);
  });

  it('promotes a listed email on its directory sign-in, and a demotion by an administrator sticks', async () => {
    const admin = await seedUser(host, { isAdmin: true });
    const signIn = await me(dir.sign({ preferred_username: 'chief@corp.example' }));
    expect(signIn.body.isAdmin).toBe(true);
    const demote = await api.put('/auth/api/User/update', {
      token: tokenOf(host, admin),
      json: {
        id: signIn.body.id,
        username: signIn.body.username,
        email: 'chief@corp.example',
        isAdmin: false,
      },
    });
    expect(demote.body.isAdmin).toBe(false);
    expect((await me(dir.sign({ preferred_username: 'chief@corp.example' }))).body.isAdmin).toBe(false);
    const mobile = await api.post('/auth/api/Auth/azure', {
      json: { email: 'chief@corp.example', apiKey: MOBILE_KEY },
    });
    expect(mobile.status).toBe(200);
    expect((await me(mobile.body.token)).body.isAdmin).toBe(false);
  });

  it('never yields a token for an administrator or a password account on the mobile key alone, and audits each use', async () => {
    const admin = await seedUser(host, { isAdmin: true, password: false });
    const withPassword = await seedUser(host);
    const directoryOnly = await seedUser(host, { password: false });
    for (const user of [admin, withPassword]) {
      const res = await api.post('/auth/api/Auth/azure', { json: { email: user.email, apiKey: MOBILE_KEY } });
      expect(isProblem(res, 403)).toBe(true);
    }
    const ok = await api.post('/auth/api/Auth/azure', {
      json: { email: directoryOnly.email, apiKey: MOBILE_KEY },
    });
    expect(ok.status).toBe(200);
    // A new account made by the key is never an administrator, listed or not.
    await host.services.prisma.user.deleteMany({ where: { email: 'listed@corp.example' } });
    const listed = await api.post('/auth/api/Auth/azure', {
      json: { email: 'listed@corp.example', apiKey: MOBILE_KEY },
    });
    expect((await me(listed.body.token)).body.isAdmin).toBe(false);
    const lines = audit.lines.filter((l) => l.audit === 'mobile-key');
    const of = (email: string) => lines.filter((l) => l.email === email).map((l) => l.outcome);
    expect(of(admin.email)).toEqual(['refused: administrator or password account']);
    expect(of(withPassword.email)).toEqual(['refused: administrator or password account']);
    expect(of(directoryOnly.email)).toEqual(['token issued']);
    expect(of('listed@corp.example')).toEqual(['token issued: user created']);
  });

  it('in strict mode needs a directory token naming the same email, and then serves administrators too', async () => {
    const strict = apiClient(strictHost.url);
    const admin = await seedUser(strictHost, { isAdmin: true, password: false });
    const body = { email: admin.email, apiKey: MOBILE_KEY };
    expect(isProblem(await strict.post('/auth/api/Auth/azure', { json: body }), 401)).toBe(true);
    const other = await strict.post('/auth/api/Auth/azure', {
      json: body,
      token: dir.sign({ preferred_username: `someone-else-${uniq()}@corp.example` }),
    });
    expect(isProblem(other, 403)).toBe(true);
    const proven = await strict.post('/auth/api/Auth/azure', {
      json: body,
      token: dir.sign({ preferred_username: admin.email.toUpperCase() }),
    });
    expect(proven.status).toBe(200);
  });
});
