import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayNumber } from '../../dev/azure-sim/days.js';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { resourceDayCost } from '../../dev/azure-sim/subscription.js';
import { CASE_TAG } from '../../dev/azure-sim/waste-catalogue.js';
import { FLAGS_SEPARATOR, RULES } from '../../shared/finops/engine/flags.js';
import { createUser, ensureAuth, type TestUser } from '../finops-api/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient } from '../support/http.js';
import { type Api, SUB_A, simSettings } from './support.js';

interface Flag {
  code: string;
  message: string;
  advisor?: { annualSavings: number; solution: string };
  monthToDateCost: number | null;
  estimatedMonthlySaving: number;
  category: string;
  status: string;
  ageDays: number;
  firstSeenAt: string;
}
interface Row {
  resourceId: string;
  resourceName: string;
  tagsJson: string | null;
  flags: string | null;
  flagDetails: Flag[];
  monthToDateCost: number | null;
}

const caseOf = (r: Row) =>
  r.tagsJson ? (JSON.parse(r.tagsJson) as Record<string, string>)[CASE_TAG] : undefined;

describe('waste rules through HTTP: every rule fires on its positive case and not on its negative', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: Api;
  let user: TestUser;
  let rows: Row[] = [];
  let runId = 0;
  /** The last day the run's costs cover (today when it ran): the figures are of that day, not the test's. */
  let periodTo = new Date(0);

  beforeAll(async () => {
    sim = await startAzureSimulator({ resourcesPerSubscription: 12, wasteCatalogue: true });
    host = await startTestHost({ queueWorker: false, settings: simSettings(sim) });
    api = apiClient(host.url);
    user = await createUser(host.services.prisma, false);
    await ensureAuth(host, user);
    const res = await api.post('/finops/api/Analysis/start', { token: user.token, json: SUB_A });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    runId = res.body.analysisRunId;
    periodTo = (await host.services.prisma.analysisRun.findUniqueOrThrow({ where: { id: runId } })).periodTo;
    const list = await api.get(`/finops/api/Resources/analysis/${runId}?pageSize=1000`, {
      token: user.token,
    });
    expect(list.status).toBe(200);
    rows = list.body;
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await sim?.close();
  });

  it('has at least 25 rules, each with a positive and a negative case in the simulator', () => {
    expect(RULES.length).toBeGreaterThanOrEqual(25);
    const sub = sim.subscription(SUB_A);
    const cases = [...sub.resources, ...sub.containers].map((r) => r.tags[CASE_TAG]).filter(Boolean);
    for (const rule of RULES) {
      expect(cases, rule.code).toContain(`${rule.code}:positive`);
      expect(
        cases.some((c) => c!.startsWith(`${rule.code}:negative:`)),
        rule.code,
      ).toBe(true);
    }
  });

  it.each(RULES.map((r) => r.code))('%s fires on the positive case and not on the negatives', (code) => {
    const positive = rows.filter((r) => caseOf(r) === `${code}:positive`);
    expect(positive).toHaveLength(1);
    expect(positive[0]!.flagDetails.map((f) => f.code)).toContain(code);
    expect(positive[0]!.flags).toContain(`${code}: `);
    for (const r of rows.filter((x) => caseOf(x)?.startsWith(`${code}:negative:`))) {
      expect(
        r.flagDetails.map((f) => f.code),
        caseOf(r),
      ).not.toContain(code);
      expect(r.flags ?? '', caseOf(r)).not.toContain(`${code}: `);
    }
  });

  it.each(RULES.map((r) => r.code))(
    '%s: the flags text of its positive case reads back as its findings, one per "; "',
    (code) => {
      const row = rows.find((r) => caseOf(r) === `${code}:positive`)!;
      const parts = (row.flags ?? '').split(FLAGS_SEPARATOR).map((p) => {
        const at = p.indexOf(': ');
        return { code: p.slice(0, at), message: p.slice(at + 2) };
      });
      expect(parts).toEqual(row.flagDetails.map((f) => ({ code: f.code, message: f.message })));
    },
  );

  it('keeps the known exclusions: public IPs from a prefix, load balancers with inbound NAT rules, Azure Backup disks', () => {
    const named = (name: string) => rows.find((r) => r.resourceName === name)!;
    expect(named('pip-cat-prefix').flags).toBe('');
    expect(named('lb-cat-nat').flags).toBe('');
    expect(named('disk-cat-backup').flags).toBe('');
  });

  it('puts an empty resource group in the run as a flagged row, and no group that holds resources', () => {
    const groups = rows.filter((r) => r.resourceId.match(/\/resourceGroups\/[^/]+$/));
    expect(groups.map((g) => g.resourceName)).toEqual(['rg-waste-empty']);
  });

  it('estimates the monthly saving from the run-rate of the cost of the month, per rule', () => {
    // The run's day, not the test's: a run just before midnight UTC is checked after it.
    const now = periodTo;
    const monthDays = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
    const factor = monthDays / now.getUTCDate();
    const sub = sim.subscription(SUB_A);
    const first = dayNumber(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)));
    const simMtd = (name: string) => {
      const i = sub.resources.findIndex((r) => r.name === name);
      let total = 0;
      for (let d = first; d <= dayNumber(now); d++) total += resourceDayCost(sub, i, d);
      return total;
    };
    const flag = (name: string, code: string) =>
      rows.find((r) => r.resourceName === name)!.flagDetails.find((f) => f.code === code)!;
    const round2 = (n: number) => Math.round(n * 100) / 100;

    const nat = flag('ng-cat-idle', 'NatGatewayWithoutSubnet');
    expect(nat.monthToDateCost).toBeCloseTo(simMtd('ng-cat-idle'), 3);
    expect(nat.estimatedMonthlySaving).toBeCloseTo(round2(simMtd('ng-cat-idle') * factor), 1);
    expect(nat.estimatedMonthlySaving).toBeGreaterThan(nat.monthToDateCost! - 0.01);
    // Premium → standard snapshot: 60 % of the run-rate.
    expect(flag('snap-cat-premium', 'PremiumSnapshot').estimatedMonthlySaving).toBeCloseTo(
      round2(simMtd('snap-cat-premium') * factor * 0.6),
      1,
    );
    // SQL Hybrid Benefit: half of the run-rate of the VM the SQL VM extends.
    expect(flag('sqlvm-cat-payg', 'SqlVmWithoutHybridBenefit').estimatedMonthlySaving).toBeCloseTo(
      round2(simMtd('vm-cat-windows') * factor * 0.5),
      1,
    );
    // Security and retirement flags save nothing.
    expect(flag('acrcatadmin', 'RegistryAdminUserEnabled')).toMatchObject({
      category: 'security',
      estimatedMonthlySaving: 0,
    });
    expect(flag('pip-cat-basic', 'BasicSkuPublicIp')).toMatchObject({
      category: 'modernize',
      estimatedMonthlySaving: 0,
    });
  });

  it('reads Resources and ResourceContainers in one Resource Graph request, Advisor in a second', () => {
    const graph = sim.stats.requests.filter((r) => r.endpoint === 'graph');
    expect(graph).toHaveLength(2);
  });

  it("merges an Advisor recommendation that restates a finwatch flag into that flag, with Advisor's saving", () => {
    const disk = rows.find((r) => r.resourceName === 'disk-cat-unattached')!;
    expect(disk.flagDetails.map((f) => f.code)).toEqual(['UnattachedDisk']);
    expect(disk.flagDetails[0]).toMatchObject({
      estimatedMonthlySaving: 20,
      advisor: { annualSavings: 240, solution: 'Delete or downgrade unattached disks' },
    });
  });

  it('adds other Advisor cost recommendations as their own findings, on a row of their own when the resource is not in the snapshot', () => {
    const vm = rows.find((r) => r.resourceName === 'vm-cat-running')!;
    expect(vm.flagDetails).toEqual([
      expect.objectContaining({
        code: 'AdvisorCost',
        estimatedMonthlySaving: 50,
        advisor: expect.objectContaining({ annualSavings: 600 }),
      }),
    ]);
    const sub = rows.find((r) => r.resourceId === `/subscriptions/${SUB_A}`)!;
    expect(sub.flagDetails[0]).toMatchObject({ code: 'AdvisorCost', estimatedMonthlySaving: 100 });
    expect(sub.flags).toMatch(/^AdvisorCost: Azure Advisor: Consider virtual machine reserved instances/);
    // A recommendation of another category is not read.
    expect(rows.find((r) => r.resourceName === 'vm-cat-running-2')!.flagDetails).toEqual([]);
  });

  it('shows Advisor recommendations in the rule-based recommendations', async () => {
    const res = await api.get(`/finops/api/Recommendations/analysis/${runId}/latest`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.recommendationText).toMatch(/## Azure Advisor/);
    expect(res.body.recommendationText).toMatch(
      /Buy virtual machine reserved instances \(about 1200\.00 (EUR|USD) a year\)/,
    );
  });
});
