import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simAksCluster } from '../../dev/azure-sim/aks.js';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { buildConsole, consoleBuildIsStale } from '../../scripts/build-console.js';
import { MemoryUsageSource } from '../../shared/finops/kubernetes/usage-source.js';
import {
  CA_FILE,
  CLIENT_ID,
  type DirectoryServer,
  startDirectoryServer,
  TENANT,
} from '../auth/directory-server.js';
import { simSettings, waitFor } from '../finops-engine/support.js';
import { exportLines, focusCsv } from '../finops-intel/export-fixture.js';
import { AGENT_CLUSTER, agentRecords } from '../kubernetes-cost/cluster-fixture.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';

/** Debian's chromium, or CHROMIUM_PATH. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
const browserPath = CANDIDATES.find((p): p is string => Boolean(p) && existsSync(p!));
if (!browserPath) {
  console.warn(
    'console-browser: skipped, no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)',
  );
}
/** Set to a folder to save a screenshot of every page there (docs/images is made this way). */
const SHOTS = process.env.FINWATCH_CONSOLE_SCREENSHOTS;

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Answer = any;

const AXE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');
const BOOTSTRAP = 'console-bootstrap-secret-0123456789';
const PASSWORD = 'correct-horse-9';
const FABRIKAM = '11111111-1111-4111-8111-111111111111';
const NORTHWIND = '22222222-2222-4222-8222-222222222222';
const IMPORTED = '33333333-3333-4333-8333-333333333333';
const LOCALE = 'en-US';
const TIME_ZONE = 'Europe/Berlin';

const money = (v: number, currency: string) =>
  new Intl.NumberFormat(LOCALE, { style: 'currency', currency, maximumFractionDigits: 2 }).format(v);
const isoDay = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * The console in a real headless Chromium against a seeded local host (the Azure simulator, two
 * analysed subscriptions, one imported): every page shows the numbers the API gives, every action
 * shows its effect through the API, every page passes axe-core's WCAG 2.1 AA rules, and the page
 * loads nothing its Content-Security-Policy refuses.
 */
describe.skipIf(!browserPath)('the console in headless Chromium', () => {
  let sim: AzureSimulator;
  let directory: DirectoryServer;
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let admin: string;
  let memberToken: string;
  let memberId: string;
  let hook: http.Server;
  let hookUrl: string;
  const hookBodies: string[] = [];
  const problems: string[] = [];

  // Waiting assertions on what the page shows (Playwright's own matchers belong to its test runner).
  const text = (l: Locator) => expect.poll(async () => (await l.textContent())?.trim(), { timeout: 15_000 });
  const count = (l: Locator) => expect.poll(() => l.count(), { timeout: 15_000 });
  const visible = (l: Locator, timeout = 15_000) => l.waitFor({ state: 'visible', timeout });
  const focused = (l: Locator) =>
    expect.poll(() => l.evaluate((e) => e === e.ownerDocument.activeElement), { timeout: 5_000 });

  const get = async <T = Answer>(p: string, token = admin): Promise<T> => {
    const res = await api.get(p, { token });
    expect(res.status, p).toBe(200);
    return res.body as T;
  };

  async function signIn(p: Page, email: string) {
    await p.getByLabel('Email or user name').fill(email);
    await p.getByLabel('Password').fill(PASSWORD);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByRole('navigation', { name: 'Pages' }).waitFor();
  }

  async function open(to: string, heading: string) {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: to }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  /** axe-core's WCAG 2.0/2.1 A and AA rules on the page as it is now, in the current theme. */
  async function axe(p: Page, name: string) {
    if ((await p.evaluate('typeof window.axe')) !== 'object') await p.evaluate(AXE);
    const result = (await p.evaluate(
      `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')))`,
    )) as string[];
    expect(result, `axe violations on ${name}`).toEqual([]);
    if (SHOTS) await p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  beforeAll(async () => {
    if (consoleBuildIsStale()) await buildConsole({ quiet: true });
    hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        hookBodies.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    // Each subscription has an AKS cluster; Fabrikam's agent reports what runs in it.
    sim = await startAzureSimulator({ resourcesPerSubscription: 30, wasteCatalogue: true, aks: true });
    directory = await startDirectoryServer();
    host = await startTestHost({
      settings: {
        ...simSettings(sim),
        CloudAd__Instance: `${directory.url}/`,
        CloudAd__TenantId: TENANT,
        CloudAd__ClientId: CLIENT_ID,
        CloudAd__CaFile: CA_FILE,
        Cloud__SubscriptionIds: `${FABRIKAM},${NORTHWIND}`,
        ADMIN_EMAILS: 'ops@example.com',
        ADMIN_BOOTSTRAP_SECRET: BOOTSTRAP,
      },
      queueWorker: { pollMs: 50 },
    });
    api = apiClient(host.url);
    host.services.finops.kubernetesUsage = new MemoryUsageSource().add(
      AGENT_CLUSTER,
      agentRecords(simAksCluster(FABRIKAM, 1)),
    );
    const created = await api.post('/auth/api/User/create', {
      headers: { 'X-Admin-Bootstrap': BOOTSTRAP },
      json: { username: 'ops', userEmail: 'ops@example.com', password: PASSWORD, repeatPassword: PASSWORD },
    });
    expect(created.body.isAdmin).toBe(true);
    const member = await api.post('/auth/api/User/create', {
      json: { username: 'dana', userEmail: 'dana@example.com', password: PASSWORD, repeatPassword: PASSWORD },
    });
    memberId = member.body.id;
    admin = (
      await api.post('/auth/api/Auth/login', { json: { username: 'ops@example.com', password: PASSWORD } })
    ).body.token;
    memberToken = (
      await api.post('/auth/api/Auth/login', { json: { username: 'dana@example.com', password: PASSWORD } })
    ).body.token;
    expect(
      (
        await api.post('/finops/api/Subscriptions', {
          token: admin,
          json: { subscriptionId: IMPORTED, budget: 20000 },
        })
      ).status,
    ).toBe(200);
    for (const sub of [FABRIKAM, NORTHWIND]) {
      const started = await api.post('/finops/api/Analysis/start-async', {
        token: admin,
        raw: JSON.stringify(sub),
      });
      await waitFor(
        'the seed analysis',
        async () =>
          (await api.get(`/finops/api/Analysis/jobs/${started.body.jobId}`, { token: admin })).body.status,
        (s) => s === 'completed',
        60_000,
      );
    }
    browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
    context = await browser.newContext({
      locale: LOCALE,
      timezoneId: TIME_ZONE,
      colorScheme: 'light',
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    page = await context.newPage();
    // CSP violations and script errors land here; the page must have none.
    // (Answers with an error status are logged by the browser too; the tests cause those on purpose.)
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await sim?.close();
    await directory?.close();
    await new Promise((r) => hook?.close(r));
  });

  it('serves the sign-in form at a deep link, and after signing in shows that page', async () => {
    const res = await page.goto(`${host.url}/console/forecast`);
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.getByRole('heading', { name: 'Sign in to finwatch' }).waitFor();
    await axe(page, 'sign-in');
    await page.getByLabel('Email or user name').fill('ops@example.com');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await text(page.getByRole('alert')).toContain('Invalid credentials.');
    await signIn(page, 'ops@example.com');
    await page.getByRole('heading', { level: 1, name: 'Forecast' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/forecast');
  });

  it('Overview: month to date, forecast range and waste per subscription as the API gives them, in the viewer time zone', async () => {
    await open('Overview', 'Overview');
    for (const sub of [FABRIKAM, NORTHWIND]) {
      const f = await get(`/finops/api/Forecast/${sub}`);
      const card = page.getByTestId(`subscription-${sub}`);
      await text(card.getByTestId('actual')).toBe(money(f.actualToDate, f.currency));
      await text(card.getByTestId('forecast')).toBe(money(f.forecastMonthEnd, f.currency));
      await text(card.getByTestId('range')).toBe(
        `${money(f.low, f.currency)} – ${money(f.high, f.currency)}`,
      );
      const [run] = (await get<Answer[]>('/finops/api/AnalysisRuns/latest-per-subscription')).filter(
        (r) => r.subscriptionId === sub,
      );
      const w = await get(`/finops/api/Waste/analysis/${run.id}/summary`);
      await text(card.getByTestId('saving')).toBe(money(w.totals.estimatedMonthlySaving, w.currency));
      const shown = new Intl.DateTimeFormat(LOCALE, {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: TIME_ZONE,
      }).format(new Date(`${run.runDate}Z`));
      await text(card.getByTestId('last-run')).toBe(shown);
    }
    await text(page.getByRole('contentinfo')).toContain(TIME_ZONE);
    await page.getByRole('table').waitFor();
    await axe(page, 'overview');
  });

  it('Overview: runs an analysis and follows the job to its end; the API has the new run', async () => {
    const before = (await get<Answer[]>('/finops/api/AnalysisRuns/latest-per-subscription')).find(
      (r) => r.subscriptionId === FABRIKAM,
    );
    const card = page.getByTestId(`subscription-${FABRIKAM}`);
    await card.getByRole('button', { name: /Run analysis of/ }).click();
    await visible(card.getByText(/Analysis finished \(run \d+\)/), 60_000);
    const after = (await get<Answer[]>('/finops/api/AnalysisRuns/latest-per-subscription')).find(
      (r) => r.subscriptionId === FABRIKAM,
    );
    expect(after.id).toBeGreaterThan(before.id);
    await visible(card.getByText(`Analysis finished (run ${after.id}).`));
  }, 90_000);

  it('Imports: a bad file shows the line at fault; a FOCUS export uploads, and the API lists the import', async () => {
    await open('Imports', 'Imports');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'console-import-'));
    await page.getByLabel('Subscription', { exact: true }).selectOption(IMPORTED);
    const bad = path.join(dir, 'bad.csv');
    writeFileSync(bad, 'not,a,cost,export\n1,2,3,4\n');
    await page.getByLabel('Export file').setInputFiles(bad);
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await text(page.getByTestId('import-error')).toContain('line');
    const spikeDay = isoDay(-10);
    const csv = focusCsv(
      exportLines(IMPORTED, isoDay(-120), 119, [
        {
          resourceGroup: 'rg-web',
          service: 'Virtual Machines',
          resource: 'vm-1',
          level: 300,
          factors: { [spikeDay]: 4 },
        },
        { resourceGroup: 'rg-data', service: 'SQL Database', resource: 'sql-1', level: 120 },
      ]),
    );
    const good = path.join(dir, 'focus.csv');
    writeFileSync(good, csv);
    await page.getByLabel('Export file').setInputFiles(good);
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await text(page.getByTestId('import-result')).toContain('Imported 238 rows');
    const history = await get(`/finops/api/CostImports/history?subscriptionId=${IMPORTED}`);
    expect(history.imports).toHaveLength(1);
    expect(history.imports[0]).toMatchObject({ rows: 238, format: 'focus', createdBy: 'ops@example.com' });
    await text(page.getByTestId(`import-${history.imports[0].importId}`)).toContain('238');
    await axe(page, 'imports');
  });

  it('Anomalies: lists what the API has, charts one, and acknowledges it with a note', async () => {
    const open_ = await get<Answer[]>('/finops/api/Anomalies?status=open');
    expect(open_.length).toBeGreaterThan(0);
    await open('Anomalies', 'Anomalies');
    await count(page.locator('tbody tr')).toBe(open_.length);
    const target = open_.find((a) => a.scope.kind === 'subscription') ?? open_[0];
    const row = page.getByTestId(`anomaly-${target.id}`);
    await text(row.getByTestId('impact')).toBe(money(target.impact, target.currency));
    await row.getByRole('button', { name: /Show anomaly/ }).click();
    await page.locator('figure .recharts-surface').waitFor();
    await axe(page, 'anomalies');
    await page.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await page.getByLabel('Note (optional)').fill('Load test on the web tier');
    await page.getByRole('dialog').getByRole('button', { name: 'Acknowledge' }).click();
    await text(page.getByTestId('detail-note')).toBe('Load test on the web tier');
    const acked = await get<Answer[]>(`/finops/api/Anomalies?status=acknowledged`);
    expect(acked.find((a) => a.id === target.id)).toMatchObject({
      note: 'Load test on the web tier',
      acknowledgedBy: 'ops@example.com',
    });
    await count(page.locator('tbody tr')).toBe(open_.length - 1);
  });

  it('Forecast: the estimate and status of each subscription as the API gives them', async () => {
    await open('Forecast', 'Forecast');
    for (const sub of [FABRIKAM, NORTHWIND, IMPORTED]) {
      const f = await get(`/finops/api/Forecast/${sub}`);
      const row = page.getByTestId(`forecast-${sub}`);
      await text(row.getByTestId('estimate')).toBe(money(f.forecastMonthEnd, f.currency));
      const status = {
        onTrack: 'On track',
        atRisk: 'At risk',
        overBudget: 'Over budget',
        noBudget: 'No budget',
      }[f.budgetStatus as string];
      await text(row.getByTestId('status')).toBe(status!);
    }
    await axe(page, 'forecast');
  });

  it('Waste: totals as the API gives them; dismiss, snooze, exclude and the CSV', async () => {
    await page.goto(`${host.url}/console/waste?subscriptionId=${NORTHWIND}`);
    await page.getByRole('heading', { level: 1, name: 'Waste' }).waitFor();
    const [run] = (await get<Answer[]>('/finops/api/AnalysisRuns/latest-per-subscription')).filter(
      (r) => r.subscriptionId === NORTHWIND,
    );
    const summary = await get(`/finops/api/Waste/analysis/${run.id}/summary`);
    await text(page.getByTestId('waste-saving')).toBe(
      money(summary.totals.estimatedMonthlySaving, summary.currency),
    );
    await text(page.getByTestId('waste-findings')).toBe(String(summary.totals.findings));
    const findings = (
      await get<Answer[]>(`/finops/api/Waste/analysis/${run.id}/findings?status=active`)
    ).sort((a, b) => b.estimatedMonthlySaving - a.estimatedMonthlySaving);
    await count(page.locator('tbody tr[data-testid^="finding-"]')).toBe(findings.length);
    await axe(page, 'waste');

    const [first, second] = findings;
    await page.getByRole('button', { name: `Dismiss ${first.resourceName} (${first.code})` }).click();
    await page.getByRole('dialog').getByLabel('Reason').fill('Kept for the disaster-recovery drill');
    await page.getByRole('dialog').getByRole('button', { name: 'Dismiss' }).click();
    await visible(page.getByText(`${first.resourceName}: dismissed.`));
    await page.getByRole('button', { name: `Snooze ${second.resourceName} (${second.code})` }).click();
    await page.getByRole('dialog').getByLabel('Reason').fill('Owner is on leave');
    await page.getByRole('dialog').getByRole('button', { name: 'Snooze' }).click();
    await visible(page.getByText(`${second.resourceName}: snoozed.`));
    const suppressions = await get<Answer[]>(`/finops/api/Waste/subscriptions/${NORTHWIND}/suppressions`);
    expect(suppressions.map((s) => [s.code, s.kind, s.reason])).toEqual([
      [first.code, 'dismissed', 'Kept for the disaster-recovery drill'],
      [second.code, 'snoozed', 'Owner is on leave'],
    ]);
    await count(page.locator('tbody tr[data-testid^="finding-"]')).toBe(findings.length - 2);

    const group = findings[2].resourceGroup;
    await page.getByRole('button', { name: 'Exclude…' }).click();
    await page.getByRole('dialog').getByRole('combobox', { name: 'Resource group' }).selectOption(group);
    await page.getByRole('dialog').getByLabel('Reason').fill('Sandbox, cleaned up weekly');
    await page.getByRole('dialog').getByRole('button', { name: 'Exclude' }).click();
    await visible(page.getByText('Exclusion added.'));
    const exclusions = await get<Answer[]>(`/finops/api/Waste/subscriptions/${NORTHWIND}/exclusions`);
    expect(exclusions).toMatchObject([
      { kind: 'resourceGroup', resourceGroup: group, reason: 'Sandbox, cleaned up weekly' },
    ]);
    const active = await get<Answer[]>(`/finops/api/Waste/analysis/${run.id}/findings?status=active`);
    await count(page.locator('tbody tr[data-testid^="finding-"]')).toBe(active.length);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await (await download).path();
    const lines = readFileSync(file, 'utf8').trim().split('\r\n');
    expect(lines[0]).toContain('resourceName,resourceGroup');
    expect(lines).toHaveLength(active.length + 1);
  }, 60_000);

  it('Admin: adds a channel and sends it a test; makes, lists and revokes an ingest key; filters the audit trail', async () => {
    await open('Admin', 'Admin');
    await page.getByRole('button', { name: 'Add a channel' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('ops-hook');
    await dialog.getByLabel('Kind').selectOption('webhook');
    await dialog.getByLabel('URL').fill(hookUrl);
    await dialog.getByLabel('Signing secret').fill('a-signing-secret-of-length');
    await dialog.getByRole('button', { name: 'Add' }).click();
    await visible(page.getByTestId('channel-ops-hook'));
    const channels = await get<Answer[]>('/finops/api/NotificationChannels');
    expect(channels).toMatchObject([{ name: 'ops-hook', kind: 'webhook', hasSecret: true }]);
    await page.getByRole('button', { name: 'Send a test message to ops-hook' }).click();
    await text(page.getByTestId('channel-status')).toBe('Test message delivered to ops-hook.');
    expect(hookBodies).toHaveLength(1);

    // An ingest key: shown once, listed by its prefix, accepted by the ingest API until revoked.
    await page.getByLabel('Cluster name').fill('aks-console-test');
    await page.getByRole('button', { name: 'Make a key' }).click();
    const shown = page.getByRole('status').filter({ hasText: 'Key for aks-console-test' });
    const key = (await shown.locator('code').textContent())!.trim();
    const [made] = (await get<Answer[]>('/metrics/api/IngestKeys')).filter(
      (k) => k.clusterName === 'aks-console-test',
    );
    expect(made).toMatchObject({ revokedAt: null });
    expect(key.startsWith(made.prefix)).toBe(true);
    expect(JSON.stringify(made)).not.toContain(key);
    const keyRow = page.getByTestId(`ingest-key-${made.id}`);
    await text(keyRow).toContain(`aks-console-test · ${made.prefix}…`);
    const ingest = async () =>
      (
        await api.post('/metrics/api/ingest/batch', {
          headers: { authorization: `Bearer ${key}` },
          json: {},
        })
      ).status;
    // With the key the batch gets as far as its (empty) envelope; after the revocation, not past the key.
    expect(await ingest()).toBe(400);
    await page.getByRole('button', { name: 'Revoke the key of aks-console-test' }).click();
    await visible(keyRow.getByText('revoked'));
    const [revoked] = (await get<Answer[]>('/metrics/api/IngestKeys')).filter((k) => k.id === made.id);
    expect(revoked.revokedAt).not.toBeNull();
    expect(await ingest()).toBe(401);
    // Shown once: a new page load does not show it again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Admin' }).waitFor();
    await visible(page.getByTestId(`ingest-key-${made.id}`));
    expect(await page.getByText(key).count()).toBe(0);

    await page.getByLabel('Action (commas for several)').fill('waste.suppressed');
    await page.getByRole('button', { name: 'Filter' }).click();
    const audit = await api.get('/auth/api/Audit?action=waste.suppressed', { token: admin });
    await count(page.getByTestId('audit-row')).toBe(audit.body.length);
    await visible(page.getByText(`(${audit.headers.get('x-total-count')} records)`));
    // Details as labelled rows, not JSON: the record's reason under "Reason".
    const suppressed = audit.body[0];
    expect(suppressed.details.reason).toBeTruthy();
    const detailRow = page.getByTestId('audit-row').first();
    await text(detailRow.locator('dt', { hasText: /^Reason$/ })).toBe('Reason');
    expect(await detailRow.locator('dd').allTextContents()).toContain(String(suppressed.details.reason));
    expect(await detailRow.textContent()).not.toContain('{"');
    await axe(page, 'admin');
  }, 60_000);

  it('Kubernetes cost: the agent cluster split by namespace, workload and node pool, each day and right-sizing, as the API gives them', async () => {
    const clusters = await get<Answer[]>('/finops/api/KubernetesCost/clusters');
    expect(clusters.map((c) => c.clusterName)).toContain(AGENT_CLUSTER);
    const from = isoDay(-10);
    const to = isoDay(-4);
    const allocation = (aggregate: string) =>
      get(
        `/finops/api/KubernetesCost/allocation?${new URLSearchParams({ clusterName: AGENT_CLUSTER, from, to, aggregate })}`,
      );
    await page.goto(
      `${host.url}/console/kubernetes?${new URLSearchParams({ cluster: AGENT_CLUSTER, from, to })}`,
    );
    await page.getByRole('heading', { level: 1, name: 'Kubernetes cost' }).waitFor();
    const a = await allocation('namespace');
    expect(a.rows.length).toBeGreaterThan(0);
    await text(page.getByTestId('k8s-billed')).toBe(money(a.billedCost, a.currency));
    await text(page.getByTestId('k8s-idle')).toBe(
      money(
        a.idle.reduce((n: number, i: Answer) => n + i.totalCost, 0),
        a.currency,
      ),
    );
    await text(page.getByTestId('k8s-system-service')).toBe(money(a.system + a.service, a.currency));
    await text(page.getByTestId('k8s-unallocated')).toBe(money(a.unallocated, a.currency));
    for (const r of a.rows)
      await text(page.getByTestId(`k8s-row-${r.name}`).getByTestId('total')).toBe(
        money(r.totalCost, a.currency),
      );
    // The daily chart: one bar and its numbers per billed day.
    expect(a.days).toHaveLength(7);
    for (const d of a.days) {
      const row = page.getByTestId(`k8s-day-${d.day}`);
      await text(row.getByTestId('billed')).toBe(money(d.billedCost, a.currency));
      for (const part of ['allocated', 'idle', 'system', 'service', 'unallocated'])
        await text(row.getByTestId(part)).toBe(money(d[part], a.currency));
    }
    await axe(page, 'kubernetes');
    for (const [aggregate, label] of [
      ['workload', 'Workload'],
      ['nodepool', 'Node pool'],
    ]) {
      await page.getByLabel('Group by').selectOption({ label: label! });
      const b = await allocation(aggregate!);
      await count(page.locator('tbody tr[data-testid^="k8s-row-"]')).toBe(b.rows.length);
      for (const r of b.rows)
        await text(page.getByTestId(`k8s-row-${r.name}`).getByTestId('total')).toBe(
          money(r.totalCost, b.currency),
        );
    }
    const recs = await get(`/finops/api/KubernetesCost/rightsizing?clusterName=${AGENT_CLUSTER}`);
    const list: Answer[] = recs.items;
    expect(list.length).toBeGreaterThan(0);
    for (const r of list)
      await text(
        page.getByTestId(`k8s-rec-${r.namespace}/${r.workload}/${r.container}`).getByTestId('saving'),
      ).toBe(money(r.monthlySaving, a.currency));
    // A finding names the resource it is about: the one asked below the advice when under-requested.
    const under = list.find(
      (r) =>
        r.kind === 'under-requested' &&
        r.evidence.oomKills === 0 &&
        r.current.memoryBytes < r.recommended.memoryBytes &&
        r.current.cpuCores > r.recommended.cpuCores,
    );
    expect(under, 'the seeded cluster has a container short of memory and generous with CPU').toBeDefined();
    await text(
      page
        .getByTestId(`k8s-rec-${under.namespace}/${under.workload}/${under.container}`)
        .getByTestId('finding'),
    ).toBe('under-requested: memory');
  });

  it('Kubernetes cost: a cluster the bill knows but no agent reports shows its bill as the API splits it', async () => {
    const other = (await get<Answer[]>('/finops/api/KubernetesCost/clusters')).find(
      (c) => !c.reportedByAgent,
    );
    const from = isoDay(-10);
    const to = isoDay(-4);
    const a = await get(
      `/finops/api/KubernetesCost/allocation?${new URLSearchParams({ clusterName: other.clusterName, from, to })}`,
    );
    expect(a.unallocated).toBeGreaterThan(0);
    await page.getByLabel('Cluster').selectOption(other.clusterName);
    await page.getByLabel('Group by').selectOption({ label: 'Namespace' });
    await text(page.getByTestId('k8s-billed')).toBe(money(a.billedCost, a.currency));
    await text(page.getByTestId('k8s-unallocated')).toBe(money(a.unallocated, a.currency));
    // No pods to split the nodes by: an empty state that says why, and only the rows the bill alone
    // places (its claimed disks), none at zero.
    await visible(page.getByText('No agent data for this cluster'));
    const placed = (a.rows as Answer[]).filter((r) => r.totalCost > 0);
    await count(page.locator('tbody tr[data-testid^="k8s-row-"]')).toBe(placed.length);
    for (const r of placed)
      await text(page.getByTestId(`k8s-row-${r.name}`).getByTestId('total')).toBe(
        money(r.totalCost, a.currency),
      );
    await axe(page, 'kubernetes-bill-only');
  });

  it('shows an API failure in words, never a blank page', async () => {
    await page.route('**/finops/api/Forecast/**', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          status: 503,
          title: 'Service Unavailable',
          detail: 'The database is restarting.',
        }),
      }),
    );
    await open('Forecast', 'Forecast');
    await text(page.getByRole('alert').first()).toMatch(/Error 503: The database is restarting\./);
    await page.unroute('**/finops/api/Forecast/**');
  });

  it('is dark when the system is, and when chosen; passes axe in dark too', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await open('Overview', 'Overview');
    expect(await page.evaluate('document.documentElement.classList.contains("dark")')).toBe(true);
    await page.getByRole('table').waitFor();
    await axe(page, 'overview-dark');
    await page.getByLabel('Theme').selectOption('light');
    expect(await page.evaluate('document.documentElement.classList.contains("dark")')).toBe(false);
    await page.getByLabel('Theme').selectOption('system');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('works from the keyboard alone: skip link, navigation, a dialog opened and closed', async () => {
    await page.goto(`${host.url}/console/anomalies?status=acknowledged`);
    await page
      .getByRole('button', { name: /Show anomaly/ })
      .first()
      .waitFor();
    await page.keyboard.press('Tab');
    await focused(page.getByRole('link', { name: 'Skip to content' })).toBe(true);
    await page.keyboard.press('Enter');
    // Tab through the filters to the first "Show" button and open it.
    const show = page.getByRole('button', { name: /Show anomaly/ }).first();
    for (let i = 0; i < 12 && !(await show.evaluate((e) => e === e.ownerDocument.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    await focused(show).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('figure .recharts-surface').waitFor();
  });

  it('a non-administrator sees no admin page; ending their sessions brings back sign-in, then the same page', async () => {
    const other = await browser.newContext({ locale: LOCALE, timezoneId: TIME_ZONE });
    const p = await other.newPage();
    await p.goto(`${host.url}/console/waste`);
    await signIn(p, 'dana@example.com');
    await count(p.getByRole('link', { name: 'Admin' })).toBe(0);
    await p.goto(`${host.url}/console/admin`);
    await p.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect((await api.get('/auth/api/Audit', { token: memberToken })).status).toBe(403);

    // The administrator ends Dana's sessions from the Admin page; her next request is refused (401).
    await open('Admin', 'Admin');
    await page.getByRole('button', { name: 'End sessions of dana@example.com' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'End sessions' }).click();
    await text(page.getByTestId('session-status')).toContain('Every session of dana@example.com has ended');
    expect((await api.get('/finops/api/Subscription', { token: memberToken })).status).toBe(401);

    await p.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Forecast' }).click();
    await p.getByRole('heading', { name: 'Sign in to finwatch' }).waitFor();
    await signIn(p, 'dana@example.com');
    await p.getByRole('heading', { level: 1, name: 'Forecast' }).waitFor();
    expect(new URL(p.url()).pathname).toBe('/console/forecast');
    await other.close();
    expect(memberId).toBeTruthy();
  });

  it('signs in with Microsoft (MSAL against a local directory): back on the same page as a finwatch user', async () => {
    directory.interactiveUser = {
      email: 'lee@example.com',
      name: 'Lee Directory',
      oid: '0f6a4c2e-8b1d-4e3f-9a7c-5d2b1e0f3a4c',
    };
    // The directory's certificate is the local development one.
    const other = await browser.newContext({
      locale: LOCALE,
      timezoneId: TIME_ZONE,
      ignoreHTTPSErrors: true,
    });
    const p = await other.newPage();
    const refused: string[] = [];
    p.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) refused.push(m.text());
    });
    const before = { ...directory.counts };
    await p.goto(`${host.url}/console/anomalies?status=acknowledged`);
    await p.getByRole('button', { name: 'Sign in with Microsoft' }).click();
    await p.getByRole('navigation', { name: 'Pages' }).waitFor({ timeout: 30_000 });
    await p.getByRole('heading', { level: 1, name: 'Anomalies' }).waitFor();
    const at = new URL(p.url());
    expect(at.pathname + at.search).toBe('/console/anomalies?status=acknowledged');
    expect(at.hash).toBe('');
    await visible(p.getByText('lee@example.com'));
    // One interactive round trip; the page fetched the metadata and redeemed the code itself.
    expect(directory.counts.authorize - before.authorize).toBe(1);
    expect(directory.counts.token - before.token).toBe(1);
    // The token kept is finwatch's own (HS256), and the API knows the directory user.
    const own = (await p.evaluate('localStorage.getItem("finwatch.console.token")')) as string;
    expect(JSON.parse(Buffer.from(own.split('.')[0]!, 'base64url').toString()).alg).toBe('HS256');
    const me = await api.get('/auth/api/User/GetUserDetailsByToken', { token: own });
    expect(me.body).toMatchObject({ email: 'lee@example.com', isAdmin: false });
    expect(refused).toEqual([]);
    await other.close();
  }, 60_000);

  it('signs out, and nothing the page loaded was refused by its Content-Security-Policy', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to finwatch' }).waitFor();
    expect(await page.evaluate('localStorage.getItem("finwatch.console.token")')).toBeNull();
    expect(problems).toEqual([]);
  });
});
