/**
 * What the recommendation step works from: the AI prompt (with the budget status and MonthlyBudget
 * when the subscription has a budget), and the rule-based recommendations used when no AI agent is
 * configured or when it failed.
 */
import type { BudgetStatus } from './budget.js';
import type { FlagCode, ResourceFlag } from './flags.js';

export interface FlaggedResource {
  name: string;
  type: string;
  resourceGroup: string;
  flags: ResourceFlag[];
  monthToDateCost: number | null;
}

export interface AnalysisFacts {
  subscriptionId: string;
  subscriptionName: string;
  monthSelection: 'current' | 'previous';
  periodFrom: string;
  periodTo: string;
  currency: string;
  totalMonthlyCost: number;
  /** Subscriptions.Budget, null without one. */
  monthlyBudget: number | null;
  budget: BudgetStatus | null;
  resourceCount: number;
  resourcesByType: Array<{ type: string; count: number }>;
  topResourceGroups: Array<{ name: string; cost: number }>;
  topServices: Array<{ name: string; cost: number }>;
  /** Flagged resources, most expensive first. */
  flagged: FlaggedResource[];
  /** Azure Advisor's cost recommendations of the run (absent: none read). */
  advisor?: AdvisorItem[];
}

export interface AdvisorItem {
  resourceName: string;
  resourceType: string;
  problem: string;
  solution: string;
  annualSavings: number | null;
  currency: string | null;
}

export interface Recommendation {
  text: string;
  summary: string;
}

const money = (n: number, currency: string) => `${n.toFixed(2)} ${currency}`;
const MAX_PROMPT_RESOURCES = 50;

/** The data block of the prompt: JSON, with MonthlyBudget only when there is a budget. */
export function promptData(f: AnalysisFacts): Record<string, unknown> {
  return {
    SubscriptionId: f.subscriptionId,
    SubscriptionName: f.subscriptionName,
    Period: { MonthSelection: f.monthSelection, From: f.periodFrom, To: f.periodTo },
    Currency: f.currency,
    TotalMonthlyCost: Math.round(f.totalMonthlyCost * 100) / 100,
    ...(f.budget
      ? {
          MonthlyBudget: f.budget.monthlyBudget,
          BudgetUtilizationPercent: f.budget.utilizationPercent,
          BudgetStatus:
            f.budget.state === 'over'
              ? 'over budget'
              : f.budget.state === 'near'
                ? 'near budget'
                : 'headroom',
        }
      : {}),
    ResourceCount: f.resourceCount,
    ResourcesByType: f.resourcesByType.slice(0, 25),
    TopResourceGroups: f.topResourceGroups.slice(0, 10),
    TopServices: f.topServices.slice(0, 10),
    FlaggedResources: f.flagged.slice(0, MAX_PROMPT_RESOURCES).map((r) => ({
      Name: r.name,
      Type: r.type,
      ResourceGroup: r.resourceGroup,
      MonthToDateCost: r.monthToDateCost,
      Flags: r.flags.map((x) => x.code),
    })),
    FlaggedResourceCount: f.flagged.length,
    ...(f.advisor?.length
      ? {
          AzureAdvisorCostRecommendations: f.advisor.slice(0, MAX_PROMPT_RESOURCES).map((a) => ({
            Resource: a.resourceName,
            Type: a.resourceType,
            Problem: a.problem,
            Solution: a.solution,
            AnnualSavings: a.annualSavings,
            Currency: a.currency,
          })),
        }
      : {}),
  };
}

export function buildPrompt(f: AnalysisFacts): string {
  const lines = [
    'You are a FinOps assistant. Analyze this Azure subscription and give concrete, prioritized cost optimization recommendations in markdown.',
    `Subscription: ${f.subscriptionName} (${f.subscriptionId})`,
    `Total Monthly Cost (${f.monthSelection === 'previous' ? `previous month ${f.periodFrom}..${f.periodTo}` : 'Month to Date'}): ${money(f.totalMonthlyCost, f.currency)}`,
  ];
  if (f.budget) lines.push(`Budget status: ${f.budget.text}`);
  lines.push('', 'Data (JSON):', JSON.stringify(promptData(f), null, 2));
  return lines.join('\n');
}

const ACTIONS: Record<FlagCode, string> = {
  UnattachedDisk: 'Snapshot and delete unattached managed disks.',
  UnassociatedPublicIp: 'Release public IP addresses that are not associated with anything.',
  VmStoppedNotDeallocated: 'Deallocate VMs that are stopped but still billed for compute.',
  VmDeallocated: 'Delete long-deallocated VMs (and their disks) that are no longer needed.',
  EmptyAppServicePlan: 'Delete or consolidate App Service plans that host no apps.',
  OldSnapshot: 'Apply a retention policy to snapshots older than 30 days.',
  OrphanedNic: 'Delete network interfaces attached to nothing.',
  LoadBalancerWithoutBackends: 'Delete load balancers without backend pools.',
  RegistryAdminUserEnabled: 'Disable the admin user on container registries (security).',
  RedisNonSslPort: 'Disable the non-TLS port on Redis caches (security).',
  AppGatewayWithoutBackends: 'Delete application gateways with no backend targets.',
  NatGatewayWithoutSubnet: 'Delete NAT gateways attached to no subnet.',
  VnetGatewayWithoutConnections: 'Delete virtual network gateways with no connections.',
  DdosPlanWithoutVnet: 'Delete DDoS protection plans that protect no virtual network.',
  EmptyNetworkSecurityGroup: 'Delete network security groups associated with nothing.',
  RouteTableWithoutSubnet: 'Delete route tables associated with no subnet.',
  EmptyAvailabilitySet: 'Delete empty availability sets.',
  EmptyVirtualNetwork: 'Delete virtual networks without subnets.',
  SubnetsWithoutDevices: 'Remove subnets with no device, delegation or private endpoint.',
  PrivateDnsZoneWithoutVnetLink: 'Delete private DNS zones linked to no virtual network.',
  DisconnectedPrivateEndpoint: 'Delete private endpoints disconnected from their service.',
  EmptySqlElasticPool: 'Delete SQL elastic pools that hold no database.',
  SnapshotSourceDiskGone: 'Review snapshots whose source disk no longer exists.',
  PremiumSnapshot: 'Move snapshots from premium to standard storage.',
  BasicSkuPublicIp: 'Upgrade Basic SKU public IP addresses (retired 30 September 2025).',
  BasicSkuLoadBalancer: 'Upgrade Basic SKU load balancers (retired 30 September 2025).',
  StorageAccountV1: 'Upgrade general-purpose v1 storage accounts to v2.',
  VmUnmanagedDisks: 'Migrate VMs from unmanaged (VHD) disks to managed disks.',
  WindowsVmWithoutHybridBenefit: 'Apply Azure Hybrid Benefit to Windows VMs covered by your licences.',
  SqlVmWithoutHybridBenefit: 'Apply Azure Hybrid Benefit to SQL Server VMs covered by your licences.',
  ExpiredAppServiceCertificate: 'Renew or delete expired App Service certificates.',
  EmptyResourceGroup: 'Delete empty resource groups.',
  AdvisorCost: 'Act on Azure Advisor cost recommendations.',
};

/** Recommendations derived by rules from the flags and the budget status (no AI). */
export function ruleBasedRecommendation(f: AnalysisFacts): Recommendation {
  const byCode = new Map<FlagCode, { count: number; cost: number; examples: string[] }>();
  for (const r of f.flagged) {
    for (const flag of r.flags) {
      // Young age-gated findings are not waste yet; they are only watched.
      if (flag.status === 'watch') continue;
      const e = byCode.get(flag.code) ?? { count: 0, cost: 0, examples: [] };
      e.count++;
      e.cost += flag.estimatedMonthlySaving ?? flag.monthToDateCost ?? 0;
      if (e.examples.length < 5) e.examples.push(`${r.name} (${r.resourceGroup})`);
      byCode.set(flag.code, e);
    }
  }
  const ranked = [...byCode.entries()].sort((a, b) => b[1].cost - a[1].cost || b[1].count - a[1].count);
  const atStake = ranked.reduce((s, [, e]) => s + e.cost, 0);
  const out: string[] = [
    `# Cost recommendations for ${f.subscriptionName}`,
    '',
    '_Generated by rules from the resource flags and the budget status (no AI agent configured or available)._',
    '',
    `- Cost ${f.monthSelection === 'previous' ? `of ${f.periodFrom}..${f.periodTo}` : 'month to date'}: **${money(f.totalMonthlyCost, f.currency)}**`,
  ];
  if (f.budget) out.push(`- ${f.budget.text}`);
  out.push(
    `- Resources analyzed: ${f.resourceCount}; flagged: ${f.flagged.length}; estimated saving: ${money(atStake, f.currency)} a month`,
  );
  if (f.budget?.state === 'over') {
    out.push(
      '',
      '## Budget',
      'Spending is over the monthly budget: act on the flagged resources below first, then review the top resource groups.',
    );
  } else if (f.budget?.state === 'near') {
    out.push(
      '',
      '## Budget',
      'Spending is near the monthly budget (80 % or more): review the flagged resources before the month ends.',
    );
  }
  if (ranked.length) {
    out.push('', '## Actions');
    ranked.forEach(([code, e], i) => {
      out.push(
        `${i + 1}. **${ACTIONS[code]}** ${e.count} resource(s)${e.cost > 0 ? `, ${money(e.cost, f.currency)} a month` : ''}: ${e.examples.join(', ')}${e.count > e.examples.length ? ', …' : ''}`,
      );
    });
  } else {
    out.push('', 'No waste rule matched any resource.');
  }
  if (f.advisor?.length) {
    out.push('', '## Azure Advisor');
    for (const a of f.advisor.slice(0, 10)) {
      const saving = a.annualSavings
        ? ` (about ${money(a.annualSavings, a.currency ?? f.currency)} a year)`
        : '';
      out.push(`- ${a.resourceName}: ${a.problem} ${a.solution}${saving}`.trimEnd());
    }
  }
  if (f.topResourceGroups.length) {
    out.push('', '## Largest resource groups');
    for (const g of f.topResourceGroups.slice(0, 5)) out.push(`- ${g.name}: ${money(g.cost, f.currency)}`);
  }
  const text = out.join('\n');
  const summary = [
    `Cost ${money(f.totalMonthlyCost, f.currency)}`,
    f.budget ? f.budget.text : undefined,
    `${f.flagged.length} flagged resource(s), ${money(atStake, f.currency)} at stake.`,
  ]
    .filter(Boolean)
    .join(' ')
    .slice(0, 1000);
  return { text, summary };
}

/** A summary (≤ 1,000 characters) of an AI answer: its first three non-empty lines. */
export function summarize(markdown: string): string {
  return markdown
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 3)
    .join(' ')
    .slice(0, 1000);
}
