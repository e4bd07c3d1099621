import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetLink } from '../../shared/auth/password-reset.js';
import { loadConfig } from '../../shared/config/index.js';
import { clientAddressOf } from '../../shared/http/client.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { seedUser, uniq } from './helpers.js';

describe('password reset requests are rate-limited per email and per client address', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    host = await startTestHost({
      queueWorker: false,
      settings: {
        PasswordReset__MaxPerEmailPerHour: '2',
        PasswordReset__MaxPerClientPerHour: '6',
        PasswordReset__LinkUrl: 'https://app.example.com/reset?from=mail',
      },
    });
    api = apiClient(host.url);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers 429 with Retry-After past the per-email limit, alike for a known and an unknown email', async () => {
    const known = (await seedUser(host)).email;
    const unknown = `ghost-${uniq()}@example.com`;
    const answers = async (email: string) => {
      const out: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await api.post(`/auth/api/User/resetPassword/${email}`);
        out.push([res.status, res.body?.message ?? res.text]);
        if (res.status === 429) {
          expect(isProblem(res, 429)).toBe(true);
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3000);
        }
      }
      return out;
    };
    const forKnown = await answers(known);
    const forUnknown = await answers(unknown);
    expect(forKnown).toEqual([
      [200, ''],
      [200, ''],
      [429, 'Too many password reset requests; try again later.'],
    ]);
    expect(forUnknown).toEqual(forKnown);
    await host.services.auth.idle();
    // The refused request sent nothing: two codes, two emails.
    expect(host.services.auth.mailer.outbox.filter((m) => m.to === known)).toHaveLength(2);
  });

  it('answers 429 past the per-client limit whatever the emails', async () => {
    // 4 requests were counted for this client above; 2 more reach the limit of 6.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await api.post(`/auth/api/User/resetPassword/other-${uniq()}@example.com`)).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('the link of the reset email', () => {
  it('points at the operator front end when PasswordReset__LinkUrl is set, with the email and code', async () => {
    const host = await startTestHost({
      queueWorker: false,
      settings: { PasswordReset__LinkUrl: 'https://app.example.com/reset?from=mail' },
    });
    try {
      const user = await seedUser(host);
      expect((await apiClient(host.url).post(`/auth/api/User/resetPassword/${user.email}`)).status).toBe(200);
      await host.services.auth.idle();
      const mail = host.services.auth.mailer.outbox.find((m) => m.to === user.email);
      const link = new URL(/https:\/\/\S+/.exec(mail!.text)![0]);
      expect(`${link.origin}${link.pathname}`).toBe('https://app.example.com/reset');
      expect(link.searchParams.get('from')).toBe('mail');
      expect(link.searchParams.get('email')).toBe(user.email);
      expect(link.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{20}$/);
      expect(mail!.html).toContain(`href="${link.toString().replace(/&/g, '&#38;')}"`);
    } finally {
      await host.close();
    }
  });

  const production = {
    WEBAPP_ENVIRONMENT: 'Production',
    Jwt__Key: 'k'.repeat(40),
    ConnectionStrings__SqlConnectionString: 'postgresql://x@localhost/db',
  };

  it('uses WEBSITE_HOSTNAME in Production, never the Host the request claimed', () => {
    const config = loadConfig({ ...production, WEBSITE_HOSTNAME: 'finwatch.azurewebsites.net' });
    expect(resetLink(config, 'https://evil.example/auth/api/User/resetPassword/x', 'a@b.c', 'CODE')).toBe(
      'https://finwatch.azurewebsites.net/auth/api/ResetPassword?email=a%40b.c&code=CODE',
    );
  });

  it('prefers the configured public base URL (a custom domain) over WEBSITE_HOSTNAME', () => {
    const config = loadConfig({
      ...production,
      WEBSITE_HOSTNAME: 'finwatch.azurewebsites.net',
      PUBLIC_BASE_URL: 'https://cost.example.com/',
    });
    expect(resetLink(config, 'https://evil.example/x', 'a@b.c', 'CODE')).toBe(
      'https://cost.example.com/auth/api/ResetPassword?email=a%40b.c&code=CODE',
    );
  });

  it('carries the code only in Production when no public address is known', () => {
    expect(resetLink(loadConfig(production), 'https://evil.example/x', 'a@b.c', 'CODE')).toBeUndefined();
  });
});

describe('the client address', () => {
  const of = (xff?: string) =>
    clientAddressOf({ headers: new Headers(xff ? { 'x-forwarded-for': xff } : {}) });

  it('is the last X-Forwarded-For entry, the one the front end appended, without its port', () => {
    expect(of('6.6.6.6, 203.0.113.9:51234')).toBe('203.0.113.9');
    expect(of('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(of('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(of()).toBe('unknown');
  });
});
