/**
 * Synthetic cost exports in the column sets Azure writes: FOCUS 1.0 (the FocusCost export) and the
 * cost details CSV (MCA spelling). Deterministic: weekday seasonality and seeded noise.
 */

export interface ExportLine {
  day: string;
  subscriptionId: string;
  resourceGroup: string;
  service: string;
  resource: string;
  cost: number;
}

export interface SeriesSpec {
  resourceGroup: string;
  service: string;
  resource: string;
  level: number;
  /** First and last day with cost (inclusive), default: the whole range. */
  from?: string;
  to?: string;
  /** Multiply the cost of these days. */
  factors?: Record<string, number>;
}

const DAY = 86_400_000;
export const dayAfter = (d: string, n: number) =>
  new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

export function exportLines(
  subscriptionId: string,
  first: string,
  days: number,
  specs: SeriesSpec[],
  seed = 3,
): ExportLine[] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const out: ExportLine[] = [];
  for (let i = 0; i < days; i++) {
    const day = dayAfter(first, i);
    const wd = new Date(`${day}T00:00:00Z`).getUTCDay();
    const season = wd === 0 || wd === 6 ? 0.6 : 1;
    for (const spec of specs) {
      const noise = 1 + 0.04 * (rand() * 2 - 1);
      if ((spec.from && day < spec.from) || (spec.to && day > spec.to)) continue;
      const cost = Math.round(spec.level * season * noise * (spec.factors?.[day] ?? 1) * 10000) / 10000;
      out.push({
        day,
        subscriptionId,
        resourceGroup: spec.resourceGroup,
        service: spec.service,
        resource: spec.resource,
        cost,
      });
    }
  }
  return out;
}

const FOCUS_HEADER = [
  'AvailabilityZone',
  'BilledCost',
  'BillingAccountId',
  'BillingAccountName',
  'BillingAccountType',
  'BillingCurrency',
  'BillingPeriodEnd',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargeClass',
  'ChargeDescription',
  'ChargeFrequency',
  'ChargePeriodEnd',
  'ChargePeriodStart',
  'CommitmentDiscountCategory',
  'ConsumedQuantity',
  'ConsumedUnit',
  'ContractedCost',
  'EffectiveCost',
  'InvoiceIssuerName',
  'ListCost',
  'PricingCategory',
  'ProviderName',
  'RegionId',
  'RegionName',
  'ResourceId',
  'ResourceName',
  'ResourceType',
  'ServiceCategory',
  'ServiceName',
  'SkuId',
  'SubAccountId',
  'SubAccountName',
  'SubAccountType',
  'Tags',
  'x_ResourceGroupName',
];

const q = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export function focusCsv(lines: ExportLine[]): string {
  const rows = [FOCUS_HEADER.join(',')];
  for (const l of lines) {
    const id = `/subscriptions/${l.subscriptionId}/resourceGroups/${l.resourceGroup}/providers/Microsoft.Compute/virtualMachines/${l.resource}`;
    const rec: Record<string, string> = {
      BilledCost: String(l.cost),
      EffectiveCost: String(l.cost),
      ListCost: String(l.cost),
      ContractedCost: String(l.cost),
      BillingAccountId: '/providers/Microsoft.Billing/billingAccounts/1234',
      BillingAccountName: 'Contoso',
      BillingAccountType: 'Billing Account',
      BillingCurrency: 'EUR',
      BillingPeriodStart: `${l.day.slice(0, 7)}-01T00:00:00Z`,
      BillingPeriodEnd: `${dayAfter(`${l.day.slice(0, 7)}-28`, 4).slice(0, 7)}-01T00:00:00Z`,
      ChargeCategory: 'Usage',
      ChargeDescription: `${l.service}, daily`,
      ChargeFrequency: 'Usage-Based',
      ChargePeriodStart: `${l.day}T00:00:00Z`,
      ChargePeriodEnd: `${dayAfter(l.day, 1)}T00:00:00Z`,
      ConsumedQuantity: '24',
      ConsumedUnit: 'Hours',
      InvoiceIssuerName: 'Microsoft',
      PricingCategory: 'Standard',
      ProviderName: 'Microsoft',
      RegionId: 'westeurope',
      RegionName: 'West Europe',
      ResourceId: id,
      ResourceName: l.resource,
      ResourceType: 'Virtual machine',
      ServiceCategory: 'Compute',
      ServiceName: l.service,
      SkuId: 'DZH318Z0BQ4L',
      SubAccountId: `/subscriptions/${l.subscriptionId}`,
      SubAccountName: 'Team subscription',
      SubAccountType: 'Subscription',
      Tags: JSON.stringify({ env: 'prod', owner: 'team, a' }),
      x_ResourceGroupName: l.resourceGroup,
    };
    rows.push(FOCUS_HEADER.map((h) => q(rec[h] ?? '')).join(','));
  }
  return `${rows.join('\n')}\n`;
}

/** The cost details CSV as an MCA actual-cost export writes it (a subset of its columns, same names). */
export function costDetailsCsv(lines: ExportLine[]): string {
  const header = [
    'invoiceId',
    'billingAccountName',
    'date',
    'meterCategory',
    'costInBillingCurrency',
    'billingCurrency',
    'subscriptionId',
    'resourceGroupName',
    'ResourceId',
    'tags',
  ];
  const rows = [header.join(',')];
  for (const l of lines) {
    const [y, m, d] = l.day.split('-');
    rows.push(
      [
        '',
        'Contoso',
        `${m}/${d}/${y}`,
        l.service,
        String(l.cost),
        'EUR',
        l.subscriptionId,
        l.resourceGroup.toLowerCase(),
        `/subscriptions/${l.subscriptionId}/resourcegroups/${l.resourceGroup.toLowerCase()}/providers/x/y/${l.resource}`,
        q('"env": "prod"'),
      ].join(','),
    );
  }
  return `${rows.join('\n')}\n`;
}
