import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TtlCache } from '../../shared/auth/cache.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

// Misses were cached under the raw input with no size bound and freed
// only when read again, and ~1 MB "emails" were accepted, so anonymous requests exhausted memory.
describe('bounded caches', () => {
  it('holds no more than its byte bound however large the keys are', () => {
    const cache = new TtlCache<null>(60_000, { maxEntries: 10_000, maxBytes: 1024 * 1024 });
    for (let i = 0; i < 200; i++) cache.set(`email:${i}${'x'.repeat(100_000)}`, null);
    expect(cache.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(cache.size).toBeLessThan(10);
  });

  it('holds no more than its entry bound', () => {
    const cache = new TtlCache<number>(60_000, { maxEntries: 100, maxBytes: 1024 * 1024 });
    for (let i = 0; i < 1000; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(100);
    expect(cache.get('k999')).toBe(999);
    expect(cache.get('k0')).toBeUndefined();
  });

  it('frees expired entries without anyone reading them', async () => {
    // Fake timers move Date and the purge timers; the cache expires by the clock it is given.
    vi.useFakeTimers();
    try {
      const cache = new TtlCache<number>(30, { maxEntries: 100, maxBytes: 1024 * 1024 }, true, () =>
        Date.now(),
      );
      for (let i = 0; i < 50; i++) cache.set(`k${i}`, i);
      await vi.advanceTimersByTimeAsync(20);
      expect(cache.size).toBe(50);
      await vi.advanceTimersByTimeAsync(100);
      expect(cache.size).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('long strings are refused before any lookup', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ queueWorker: false });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers 400 to anonymous 300 KB emails and user names, and caches and stores nothing for them', async () => {
    const api = apiClient(host.url);
    const huge = `${'a'.repeat(300_000)}@example.com`;
    const before = host.services.auth.users.cacheUsage;
    const login = await api.post('/auth/api/Auth/login', {
      json: { username: huge, password: 'whatever-1' },
    });
    expect(isProblem(login, 400)).toBe(true);
    expect(Object.keys(login.body.errors)).toContain('username');
    const confirm = await api.post('/auth/api/User/resetPassword/confirm', {
      json: { email: huge, code: 'abc', newPassword: 'a long new password' },
    });
    expect(isProblem(confirm, 400)).toBe(true);
    const mobile = await api.post('/auth/api/Auth/azure', { json: { email: huge, apiKey: 'k' } });
    expect(isProblem(mobile, 400)).toBe(true);
    expect(host.services.auth.users.cacheUsage).toEqual(before);
    expect(await host.services.prisma.loginFailure.count()).toBe(0);
  });

  it('answers 400 to a 255-character email and a 5 KB login name or cluster name', async () => {
    const api = apiClient(host.url);
    const email255 = `${'a'.repeat(243)}@example.com`;
    expect(email255.length).toBe(255);
    const create = await api.post('/auth/api/User/create', {
      json: {
        username: 'someone',
        userEmail: email255,
        password: 'password-123',
        repeatPassword: 'password-123',
      },
    });
    expect(isProblem(create, 400)).toBe(true);
    const login = await api.post('/auth/api/Auth/login', {
      json: { username: 'n'.repeat(5000), password: 'x' },
    });
    expect(isProblem(login, 400)).toBe(true);
    const admin = await host.services.auth.users.create({
      email: 'cluster-admin@example.com',
      username: 'cluster-admin',
      isAdmin: true,
    });
    const token = host.services.auth.issueToken(admin);
    const clusters = await api.post('/auth/api/UserClusters/CreateOrUpdate', {
      token,
      json: { userId: admin.id, clusters: ['c'.repeat(5000)] },
    });
    expect(isProblem(clusters, 400)).toBe(true);
  });
});
