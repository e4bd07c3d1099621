import { describe, expect, it } from 'vitest';
import { generateSubscription } from '../../dev/azure-sim/data.js';
import { WASTE_CASES } from '../../dev/azure-sim/waste-cases.js';
import type { AzureResource } from '../../shared/finops/azure/index.js';
import { normalizeResource } from '../../shared/finops/azure/resource-graph.js';
import { budgetStatus } from '../../shared/finops/engine/budget.js';
import { computeFlags, flagsText } from '../../shared/finops/engine/flags.js';
import { analysisPeriod, parseMonthSelection } from '../../shared/finops/engine/period.js';
import {
  type AnalysisFacts,
  buildPrompt,
  promptData,
  ruleBasedRecommendation,
} from '../../shared/finops/engine/recommendations.js';

describe('budget rule', () => {
  it('is headroom at 79.99 %', () => {
    const s = budgetStatus(799.9, 1000)!;
    expect(s.state).toBe('headroom');
    expect(s.utilizationPercent).toBe(79.99);
    expect(s.text).toMatch(/^Within budget/);
  });
  it('is near budget at exactly 80 %', () => {
    expect(budgetStatus(800, 1000)!.state).toBe('near');
    expect(budgetStatus(80, 100)!.state).toBe('near');
    expect(budgetStatus(266.664, 333.33)!.state).toBe('near');
  });
  it('is over budget at exactly 100 % and above', () => {
    expect(budgetStatus(1000, 1000)!.state).toBe('over');
    expect(budgetStatus(999.99, 1000)!.state).toBe('near');
    expect(budgetStatus(1500, 1000)).toMatchObject({
      state: 'over',
      utilizationPercent: 150,
      headroom: -500,
    });
  });
  it('does not apply without a positive budget', () => {
    expect(budgetStatus(10, null)).toBeNull();
    expect(budgetStatus(10, 0)).toBeNull();
  });
});

const facts = (budget: number | null, cost = 850): AnalysisFacts => ({
  subscriptionId: 'sub',
  subscriptionName: 'Contoso',
  monthSelection: 'current',
  periodFrom: '2026-11-01',
  periodTo: '2026-11-22',
  currency: 'USD',
  totalMonthlyCost: cost,
  monthlyBudget: budget,
  budget: budgetStatus(cost, budget),
  resourceCount: 3,
  resourcesByType: [],
  topResourceGroups: [{ name: 'RG-WEB', cost: 700 }],
  topServices: [],
  flagged: [
    {
      name: 'disk-1',
      type: 'microsoft.compute/disks',
      resourceGroup: 'RG-WEB',
      monthToDateCost: 12.5,
      flags: [{ code: 'UnattachedDisk', message: 'm', monthToDateCost: 12.5 }],
    },
  ],
});

describe('AI prompt and rule-based recommendations', () => {
  it('carries MonthlyBudget and the budget status when there is a budget', () => {
    const data = promptData(facts(1000));
    expect(data).toMatchObject({
      MonthlyBudget: 1000,
      BudgetUtilizationPercent: 85,
      BudgetStatus: 'near budget',
    });
    expect(buildPrompt(facts(1000))).toMatch(/Budget status: Near budget/);
  });
  it('is unchanged by the budget rule without a budget', () => {
    expect(promptData(facts(null))).not.toHaveProperty('MonthlyBudget');
    expect(buildPrompt(facts(null))).not.toMatch(/budget/i);
  });
  it('shows Azure Advisor cost recommendations in the prompt and in the rule-based text', () => {
    const withAdvisor: AnalysisFacts = {
      ...facts(null),
      advisor: [
        {
          resourceName: 'vm-1',
          resourceType: 'microsoft.compute/virtualmachines',
          problem: 'Right-size underutilized virtual machines',
          solution: 'Resize to Standard_D2s_v5',
          annualSavings: 600,
          currency: 'USD',
        },
      ],
    };
    expect(promptData(withAdvisor)['AzureAdvisorCostRecommendations']).toEqual([
      {
        Resource: 'vm-1',
        Type: 'microsoft.compute/virtualmachines',
        Problem: 'Right-size underutilized virtual machines',
        Solution: 'Resize to Standard_D2s_v5',
        AnnualSavings: 600,
        Currency: 'USD',
      },
    ]);
    expect(promptData(facts(null))).not.toHaveProperty('AzureAdvisorCostRecommendations');
    expect(ruleBasedRecommendation(withAdvisor).text).toMatch(
      /## Azure Advisor\n- vm-1: Right-size underutilized virtual machines Resize to Standard_D2s_v5 \(about 600\.00 USD a year\)/,
    );
  });

  it('leaves flags still under watch out of the rule-based actions', () => {
    const f = facts(null);
    f.flagged[0]!.flags[0]!.status = 'watch';
    expect(ruleBasedRecommendation(f).text).not.toMatch(/Snapshot and delete unattached/);
  });

  it('derives actions from the flags and the budget status', () => {
    const r = ruleBasedRecommendation(facts(800));
    expect(r.text).toMatch(/Over budget/);
    expect(r.text).toMatch(/Snapshot and delete unattached managed disks.*12\.50 USD/);
    expect(r.summary.length).toBeLessThanOrEqual(1000);
  });
});

describe('waste flags', () => {
  const now = new Date('2026-11-22T00:00:00Z');
  const sub = generateSubscription('0b5c6a1e-1111-4a2b-8c3d-00000000000f', { resources: 300, seed: 7, now });
  const resources: AzureResource[] = sub.resources.map((r) =>
    normalizeResource(r as unknown as Record<string, unknown>),
  );

  it('flags exactly the simulator resources that carry a waste case', () => {
    const expected: Record<string, string> = {
      'unattached-disk': 'UnattachedDisk',
      'unassociated-public-ip': 'UnassociatedPublicIp',
      'vm-stopped': 'VmStoppedNotDeallocated',
      'vm-deallocated': 'VmDeallocated',
      'empty-app-service-plan': 'EmptyAppServicePlan',
      'old-snapshot': 'OldSnapshot',
      'orphaned-nic': 'OrphanedNic',
      'lb-without-backends': 'LoadBalancerWithoutBackends',
      'acr-admin-user': 'RegistryAdminUserEnabled',
      'redis-non-ssl-port': 'RedisNonSslPort',
    };
    expect(Object.keys(expected).sort()).toEqual([...WASTE_CASES].sort());
    resources.forEach((r, i) => {
      const waste = sub.billing[i]!.waste;
      const codes = computeFlags(r, 1, now).map((f) => f.code);
      expect(codes).toEqual(waste ? [expected[waste]] : []);
    });
  });

  it('attaches the month-to-date cost only when the resource has one', () => {
    const disk = resources.find((_r, i) => sub.billing[i]!.waste === 'unattached-disk')!;
    expect(computeFlags(disk, 12.34567, now)[0]!.monthToDateCost).toBe(12.3457);
    expect(computeFlags(disk, 0, now)[0]!.monthToDateCost).toBeNull();
    expect(computeFlags(disk, undefined, now)[0]!.monthToDateCost).toBeNull();
  });

  it('skips service-managed disks and Free plans; a Basic load balancer is flagged as retired, not as empty', () => {
    const base = {
      id: 'x',
      name: 'n',
      resourceGroup: 'g',
      location: 'l',
      kind: null,
      managedBy: null,
      tags: {},
    };
    const pvc: AzureResource = {
      ...base,
      name: 'pvc-1234',
      type: 'microsoft.compute/disks',
      sku: null,
      properties: { diskState: 'Unattached' },
      tags: { 'kubernetes.io-created-for-pvc-name': 'data' },
    };
    expect(computeFlags(pvc, 1, now)).toEqual([]);
    const free: AzureResource = {
      ...base,
      type: 'microsoft.web/serverfarms',
      sku: { tier: 'Free' },
      properties: { numberOfSites: 0 },
    };
    expect(computeFlags(free, 1, now)).toEqual([]);
    const basic: AzureResource = {
      ...base,
      type: 'microsoft.network/loadbalancers',
      sku: { name: 'Basic' },
      properties: { backendAddressPools: [] },
    };
    expect(computeFlags(basic, 1, now).map((f) => f.code)).toEqual(['BasicSkuLoadBalancer']);
    const both: AzureResource = {
      ...base,
      type: 'microsoft.compute/disks',
      sku: null,
      properties: { diskState: 'Unattached' },
    };
    expect(flagsText(computeFlags(both, 1, now))).toMatch(/^UnattachedDisk: /);
  });
});

describe('month selection', () => {
  it('current covers the month to date and six months of history to today', () => {
    const p = analysisPeriod('current', new Date('2026-03-15T10:00:00Z'));
    expect(p).toMatchObject({
      from: '2026-03-01',
      to: '2026-03-15',
      history: { from: '2025-09-01', to: '2026-03-15' },
    });
    expect(p.cost).toEqual({ kind: 'MonthToDate' });
  });
  it('previous covers the last full calendar month, history up to its end', () => {
    const p = analysisPeriod('previous', new Date('2026-03-15T10:00:00Z'));
    expect(p).toMatchObject({
      from: '2026-02-01',
      to: '2026-02-28',
      history: { from: '2025-08-01', to: '2026-02-28' },
    });
    expect(analysisPeriod('previous', new Date('2026-01-05T00:00:00Z'))).toMatchObject({
      from: '2025-12-01',
      to: '2025-12-31',
    });
  });
  it('parses the query parameter', () => {
    expect(parseMonthSelection(null)).toBe('current');
    expect(parseMonthSelection('Previous')).toBe('previous');
    expect(parseMonthSelection('last')).toBeUndefined();
  });
});
