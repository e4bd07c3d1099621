import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { PASSWORD, sleep, uniq } from './helpers.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback (smtp-server) with AUTH, collecting what it receives. */
async function startSmtp(): Promise<{ port: number; inbox: Received[]; close(): Promise<void> }> {
  const inbox: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (auth.username === 'mailer' && auth.password === 'mail-secret') cb(null, { user: 'mailer' });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.server.address() as AddressInfo).port,
    inbox,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** QP soft line breaks and =XX escapes undone, enough to read codes and subjects. */
const decodeQp = (s: string) =>
  s
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));

describe('email: welcome and password reset through a real SMTP server', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;

  async function mailTo(address: string, subject: string, count = 1): Promise<Received[]> {
    for (let i = 0; i < 100; i++) {
      const hits = smtp.inbox.filter((m) => m.to.includes(address) && decodeQp(m.raw).includes(subject));
      if (hits.length >= count) return hits;
      await sleep(50);
    }
    throw new Error(`no "${subject}" email to ${address}`);
  }
  const codeIn = (m: Received) => /reset code: (?:<strong>)?([A-Za-z0-9_-]{20})/.exec(decodeQp(m.raw))?.[1];

  beforeAll(async () => {
    smtp = await startSmtp();
    host = await startTestHost({
      queueWorker: false,
      settings: {
        smtpHost: '127.0.0.1',
        smtpPort: String(smtp.port),
        smtpUsername: 'mailer',
        smtpPassword: 'mail-secret',
        smtpFrom: 'finwatch <alerts@finwatch.example>',
        enableSsl: 'false',
        // The live-code cap is tested here; the request rate limit has its own tests.
        PasswordReset__MaxPerEmailPerHour: '100',
      },
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
    await smtp?.close();
  });

  async function createAccount() {
    const email = `reset-${uniq()}@example.com`;
    const res = await api.post('/auth/api/User/create', {
      json: { username: email.split('@')[0], userEmail: email, password: PASSWORD, repeatPassword: PASSWORD },
    });
    expect(res.status).toBe(201);
    return email;
  }

  it('sends the welcome email on create', async () => {
    const email = await createAccount();
    const [mail] = await mailTo(email, 'finwatch - Account Creation');
    expect(mail!.from).toBe('alerts@finwatch.example');
    expect(decodeQp(mail!.raw)).toContain('Welcome to finwatch');
  });

  it('resets a password end to end: the code arrives, works once, and retires older tokens', async () => {
    const email = await createAccount();
    const oldToken = (
      await api.post('/auth/api/Auth/login', { json: { username: email, password: PASSWORD } })
    ).body.token;
    await sleep(1100);

    const known = await api.post(`/auth/api/User/resetPassword/${email}`);
    const unknown = await api.post(`/auth/api/User/resetPassword/ghost-${uniq()}@example.com`);
    expect([known.status, known.text]).toEqual([200, '']);
    expect([unknown.status, unknown.text]).toEqual([known.status, known.text]);

    const [mail] = await mailTo(email, 'finwatch - Password Reset');
    const code = codeIn(mail!);
    expect(code).toBeDefined();
    expect(decodeQp(mail!.raw)).not.toContain(PASSWORD);
    const stored = await host.services.prisma.passwordResetCode.findMany({ where: { user: { email } } });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.codeHash).toBe(createHash('sha256').update(code!).digest('hex'));
    expect(stored[0]!.expiresAt.getTime() - Date.now()).toBeGreaterThan(29 * 60_000);

    // Requesting a reset changes nothing yet: the old password and token still work.
    expect((await api.get('/auth/api/User/GetUserDetailsByToken', { token: oldToken })).status).toBe(200);

    const wrong = await api.post('/auth/api/User/resetPassword/confirm', {
      json: { email, code: 'A'.repeat(20), newPassword: 'a fresh password' },
    });
    expect(isProblem(wrong, 400)).toBe(true);
    const short = await api.post('/auth/api/User/resetPassword/confirm', {
      json: { email, code, newPassword: 'short' },
    });
    expect(isProblem(short, 400)).toBe(true);

    const done = await api.post('/auth/api/User/resetPassword/confirm', {
      json: { email, code, newPassword: 'a fresh password' },
    });
    expect(done.status).toBe(204);
    expect(isProblem(await api.get('/auth/api/User/GetUserDetailsByToken', { token: oldToken }), 401)).toBe(
      true,
    );
    expect(
      (await api.post('/auth/api/Auth/login', { json: { username: email, password: PASSWORD } })).status,
    ).toBe(400);
    const fresh = await api.post('/auth/api/Auth/login', {
      json: { username: email, password: 'a fresh password' },
    });
    expect(fresh.status).toBe(200);
    expect((await api.get('/auth/api/User/GetUserDetailsByToken', { token: fresh.body.token })).status).toBe(
      200,
    );

    const reused = await api.post('/auth/api/User/resetPassword/confirm', {
      json: { email, code, newPassword: 'yet another password' },
    });
    expect(isProblem(reused, 400)).toBe(true);
  });

  it('refuses an expired code', async () => {
    const email = await createAccount();
    await api.post(`/auth/api/User/resetPassword/${email}`);
    const [mail] = await mailTo(email, 'finwatch - Password Reset');
    await host.services.prisma.passwordResetCode.updateMany({
      where: { user: { email } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const res = await api.post('/auth/api/User/resetPassword/confirm', {
      json: { email, code: codeIn(mail!), newPassword: 'a fresh password' },
    });
    expect(isProblem(res, 400)).toBe(true);
    expect(
      (await api.post('/auth/api/Auth/login', { json: { username: email, password: PASSWORD } })).status,
    ).toBe(200);
  });

  it('keeps at most three live codes per account, so repeated requests cannot flood a mailbox', async () => {
    const email = await createAccount();
    for (let i = 0; i < 5; i++) {
      expect((await api.post(`/auth/api/User/resetPassword/${email}`)).status).toBe(200);
      await host.services.auth.idle();
    }
    const sent = smtp.inbox.filter((m) => m.to.includes(email) && decodeQp(m.raw).includes('Password Reset'));
    expect(sent).toHaveLength(3);
    expect(await host.services.prisma.passwordResetCode.count({ where: { user: { email } } })).toBe(3);
  });

  it('sends nothing for an unknown email or a directory-only account', async () => {
    const ghost = `ghost-${uniq()}@example.com`;
    await api.post(`/auth/api/User/resetPassword/${ghost}`);
    const directoryOnly = await host.services.auth.users.create({
      email: `dir-${uniq()}@example.com`,
      username: `dir-${uniq()}`,
    });
    await api.post(`/auth/api/User/resetPassword/${directoryOnly.email}`);
    await host.services.auth.idle();
    expect(smtp.inbox.filter((m) => m.to.includes(ghost) || m.to.includes(directoryOnly.email))).toEqual([]);
  });
});
