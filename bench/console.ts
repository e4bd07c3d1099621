// npm run bench -- console: the console's first page (Overview) with 50 analyses stored, as a viewer
// opening /console in a new browser (cold cache, signed in): time until its controls are usable
// (navigation and every card's "Run analysis" button) and until every card shows its month-end
// forecast and waste, against the 1 s aim. The host is `npm start`'s: PGlite in memory, the Azure
// simulator, analyses run through the API and its queue worker.
// Options: --analyses N (50), --subscriptions N (5; the analyses are spread over them), --loads N (7).
// Needs Chromium (Debian's /usr/bin/chromium or CHROMIUM_PATH).
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startAzureSimulator } from '../dev/azure-sim/index.js';
import { startAzurite } from '../dev/azurite.js';
import { startLocalHost } from '../dev/host.js';
import { buildConsole, consoleBuildIsStale } from '../scripts/build-console.js';
import { loadConfig } from '../shared/config/index.js';
import { runHistory } from '../shared/finops/intel/anomaly-store.js';
import { subscriptionForecast } from '../shared/finops/intel/forecast-query.js';
import { buildSeries } from '../shared/finops/intel/series.js';
import { createLogger } from '../shared/observability/logger.js';

const { values } = parseArgs({
  options: {
    analyses: { type: 'string', default: '50' },
    subscriptions: { type: 'string', default: '5' },
    loads: { type: 'string', default: '7' },
  },
  strict: false,
});
const ANALYSES = Number(values.analyses);
const SUBSCRIPTIONS = Number(values.subscriptions);
const LOADS = Number(values.loads);
const AIM_MS = 1000;
const PASSWORD = 'bench-password-9';
const BOOTSTRAP = 'bench-bootstrap-0123456789abcdef';

const browserPath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => Boolean(p) && existsSync(p!),
);
if (!browserPath) {
  console.log('console: no Chromium (apt-get install -y chromium, or set CHROMIUM_PATH); skipped');
  process.exit(0);
}

const subscriptionIds = Array.from(
  { length: SUBSCRIPTIONS },
  (_, i) => `5e1f${String(i).padStart(4, '0')}-0000-4000-8000-00000000c0de`,
);

if (consoleBuildIsStale()) await buildConsole({ quiet: true });
const sim = await startAzureSimulator({ resourcesPerSubscription: 30, wasteCatalogue: true });
const azurite = await startAzurite();
const host = await startLocalHost({
  config: loadConfig({
    WEBAPP_ENVIRONMENT: 'Development',
    DATA_DIR: 'memory://',
    AzureWebJobsStorage: azurite.connectionString,
    WeeklyAnalysis__Enabled: 'false',
    Cloud__TenantId: '00000000-0000-0000-0000-0000000000aa',
    Cloud__ClientId: 'finwatch-bench',
    Cloud__ClientSecret: 'simulator-secret',
    Cloud__ArmEndpoint: sim.url,
    Cloud__AuthorityHost: sim.url,
    Cloud__CaFile: fileURLToPath(new URL('../dev/azure-sim/tls/sim-cert.pem', import.meta.url)),
    CostQuery__PaceScale: '0',
    Cloud__SubscriptionIds: subscriptionIds.join(','),
    ADMIN_EMAILS: 'bench@example.com',
    ADMIN_BOOTSTRAP_SECRET: BOOTSTRAP,
    Metrics__AzurePricesBaseUrl: 'off',
  }),
  queueWorker: { pollMs: 20 },
  weeklyTimer: false,
  exportTimer: false,
  servicesOptions: { log: createLogger('None') },
});

async function call<T>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(`${host.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(path.endsWith('User/create') ? { 'X-Admin-Bootstrap': BOOTSTRAP } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

try {
  await call('POST', '/auth/api/User/create', {
    username: 'bench',
    userEmail: 'bench@example.com',
    password: PASSWORD,
    repeatPassword: PASSWORD,
  });
  const { token } = await call<{ token: string }>('POST', '/auth/api/Auth/login', {
    username: 'bench@example.com',
    password: PASSWORD,
  });
  const seed0 = performance.now();
  // One analysis at a time per subscription (a second one of the same subscription is refused).
  await Promise.all(
    subscriptionIds.map(async (sub, i) => {
      const runs = Math.floor(ANALYSES / SUBSCRIPTIONS) + (i < ANALYSES % SUBSCRIPTIONS ? 1 : 0);
      for (let r = 0; r < runs; r++) {
        const { jobId } = await call<{ jobId: string }>(
          'POST',
          '/finops/api/Analysis/start-async',
          sub,
          token,
        );
        for (;;) {
          const job = await call<{ status: string }>(
            'GET',
            `/finops/api/Analysis/jobs/${jobId}`,
            undefined,
            token,
          );
          if (job.status === 'completed') break;
          if (job.status === 'failed') throw new Error(`analysis of ${sub} failed`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }),
  );
  console.log(
    `seeded ${ANALYSES} analyses of ${SUBSCRIPTIONS} subscriptions in ${((performance.now() - seed0) / 1000).toFixed(0)} s`,
  );

  // The forecast's own work, A/B in this process: the whole forecast as served, against reading the
  // run's history as every series (subscription, resource groups, services), as it was read before.
  const prisma = host.services.prisma;
  const served: number[] = [];
  const allSeries: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const sub of subscriptionIds) {
      const t0 = performance.now();
      const f = await subscriptionForecast(prisma, sub);
      const t1 = performance.now();
      buildSeries(sub, await runHistory(prisma, f!.analysisRunId), new Date());
      const t2 = performance.now();
      served.push(t1 - t0);
      allSeries.push(t2 - t1);
    }
  }

  const browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
  const interactive: number[] = [];
  const filled: number[] = [];
  const requests: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    // A new context each time: nothing cached, as a first visit.
    // bypassCSP: the page's policy refuses the string predicates below (eval), which are the bench's own.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    await context.addInitScript(`localStorage.setItem('finwatch.console.token', ${JSON.stringify(token)})`);
    const page = await context.newPage();
    let apiCalls = 0;
    page.on('request', (r) => {
      if (/\/(auth|finops|metrics)\/api\//.test(r.url())) apiCalls++;
    });
    await page.goto(`${host.url}/console/`, { waitUntil: 'commit' });
    // Checked on every frame in the page; performance.now() there counts from the navigation's start.
    const when = (condition: string) =>
      page.waitForFunction(`(${condition}) ? performance.now() : false`, undefined, {
        timeout: 120_000,
        polling: 'raf',
      });
    // Usable: the navigation and every card's enabled "Run analysis" button.
    const usable = when(
      `document.querySelector('nav a') && [...document.querySelectorAll('button[aria-label^="Run analysis"]')].filter((b) => !b.disabled).length >= ${SUBSCRIPTIONS}`,
    );
    // Filled: every card shows its forecast and its waste line.
    const done = when(
      `[...document.querySelectorAll('[data-testid^="subscription-"]')].filter((c) => c.querySelector('[data-testid="forecast"]') && (c.querySelector('[data-testid="saving"]') || c.textContent.includes('No waste findings'))).length >= ${SUBSCRIPTIONS}`,
    );
    interactive.push(Number(await (await usable).jsonValue()));
    filled.push(Number(await (await done).jsonValue()));
    requests.push(apiCalls);
    await context.close();
  }
  await browser.close();

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const show = (name: string, xs: number[]) => {
    const m = median(xs);
    console.log(
      `${name.padEnd(22)} median ${m.toFixed(0).padStart(5)} ms  (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})  ${(m / AIM_MS).toFixed(2)}x the ${AIM_MS} ms aim ${m <= AIM_MS ? '(met)' : '(missed)'}`,
    );
  };
  console.log(
    `Overview, ${ANALYSES} analyses of ${SUBSCRIPTIONS} subscriptions, ${LOADS} cold loads, load average ${loadavg()[0]!.toFixed(1)}:`,
  );
  show('controls usable', interactive);
  show('cards filled', filled);
  console.log(`API requests per load: ${median(requests)}`);
  console.log(
    `forecast of one subscription: median ${median(served).toFixed(0)} ms; reading its history as every series (before) alone: ${median(allSeries).toFixed(0)} ms (${(median(allSeries) / median(served)).toFixed(1)}x)`,
  );
} finally {
  await host.close();
  await azurite.stop();
  await sim.close();
}
