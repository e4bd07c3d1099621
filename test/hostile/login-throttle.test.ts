import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_MAX_FAILURES, LOGIN_WINDOW_MS } from '../../shared/auth/throttle.js';
import { PASSWORD, seedUser, sleep, tokenOf } from '../auth/helpers.js';
import { TEST_PG_URL } from '../support/databases.js';
import { sharingWith, startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';

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

// Issue 11 item 1: the failure count was read before the password check and written after it, so
// 30 parallel attempts were all evaluated (and the right password among them got a token).
describe('login throttle under concurrency (issue 11.1)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('verifies at most the allowed number of 30 parallel guesses and refuses the rest with 429', async () => {
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

  it('throttles wrong currentPassword guesses on User/updatePassword made with one token', async () => {
    const user = await seedUser(host);
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
    // The right password is not even checked now, and sign-in shares the same budget.
    const right = await api.post('/auth/api/User/updatePassword', {
      token,
      json: { currentPassword: PASSWORD, newPassword: 'a brand new password' },
    });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    const login = await api.post('/auth/api/Auth/login', {
      json: { username: user.email, password: PASSWORD },
    });
    expect(login.status).toBe(429);
  });
});

describe.runIf(TEST_PG_URL)(
  'login throttle on two hosts sharing one PostgreSQL database (issue 11.1)',
  () => {
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
  },
);
