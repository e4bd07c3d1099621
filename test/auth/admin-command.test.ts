import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../shared/auth/admin-command.js';
import { auditRecordsOf } from '../support/audit.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { PASSWORD, uniq } from './helpers.js';

const BOOTSTRAP = 'bootstrap-secret-for-tests-0123456789';
const OPERATOR = 'ops@corp.example';

// Once, anyone who registered the ADMIN_EMAILS address before the operator made the
// bootstrap fail with 409, and there was no other way to the first administrator.
describe('npm run admin: administrator rights set in the database (squatted first administrator)', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    host = await startTestHost({
      queueWorker: false,
      settings: { ADMIN_EMAILS: OPERATOR, ADMIN_BOOTSTRAP_SECRET: BOOTSTRAP },
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
  });

  const register = (email: string, headers: Record<string, string> = {}) =>
    api.post('/auth/api/User/create', {
      headers,
      json: { username: `u-${uniq()}`, userEmail: email, password: PASSWORD, repeatPassword: PASSWORD },
    });
  const me = (token: string) => api.get('/auth/api/User/GetUserDetailsByToken', { token });

  it('takes a squatted address back: administrator, the squatter password and sessions gone, audited', async () => {
    const squat = await register(OPERATOR);
    expect(squat.status).toBe(201);
    const squatterToken = (
      await api.post('/auth/api/Auth/login', { json: { username: OPERATOR, password: PASSWORD } })
    ).body.token as string;
    expect((await me(squatterToken)).status).toBe(200);
    // The bootstrap cannot help: the address is taken.
    expect((await register(OPERATOR, { 'X-Admin-Bootstrap': BOOTSTRAP })).status).toBe(409);

    const granted = await runAdminCommand(host.services.prisma, [
      'grant',
      'Ops@Corp.Example',
      '--reset-credentials',
    ]);
    expect(granted.code).toBe(0);
    expect(granted.lines[0]).toBe(`${OPERATOR} is an administrator`);
    const user = await host.services.prisma.user.findUniqueOrThrow({ where: { email: OPERATOR } });
    expect(user).toMatchObject({ isAdmin: true, passwordHash: null });
    // Once the user cache (5 s) has passed on every instance, the squatter's token and password are dead.
    host.services.auth.users.invalidate();
    expect((await me(squatterToken)).status).toBe(401);
    const again = await api.post('/auth/api/Auth/login', {
      json: { username: OPERATOR, password: PASSWORD },
    });
    expect(again.status).toBe(400);
    const [record] = await auditRecordsOf(host.services.prisma, 'admin.granted', user.id);
    expect(record).toMatchObject({
      actorEmail: expect.stringMatching(/^admin command \(/),
      details: {
        email: OPERATOR,
        via: 'admin command',
        created: false,
        wasAdmin: false,
        credentialsReset: true,
      },
    });
  });

  it('creates an absent account without a password, never revokes the last administrator, and lists', async () => {
    const prisma = host.services.prisma;
    const email = `second-${uniq()}@corp.example`;
    const granted = await runAdminCommand(prisma, ['grant', email]);
    expect(granted).toMatchObject({
      code: 0,
      lines: [`${email} is an administrator (account created without a password)`, expect.any(String)],
    });
    expect(await prisma.user.findUnique({ where: { email } })).toMatchObject({
      isAdmin: true,
      passwordHash: null,
    });
    const listed = await runAdminCommand(prisma, ['list']);
    expect(listed.lines.map((l) => l.split(' ')[0])).toEqual([OPERATOR, email].sort());

    expect(await runAdminCommand(prisma, ['revoke', email])).toEqual({
      code: 0,
      lines: [`${email} is no longer an administrator`],
    });
    const last = await runAdminCommand(prisma, ['revoke', OPERATOR]);
    expect(last).toEqual({ code: 1, lines: [`${OPERATOR} is the last administrator; grant another first`] });
    expect((await prisma.user.findUniqueOrThrow({ where: { email: OPERATOR } })).isAdmin).toBe(true);
    const revoked = await prisma.auditRecord.findMany({ where: { action: 'admin.revoked' } });
    expect(revoked.map((r) => (r.details as { email: string }).email)).toEqual([email]);

    expect((await runAdminCommand(prisma, ['grant'])).code).toBe(2);
    expect((await runAdminCommand(prisma, ['grant', 'not-an-email'])).code).toBe(2);
    expect((await runAdminCommand(prisma, ['revoke', email, '--reset-credentials'])).code).toBe(2);
    expect((await runAdminCommand(prisma, ['promote', email])).code).toBe(2);
  });
});
