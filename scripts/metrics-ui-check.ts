// Manual check: the original web client (AlertHawk.UI.V2), built unchanged, against finwatch's
// metrics service. Not part of CI: the client's source is not in this repository.
//
//   git clone https://github.com/thiagoloureiro/AlertHawk.UI.V2 /tmp/alerthawk-ui
//   node --import tsx scripts/metrics-ui-check.ts --ui /tmp/alerthawk-ui [--out data/ui-check]
//
// It installs and builds the client (npm install, vite build into a temporary folder) with its
// API base URLs pointed at this machine, starts finwatch (in-memory PGlite, Azurite, the Azure
// simulator for prices), feeds it two clusters through POST /metrics/api/ingest/batch, serves the
// built client and proxies /auth, /finops and /metrics to finwatch (one origin, as the client's
// ingress expects), signs in as an administrator, opens the Kubernetes pages in headless Chromium
// (Debian's chromium, or CHROMIUM_PATH), and writes a screenshot per page. It exits 1 when a call
// to /metrics/api failed or a page logged an error. Look at the screenshots.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startAzureSimulator } from '../dev/azure-sim/index.js';
import { startAzuriteStorage } from '../dev/azurite.js';
import { startLocalHost } from '../dev/host.js';
import { loadConfig } from '../shared/config/index.js';

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const uiDir = arg('ui');
if (!uiDir || !existsSync(path.join(uiDir, 'package.json'))) {
  console.error(
    'usage: node --import tsx scripts/metrics-ui-check.ts --ui <AlertHawk.UI.V2 checkout> [--out dir] [--port n]',
  );
  process.exit(2);
}
const outDir = path.resolve(arg('out', 'data/ui-check')!);
const port = Number(arg('port', '4517'));
const origin = `http://127.0.0.1:${port}`;
const browserPath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => Boolean(p) && existsSync(p!),
);
if (!browserPath) {
  console.error('No Chromium found: apt-get install -y chromium, or set CHROMIUM_PATH.');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

// ---------------------------------------------------------------- build the client, unchanged
const dist = path.join(mkdtempSync(path.join(os.tmpdir(), 'alerthawk-ui-')), 'dist');
if (!existsSync(path.join(uiDir, 'node_modules'))) {
  console.log('npm install in', uiDir);
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: uiDir, stdio: 'inherit' });
}
console.log('vite build into', dist);
execFileSync('npx', ['vite', 'build', '--outDir', dist, '--emptyOutDir'], {
  cwd: uiDir,
  stdio: 'inherit',
  env: {
    ...process.env,
    VITE_APP_METRICS_API_URL: `${origin}/metrics`,
    VITE_APP_AUTH_API_URL: `${origin}/auth/`,
    VITE_APP_FINOPS_API_URL: `${origin}/finops/`,
    VITE_APP_MONITORING_API_URL: `${origin}/monitoring/`,
    VITE_APP_NOTIFICATION_API_URL: `${origin}/notification/`,
    VITE_APP_METRICS_ENABLED: 'true',
    VITE_APP_CLIENT_ID: '00000000-0000-0000-0000-000000000000',
    VITE_APP_AUTHORITY: 'https://login.microsoftonline.com/common',
    VITE_APP_REDIRECT_URI: origin,
    VITE_APP_SENTRY_DSN: '',
    VITE_APP_ABBY_ENABLED: 'false',
  },
});

// ---------------------------------------------------------------- finwatch, fed by the ingest API
const azurite = await startAzuriteStorage();
const sim = await startAzureSimulator();
const config = loadConfig({
  ...process.env,
  WEBAPP_ENVIRONMENT: 'Development',
  DATA_DIR: 'memory://',
  AzureWebJobsStorage: azurite.connectionString,
  // Made per run: no key written in the repository is accepted in Production.
  Jwt__Key: randomBytes(32).toString('base64url'),
  Metrics__AllowAnonymousIngest: 'true',
  Metrics__AzurePricesBaseUrl: sim.url,
  Cloud__CaFile: fileURLToPath(new URL('../dev/azure-sim/tls/sim-cert.pem', import.meta.url)),
  Logging__LogLevel__Default: 'Warning',
});
const host = await startLocalHost({ config, weeklyTimer: false, exportTimer: false });
const api = async (method: string, p: string, body?: unknown, token?: string) => {
  const res = await fetch(`${host.url}${p}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
};

const email = 'ui-check@example.com';
const password = 'ui-check-passphrase-1';
await api('POST', '/auth/api/User/create', {
  username: 'ui-check',
  userEmail: email,
  password,
  repeatPassword: password,
});
await host.services.prisma.user.update({ where: { email }, data: { isAdmin: true } });
const { token } = (await api('POST', '/auth/api/Auth/login', { username: email, password })) as {
  token: string;
};
const userInfo = await api('GET', `/auth/api/user/${email}`, undefined, token);

const now = Date.now();
for (const [cluster, nodes] of [
  ['prod-aks', ['aks-np1-vmss000000', 'aks-np1-vmss000001', 'aks-np2-vmss000000']],
  ['staging-aks', ['aks-sys-vmss000000']],
] as const) {
  for (let step = 12; step >= 0; step--) {
    const at = new Date(now - step * 60_000).toISOString();
    const records: unknown[] = [];
    nodes.forEach((node, i) => {
      // The second node goes NotReady for a while: node status alerts.
      const ready = !(i === 1 && step <= 8 && step > 3);
      records.push({
        kind: 'node',
        collectedAt: at,
        data: {
          clusterName: cluster,
          clusterEnvironment: cluster.startsWith('prod') ? 'PROD' : 'STAGING',
          nodeName: node,
          cpuUsageCores: 0.8 + i * 0.7 + (step % 3) * 0.1,
          cpuCapacityCores: 4,
          memoryUsageBytes: (5 + i) * 1024 ** 3,
          memoryCapacityBytes: 16 * 1024 ** 3,
          kubernetesVersion: 'v1.30.5',
          cloudProvider: 'AKS',
          isReady: ready,
          hasMemoryPressure: false,
          hasDiskPressure: false,
          hasPidPressure: false,
          architecture: 'amd64',
          operatingSystem: 'linux',
          region: 'eastus',
          instanceType: i === 2 ? 'Standard_E8ds_v5' : 'Standard_D4s_v5',
        },
      });
      for (const [ns, pod] of [
        ['web', `api-7d9f-${i}`],
        ['data', `worker-5c8b-${i}`],
      ]) {
        records.push({
          kind: 'pod',
          collectedAt: at,
          data: {
            clusterName: cluster,
            namespace: ns,
            pod,
            container: ns === 'web' ? 'api' : 'worker',
            cpuUsageCores: 0.05 + i * 0.03,
            cpuLimitCores: 0.5,
            memoryUsageBytes: (150 + i * 40) * 1024 ** 2,
            memoryLimitBytes: 512 * 1024 ** 2,
            nodeName: node,
            podState: 'Running',
            restartCount: i,
            podAge: 86_400 + step * 60,
          },
        });
      }
      records.push({
        kind: 'pvc',
        collectedAt: at,
        data: {
          clusterName: cluster,
          namespace: 'data',
          pod: `worker-5c8b-${i}`,
          pvcNamespace: 'data',
          pvcName: `data-worker-${i}`,
          volumeName: `pvc-${i}`,
          usedBytes: (2 + i) * 1024 ** 3,
          availableBytes: (8 - i) * 1024 ** 3,
          capacityBytes: 10 * 1024 ** 3,
        },
      });
    });
    records.push({
      kind: 'event',
      collectedAt: at,
      data: {
        clusterName: cluster,
        namespace: 'web',
        eventName: `api-7d9f-0.${step}`,
        eventUid: randomUUID(),
        involvedObjectKind: 'Pod',
        involvedObjectName: 'api-7d9f-0',
        involvedObjectNamespace: 'web',
        eventType: step % 4 === 0 ? 'Warning' : 'Normal',
        reason: step % 4 === 0 ? 'BackOff' : 'Pulled',
        message: step % 4 === 0 ? 'Back-off restarting failed container' : 'Container image pulled',
        sourceComponent: 'kubelet',
        count: 1 + step,
        firstTimestamp: at,
        lastTimestamp: at,
      },
    });
    await api('POST', '/metrics/api/ingest/batch', { batchId: randomUUID(), clusterName: cluster, records });
  }
}
await host.services.metricsAlerts.settled();

// ---------------------------------------------------------------- the client, same origin as the API
const indexHtml = readFileSync(path.join(dist, 'index.html'));
const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};
const front = http.createServer((req, res) => {
  const url = req.url ?? '/';
  if (/^\/(auth|finops|metrics|monitoring|notification)\//.test(url)) {
    const upstream = http.request(
      `${host.url}${url}`,
      { method: req.method, headers: { ...req.headers, host: new URL(host.url).host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
    return;
  }
  const file = path.join(dist, decodeURIComponent(url.split('?')[0]!));
  if (file.startsWith(dist) && existsSync(file) && !file.endsWith(path.sep) && path.extname(file)) {
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html' }).end(indexHtml); // the SPA's routes
});
await new Promise<void>((r) => front.listen(port, '127.0.0.1', () => r()));
console.log(`client on ${origin} (finwatch ${host.url}, proxied)`);

// ---------------------------------------------------------------- the pages
const browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
const page = await (await browser.newContext({ viewport: { width: 1440, height: 1000 } })).newPage();
await page.addInitScript(
  ([t, u]) => {
    // The client keeps its sign-in in localStorage (the project compiles without the DOM library).
    const storage = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } })
      .localStorage;
    storage.setItem('authToken', t as string);
    storage.setItem('userInfo', u as string);
  },
  [token, JSON.stringify(userInfo)],
);
const metricCalls: Array<{ url: string; status: number }> = [];
const problems: string[] = [];
page.on('response', (r) => {
  if (r.url().includes('/metrics/api/')) metricCalls.push({ url: r.url(), status: r.status() });
});
page.on('requestfailed', (r) => {
  if (r.url().includes('/metrics/api/'))
    problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
});
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

for (const [route, name] of [
  ['/metrics', 'metrics'],
  ['/clusters-diagram', 'clusters-diagram'],
  ['/cluster-events', 'cluster-events'],
  ['/volume-metrics', 'volume-metrics'],
  ['/alerts', 'alerts'],
] as const) {
  await page.goto(`${origin}${route}`, { waitUntil: 'networkidle' });
  await page.waitForTimeout(1500);
  const file = path.join(outDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log('screenshot', file);
}

const failed = metricCalls.filter((c) => c.status >= 400);
console.log(`/metrics/api calls: ${metricCalls.length}, failed: ${failed.length}`);
for (const c of metricCalls) console.log(`  ${c.status} ${c.url.replace(origin, '')}`);
for (const p of [...failed.map((c) => `${c.status} ${c.url}`), ...problems]) console.error('PROBLEM', p);

await browser.close();
await new Promise<void>((r) => front.close(() => r()));
await host.close();
await sim.close();
await azurite.stop();
process.exit(failed.length || problems.length ? 1 : 0);
