// Hostile-memory benchmark (node --expose-gc --import tsx bench/hostile-memory.ts): the heap and RSS
// of a host before and after anonymous floods that once exhausted it: 400 sign-in,
// reset-confirm and mobile sign-in requests with ~900 KB "emails", then 20,000 user lookups of
// distinct unknown emails (each a cached miss). Prints the growth and the user cache's size.
import { loadavg } from 'node:os';
import { startBenchHost } from './bench-host.js';

const HUGE = `${'a'.repeat(900_000)}@example.com`;
const DISTINCT = Number(process.env.BENCH_DISTINCT ?? 20_000);
const CONCURRENCY = 8;
const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;

function usage() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

async function flood(count: number, request: (i: number) => Promise<Response>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const res = await request(next++);
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return statuses;
}

const host = await startBenchHost({
  Jwt__Key: `bench-${'k'.repeat(40)}`,
  MOBILE_API_KEY: 'bench-mobile-key',
});
try {
  const post = (path: string, body: unknown) =>
    fetch(`${host.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const before = usage();
  const hugeFlood = () =>
    flood(400, (i) =>
      i % 3 === 0
        ? post('/auth/api/Auth/login', { username: HUGE, password: 'x' })
        : i % 3 === 1
          ? post('/auth/api/User/resetPassword/confirm', {
              email: HUGE,
              code: 'c',
              newPassword: 'long enough 1',
            })
          : post('/auth/api/Auth/azure', { email: HUGE, apiKey: 'bench-mobile-key' }),
    );
  const huge = await hugeFlood();
  const afterHuge = usage();
  // A second round: what a bounded host shows is a plateau, not growth per request.
  await hugeFlood();
  const afterHuge2 = usage();
  // Straight to the user store: the reset route's per-client limit would stop a flood first.
  for (let i = 0; i < DISTINCT; i++)
    await host.services.auth.users.byEmail(`${'u'.repeat(230)}-${i}@example.com`);
  await host.services.auth.idle();
  const afterDistinct = usage();
  const cache = host.services.auth.users.cacheUsage;
  console.log(
    `load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}`,
  );
  console.log(`400 requests of ~900 KB: statuses ${JSON.stringify(Object.fromEntries(huge))}`);
  console.log(
    `  heap ${mb(before.heap)} -> ${mb(afterHuge.heap)} MB (x${(afterHuge.heap / before.heap).toFixed(2)}), rss ${mb(before.rss)} -> ${mb(afterHuge.rss)} MB`,
  );
  console.log(
    `  second round of 400: heap ${mb(afterHuge2.heap)} MB, rss ${mb(afterHuge2.rss)} MB (x${(afterHuge2.rss / afterHuge.rss).toFixed(2)} of the first round's)`,
  );
  console.log(`${DISTINCT} lookups of distinct unknown 250-character emails (each a cached miss):`);
  console.log(
    `  heap ${mb(afterHuge2.heap)} -> ${mb(afterDistinct.heap)} MB (x${(afterDistinct.heap / afterHuge2.heap).toFixed(2)}), rss -> ${mb(afterDistinct.rss)} MB`,
  );
  console.log(`  user cache: ${cache.entries} entries, ${mb(cache.bytes)} MB (bounds 10,000 entries, 8 MB)`);
} finally {
  await host.close();
}
