import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { PASSWORD, uniq } from './helpers.js';

/** Debian's chromium, or CHROMIUM_PATH. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
const browserPath = CANDIDATES.find((p): p is string => Boolean(p) && existsSync(p!));
if (!browserPath) {
  console.warn(
    'reset-page-browser: skipped, no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)',
  );
}

/** What the page script sees (the project compiles without the DOM library). */
interface BrowserWindow {
  getComputedStyle(e: unknown): { backgroundColor: string };
}

const NEW_PASSWORD = 'a brand new passphrase';

/** The password reset page in a real headless Chromium with JavaScript off, from the outbox mail on. */
describe.skipIf(!browserPath)('password reset page in headless Chromium', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let browser: Browser;

  beforeAll(async () => {
    // Development with DATA_DIR=memory://: mail goes to the in-memory outbox.
    host = await startTestHost({ queueWorker: false });
    api = apiClient(host.url);
    browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  async function accountWithResetLink(): Promise<{ email: string; link: string }> {
    const email = `page-${uniq()}@example.com`;
    const created = await api.post('/auth/api/User/create', {
      json: { username: email.split('@')[0], userEmail: email, password: PASSWORD, repeatPassword: PASSWORD },
    });
    expect(created.status).toBe(201);
    expect((await api.post(`/auth/api/User/resetPassword/${email}`)).status).toBe(200);
    await host.services.auth.idle();
    const mail = host.services.auth.mailer.outbox.find(
      (m) => m.to === email && m.subject === 'finwatch - Password Reset',
    );
    expect(mail, 'the reset email is in the outbox').toBeDefined();
    const link = /https?:\/\/\S+/.exec(mail!.text ?? '')?.[0];
    expect(link).toBeDefined();
    return { email, link: link! };
  }

  /** A page without JavaScript that collects every console message (CSP violations land there). */
  async function openPage(): Promise<{ page: Page; console: string[] }> {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const messages: string[] = [];
    page.on('console', (m) => messages.push(m.text()));
    return { page, console: messages };
  }

  it('sets a new password from the emailed link, shows the result, and the new password signs in', async () => {
    const { email, link } = await accountWithResetLink();
    expect(link.startsWith(`${host.url}/auth/api/ResetPassword?`)).toBe(true);
    const { page, console } = await openPage();

    const opened = await page.goto(link);
    expect(opened!.status()).toBe(200);
    const csp = opened!.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await page.textContent('#account')).toBe(email);
    // The hashed stylesheet applies under that policy.
    expect(
      await page.$eval(
        'button',
        (b) => (globalThis as unknown as BrowserWindow).getComputedStyle(b).backgroundColor,
      ),
    ).toBe('rgb(31, 111, 235)');

    await page.fill('#newPassword', NEW_PASSWORD);
    await page.fill('#repeatPassword', NEW_PASSWORD);
    const [result] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(result!.status()).toBe(200);
    expect(await page.textContent('h1')).toBe('Password changed');
    expect(await page.textContent('#result')).toContain('Your password was changed');
    await page.screenshot({ path: path.join(os.tmpdir(), 'finwatch-reset-done.png'), fullPage: true });
    expect(console.filter((m) => /Content Security Policy/i.test(m))).toEqual([]);

    const login = await api.post('/auth/api/Auth/login', {
      json: { username: email, password: NEW_PASSWORD },
    });
    expect(login.status).toBe(200);
    const old = await api.post('/auth/api/Auth/login', { json: { username: email, password: PASSWORD } });
    expect(old.status).toBe(400);

    // The code is spent: the same link now shows the refusal page.
    const again = await page.goto(link);
    expect(again!.status()).toBe(400);
    expect(await page.textContent('h1')).toBe('This reset link cannot be used');
    expect(await page.textContent('#result')).toContain('already been used');
    await page.context().close();
  });

  it('shows the form again with the reason when the passwords differ, and the code stays usable', async () => {
    const { email, link } = await accountWithResetLink();
    const { page } = await openPage();
    await page.goto(link);
    await page.fill('#newPassword', NEW_PASSWORD);
    await page.fill('#repeatPassword', `${NEW_PASSWORD}!`);
    const [res] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(res!.status()).toBe(400);
    expect(await page.textContent('#problem')).toBe('The two passwords do not match.');
    await page.screenshot({ path: path.join(os.tmpdir(), 'finwatch-reset-mismatch.png'), fullPage: true });

    await page.fill('#newPassword', NEW_PASSWORD);
    await page.fill('#repeatPassword', NEW_PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.textContent('h1')).toBe('Password changed');
    const login = await api.post('/auth/api/Auth/login', {
      json: { username: email, password: NEW_PASSWORD },
    });
    expect(login.status).toBe(200);
    await page.context().close();
  });

  it('refuses an expired code with a clear page and leaves the password as it was', async () => {
    const { email, link } = await accountWithResetLink();
    await host.services.prisma.passwordResetCode.updateMany({
      where: { user: { email } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const { page } = await openPage();
    const res = await page.goto(link);
    expect(res!.status()).toBe(400);
    expect(await page.textContent('h1')).toBe('This reset link cannot be used');
    expect(await page.textContent('#result')).toContain('has expired');
    await page.screenshot({ path: path.join(os.tmpdir(), 'finwatch-reset-refused.png'), fullPage: true });
    const login = await api.post('/auth/api/Auth/login', { json: { username: email, password: PASSWORD } });
    expect(login.status).toBe(200);
    await page.context().close();
  });

  it('refuses a code that expires while the form is open, when it is submitted', async () => {
    const { email, link } = await accountWithResetLink();
    const { page } = await openPage();
    await page.goto(link);
    await host.services.prisma.passwordResetCode.updateMany({
      where: { user: { email } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await page.fill('#newPassword', NEW_PASSWORD);
    await page.fill('#repeatPassword', NEW_PASSWORD);
    const [res] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(res!.status()).toBe(400);
    expect(await page.textContent('h1')).toBe('This reset link cannot be used');
    await page.context().close();
  });
});
