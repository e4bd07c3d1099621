/**
 * The two export formats a cost import reads, told apart by their header: FOCUS 1.0 (Cost
 * Management's `FocusCost` export) and Azure's actual/amortized cost details (EA and MCA spellings).
 * Header names match case-insensitively.
 */
import { GUID_TEXT } from '../../config/fields.js';

export type ExportFormat = 'focus' | 'costDetails';
export type CostMetric = 'ActualCost' | 'AmortizedCost';

export interface ColumnMap {
  format: ExportFormat;
  date: number;
  cost: number;
  currency: number | undefined;
  resourceGroup: number | undefined;
  resourceId: number | undefined;
  service: number | undefined;
  subscription: number | undefined;
}

export class ImportError extends Error {
  constructor(
    readonly status: 400 | 413 | 415 | 422,
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

function finder(header: string[]) {
  const lower = header.map((h) =>
    h
      .trim()
      .replace(/^\uFEFF/, '')
      .toLowerCase(),
  );
  return (...names: string[]) => {
    for (const n of names) {
      const i = lower.indexOf(n.toLowerCase());
      if (i >= 0) return i;
    }
    return undefined;
  };
}

/**
 * FOCUS: ChargePeriodStart, BilledCost (actual) or EffectiveCost (amortized), BillingCurrency,
 * ServiceName, x_ResourceGroupName (or the group inside ResourceId), SubAccountId. Cost details:
 * Date/date, CostInBillingCurrency, BillingCurrency(Code), MeterCategory (the ServiceName dimension
 * of the Cost Management query), ResourceGroup/resourceGroupName, SubscriptionId.
 */
export function mapColumns(header: string[], metric: CostMetric): ColumnMap {
  const find = finder(header);
  const chargeStart = find('ChargePeriodStart');
  if (chargeStart !== undefined) {
    const cost =
      metric === 'AmortizedCost' ? find('EffectiveCost', 'BilledCost') : find('BilledCost', 'EffectiveCost');
    if (cost === undefined)
      throw new ImportError(422, 'The FOCUS export has no BilledCost or EffectiveCost column.', 1);
    return {
      format: 'focus',
      date: chargeStart,
      cost,
      currency: find('BillingCurrency'),
      resourceGroup: find('x_ResourceGroupName'),
      resourceId: find('ResourceId'),
      service: find('ServiceName'),
      subscription: find('SubAccountId'),
    };
  }
  const date = find('Date', 'UsageDate');
  const cost = find('CostInBillingCurrency', 'Cost', 'PreTaxCost');
  if (date === undefined || cost === undefined) {
    throw new ImportError(
      422,
      'The header is neither a FOCUS export (ChargePeriodStart, BilledCost, ...) nor an Azure cost details export (Date, CostInBillingCurrency, ...).',
      1,
    );
  }
  return {
    format: 'costDetails',
    date,
    cost,
    currency: find('BillingCurrencyCode', 'BillingCurrency', 'Currency'),
    resourceGroup: find('ResourceGroup', 'ResourceGroupName'),
    resourceId: find('ResourceId', 'InstanceId'),
    service: find('MeterCategory', 'ServiceName'),
    subscription: find('SubscriptionId', 'SubscriptionGuid'),
  };
}

/** yyyy-MM-dd of a cost row's date: ISO dates and date-times (UTC day) or the EA's MM/dd/yyyy. */
export function rowDay(raw: string): string | undefined {
  const v = raw.trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/i.exec(v);
  let y: number;
  let mo: number;
  let d: number;
  if (m) {
    if (v.length > 10 && /[+-]\d{2}:?\d{2}$/.test(v)) {
      const t = new Date(v);
      return Number.isNaN(t.getTime()) ? undefined : t.toISOString().slice(0, 10);
    }
    [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  } else {
    m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v);
    if (!m) return undefined;
    [mo, d, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  }
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return undefined;
  return t.toISOString().slice(0, 10);
}

const RG_IN_ID = /\/resourcegroups\/([^/]+)/i;
const SUB_IN_ID = new RegExp(`(${GUID_TEXT})`, 'i');

export function groupOf(group: string | undefined, resourceId: string | undefined): string {
  const g = group?.trim();
  if (g) return g;
  return RG_IN_ID.exec(resourceId ?? '')?.[1] ?? '';
}

export function subscriptionOf(raw: string | undefined): string | undefined {
  return SUB_IN_ID.exec(raw ?? '')?.[1]?.toLowerCase();
}
