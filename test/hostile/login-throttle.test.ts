import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_MAX_FAILURES, LOGIN_WINDOW_MS } from '../../shared/auth/throttle.js';
import { PASSWORD, seedUser, sleep, tokenOf } from '../auth/helpers.js';
import { auditRecordsOf } from '../support/audit.js';
import { TEST_PG_URL } from '../support/databases.js';
import { sharingWith, startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

async function waitUntil(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

/** 29 wrong guesses and the right password, all at once, spread over the given hosts. */
async function parallelGuesses(urls: string[], email: string) {
  const guesses = Array.from({ length: 30 }, (_, i) => (i === 29 ? PASSWORD : `wrong-guess-${i}`));
  const answers = await Promise.all(
    guesses.map((password, i) =>
      apiClient(urls[i % urls.length]!).post('/auth/api/Auth/login', { json: { username: email, password } }),
    ),
  );
  return answers.map((a) => a.status);
}

// The failure count was read before the password check and written after it, so
// 30 parallel attempts were all evaluated (and the right password among them got a token).
describe('login throttle under concurrency', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('verifies at most the allowed number of 30 parallel guesses and refuses the rest with 429', async () => {
    // The production hash cost: the old race (count read before the check, written after) showed
    // because every check took longer than the 30 reads.
    const user = await seedUser(host);
    const statuses = await parallelGuesses([host.url], user.email);
    const verified = statuses.filter((s) => s === 400 || s === 200);
    expect(verified.length).toBeLessThanOrEqual(LOGIN_MAX_FAILURES);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(30 - LOGIN_MAX_FAILURES);
    expect(statuses.every((s) => [200, 400, 429].includes(s))).toBe(true);
  });

  it('sweeps expired attempts of accounts nobody tries again', async () => {
    const old = new Date(Date.now() - LOGIN_WINDOW_MS - 60_000);
    // A fresh host: its first attempt sweeps.
    const fresh = await startTestHost({ queueWorker: false });
    try {
      await fresh.services.prisma.loginFailure.createMany({
        data: Array.from({ length: 50 }, (_, i) => ({ account: `made-up-${i}@example.com`, createdAt: old })),
      });
      await apiClient(fresh.url).post('/auth/api/Auth/login', {
        json: { username: 'someone-else@example.com', password: 'wrong-guess' },
      });
      await waitUntil(
        async () => (await fresh.services.prisma.loginFailure.count({ where: { createdAt: old } })) === 0,
      );
      expect(
        await fresh.services.prisma.loginFailure.count({ where: { account: 'someone-else@example.com' } }),
      ).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('bounds wrong currentPassword guesses on User/updatePassword on their own, never the sign-in', async () => {
    const user = await seedUser(host, { lowCostHash: true });
    const api = apiClient(host.url);
    const token = tokenOf(host, user);
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const res = await api.post('/auth/api/User/updatePassword', {
        token,
        json: { currentPassword: `wrong-${i}`, newPassword: 'a brand new password' },
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, LOGIN_MAX_FAILURES)).toEqual(Array(LOGIN_MAX_FAILURES).fill(400));
    expect(statuses.slice(LOGIN_MAX_FAILURES)).toEqual(Array(15 - LOGIN_MAX_FAILURES).fill(429));
    // The right password is not even checked now...
    const right = await api.post('/auth/api/User/updatePassword', {
      token,
      json: { currentPassword: PASSWORD, newPassword: 'a brand new password' },
    });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    // ...but the account's sign-in is untouched.
    const login = await api.post('/auth/api/Auth/login', {
      json: { username: user.email, password: PASSWORD },
    });
    expect(login.status).toBe(200);
    const failed = await auditRecordsOf(host.services.prisma, 'password.changeFailed', user.id);
    expect(failed.map((r) => (r.details as { reason: string }).reason)).toEqual([
      ...Array(LOGIN_MAX_FAILURES).fill('wrong current password'),
      ...Array(16 - LOGIN_MAX_FAILURES).fill('too many wrong current passwords'),
    ]);
  });
});

// Ten anonymous wrong passwords once locked any account (administrators included)
// out of password sign-in for 15 minutes, renewable at will.
describe('password guesses are bounded per address; strangers cannot lock an account out', () => {
  let host: TestHost;
  beforeAll(async () => {
    // A one-second cap keeps the slowed attempts short; the rule is the same at the default 8.
    host = await startTestHost({ queueWorker: false, settings: { Login__MaxDelaySeconds: '1' } });
  });
  afterAll(async () => {
    await host?.close();
  });

  const login = (from: string, username: string, password: string) =>
    apiClient(host.url, { from }).post('/auth/api/Auth/login', { json: { username, password } });

  it("lets the owner in after a stranger's 100 failures from ten addresses, and still bounds a burst from one", async () => {
    // The production hash cost: the checks, one at a time through the hash gate, space the rounds
    // of guesses, so the 20 failures before the slow-down are counted as such.
    const owner = await seedUser(host);
    // The owner signed in from home before: that address is known to the account.
    expect((await login('127.0.0.2', owner.email, PASSWORD)).status).toBe(200);

    const strangers = Array.from({ length: 10 }, (_, i) => `127.0.0.${20 + i}`);
    const statuses = (
      await Promise.all(
        strangers.map(async (from) => {
          const mine: number[] = [];
          for (let i = 0; i < 10; i++)
            mine.push((await login(from, owner.email, `guess-${from}-${i}`)).status);
          return mine;
        }),
      )
    ).flat();
    expect(statuses).toEqual(Array(100).fill(400));

    // One address's burst is still bounded: its 11th guess, even the right password, is 429.
    const burst = await login(strangers[0]!, owner.email, PASSWORD);
    expect(isProblem(burst, 429)).toBe(true);
    expect(Number(burst.headers.get('retry-after'))).toBeGreaterThan(800);

    // The owner at home: in, without waiting.
    const home = await login('127.0.0.2', owner.email, PASSWORD);
    expect(home.status).toBe(200);
    // The owner from a new address: in too, after the account-wide wait (it slows, never blocks).
    const started = Date.now();
    const travelling = await login('127.0.0.3', owner.email, PASSWORD);
    expect(travelling.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    // The audit trail has both sides: the stranger's failures and refusal, by address, and the
    // owner's sign-ins, the slowed one marked.
    const failed = await auditRecordsOf(host.services.prisma, 'signIn.failed', owner.id);
    expect(failed).toHaveLength(101);
    expect(new Set(failed.map((r) => r.clientAddress))).toEqual(new Set(strangers));
    expect(failed.filter((r) => (r.details as { reason: string }).reason === 'wrong password')).toHaveLength(
      100,
    );
    expect(failed.at(-1)).toMatchObject({
      clientAddress: strangers[0],
      details: { reason: 'too many failed attempts from this address' },
    });
    // Past 20 account-wide failures, the strangers' guesses were slowed too.
    expect(
      failed.filter((r) => (r.details as { delayedSeconds?: number }).delayedSeconds === 1),
    ).toHaveLength(80);
    const succeeded = await auditRecordsOf(host.services.prisma, 'signIn.succeeded', owner.id);
    expect(
      succeeded.map((r) => [r.clientAddress, (r.details as { delayedSeconds?: number }).delayedSeconds]),
    ).toEqual([
      ['127.0.0.2', undefined],
      ['127.0.0.2', undefined],
      ['127.0.0.3', 1],
    ]);
    // 100 password checks (the hash's full cost each) on a shared machine.
  }, 240_000);

  it('refuses an administrator only at the guessing address', async () => {
    const admin = await seedUser(host, { isAdmin: true, lowCostHash: true });
    for (let i = 0; i < LOGIN_MAX_FAILURES; i++) {
      expect((await login('127.0.0.40', admin.email, `guess-${i}`)).status).toBe(400);
    }
    expect((await login('127.0.0.40', admin.email, PASSWORD)).status).toBe(429);
    expect((await login('127.0.0.41', admin.email, PASSWORD)).status).toBe(200);
  });
});

describe.runIf(TEST_PG_URL)('login throttle on two hosts sharing one PostgreSQL database', () => {
  let a: TestHost;
  let b: TestHost;
  beforeAll(async () => {
    a = await startTestHost({ queueWorker: false, database: 'postgres' });
    b = await startTestHost(sharingWith(a, { queueWorker: false }));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('verifies at most the allowed number of guesses when 30 arrive at once on both hosts', async () => {
    const user = await seedUser(a);
    const statuses = await parallelGuesses([a.url, b.url], user.email);
    const verified = statuses.filter((s) => s === 400 || s === 200);
    expect(verified.length).toBeLessThanOrEqual(LOGIN_MAX_FAILURES);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(30 - LOGIN_MAX_FAILURES);
  });
});
