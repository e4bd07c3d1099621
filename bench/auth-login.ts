// Auth benchmark (node --import tsx bench/auth-login.ts): the cost of one password hash and of a
// login, the event loop's freedom while 20 logins run at once (p99 of GET /auth/api/Version), and
// authenticated GET /User/GetUserDetailsByToken requests/s against GET /auth/api/Version.
import autocannon from 'autocannon';
import { hashPassword, PASSWORD_HASH_OPTIONS, verifyPassword } from '../shared/auth/passwords.js';
import { startBenchHost } from './bench-host.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = 20;
const LOGINS = 20;
const PASSWORD = 'bench password 0123';

async function load(url: string, headers: Record<string, string> = {}, duration = DURATION) {
  const r = await autocannon({ url, connections: CONNECTIONS, duration, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

const percentile = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (n: number) => Math.round(n * 10) / 10;

const host = await startBenchHost({ Jwt__Key: 'bench-signing-key-0123456789-0123456789-abcdef' });
let exitCode = 0;
try {
  const { auth } = host.services;

  // 1. One hash and one verification, in process.
  const hashTimes: number[] = [];
  const verifyTimes: number[] = [];
  let hash = '';
  for (let i = 0; i < 8; i++) {
    let t = performance.now();
    hash = await hashPassword(PASSWORD);
    hashTimes.push(performance.now() - t);
    t = performance.now();
    await verifyPassword(hash, PASSWORD);
    verifyTimes.push(performance.now() - t);
  }
  const users = await Promise.all(
    Array.from({ length: LOGINS }, (_, i) =>
      auth.users.create({ email: `bench-${i}@example.com`, username: `bench-${i}`, passwordHash: hash }),
    ),
  );

  // 2. Login latency through the host, one at a time.
  const login = async (email: string, password = PASSWORD) => {
    const t = performance.now();
    const res = await fetch(`${host.url}/auth/api/Auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: email, password }),
    });
    await res.text();
    return { ms: performance.now() - t, status: res.status };
  };
  const serial: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 10; i++) {
    serial.push((await login(users[i % LOGINS]!.email)).ms);
    unknown.push((await login(`nobody-${i}@example.com`, 'wrong password')).ms);
  }

  // 3. Event loop under 20 concurrent logins: Version's p99 while they run, against idle.
  const versionUrl = `${host.url}/auth/api/Version`;
  const idle = await load(versionUrl, {}, 3);
  let running = true;
  let loginsDone = 0;
  let loginErrors = 0;
  const loginLatencies: number[] = [];
  const loops = users.map(async (u) => {
    while (running) {
      const r = await login(u.email);
      loginLatencies.push(r.ms);
      if (r.status === 200) loginsDone++;
      else loginErrors++;
    }
  });
  await new Promise((r) => setTimeout(r, 300));
  const busy = await load(versionUrl, {}, DURATION);
  running = false;
  await Promise.all(loops);

  // 4. Authenticated route against Version, same run.
  const token = auth.issueToken(users[0]!);
  const version = await load(versionUrl);
  const details = await load(`${host.url}/auth/api/User/GetUserDetailsByToken`, {
    authorization: `Bearer ${token}`,
  });

  console.log(
    `\nauth bench (node ${process.version}, argon2id m=${PASSWORD_HASH_OPTIONS.memoryCost} KiB t=${PASSWORD_HASH_OPTIONS.timeCost} p=${PASSWORD_HASH_OPTIONS.parallelism}, ${CONNECTIONS} connections, ${DURATION}s runs)`,
  );
  console.table([
    {
      measure: 'argon2id hash (in process)',
      median: ms(percentile(hashTimes, 50)),
      p95: ms(percentile(hashTimes, 95)),
      unit: 'ms',
    },
    {
      measure: 'argon2id verify (in process)',
      median: ms(percentile(verifyTimes, 50)),
      p95: ms(percentile(verifyTimes, 95)),
      unit: 'ms',
    },
    {
      measure: 'POST Auth/login, known user, serial',
      median: ms(percentile(serial, 50)),
      p95: ms(percentile(serial, 95)),
      unit: 'ms',
    },
    {
      measure: 'POST Auth/login, unknown user, serial',
      median: ms(percentile(unknown, 50)),
      p95: ms(percentile(unknown, 95)),
      unit: 'ms',
    },
    {
      measure: `POST Auth/login, ${LOGINS} concurrent`,
      median: ms(percentile(loginLatencies, 50)),
      p95: ms(percentile(loginLatencies, 95)),
      unit: 'ms',
    },
  ]);
  console.table([
    {
      target: 'GET Version, idle',
      'req/s': Math.round(idle.rps),
      'p50 ms': idle.p50,
      'p99 ms': idle.p99,
      errors: idle.errors,
    },
    {
      target: `GET Version, ${LOGINS} logins running`,
      'req/s': Math.round(busy.rps),
      'p50 ms': busy.p50,
      'p99 ms': busy.p99,
      errors: busy.errors,
    },
    {
      target: 'GET Version',
      'req/s': Math.round(version.rps),
      'p50 ms': version.p50,
      'p99 ms': version.p99,
      errors: version.errors,
    },
    {
      target: 'GET User/GetUserDetailsByToken (Bearer)',
      'req/s': Math.round(details.rps),
      'p50 ms': details.p50,
      'p99 ms': details.p99,
      errors: details.errors,
    },
  ]);
  console.log(`logins completed during the busy run: ${loginsDone} (${loginErrors} not 200)`);
  console.log(
    `ratio GetUserDetailsByToken / Version: ${(details.rps / version.rps).toFixed(2)} (aim >= 0.4)`,
  );
  if (details.errors || version.errors || idle.errors || busy.errors || loginErrors) exitCode = 1;
} finally {
  await host.close();
}
process.exit(exitCode);
