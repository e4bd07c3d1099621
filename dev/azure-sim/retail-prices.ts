/**
 * The Azure Retail Prices API (GET /api/retail/prices, anonymous): deterministic prices per VM size
 * and region in the real wire shape (PascalCase envelope, camelCase items, 100 items a page linked
 * by NextPageLink with $skip). The OData subset the clients use: `field eq 'value'` and
 * `contains(field, 'text')` with an optional `eq true|false`, joined by `and`.
 */

/** Sizes served when a filter names none. */
export const CATALOGUE_SIZES = [
  'Standard_B2ms',
  'Standard_D2s_v5',
  'Standard_D4s_v5',
  'Standard_D8s_v5',
  'Standard_E4s_v5',
  'Standard_E8ds_v5',
  'Standard_F4s_v2',
  'Standard_NC6s_v3',
];
export const CATALOGUE_REGIONS = ['eastus', 'westeurope', 'northeurope', 'westus2'];

const LOCATIONS: Record<string, string> = {
  eastus: 'US East',
  westeurope: 'EU West',
  northeurope: 'EU North',
  westus2: 'US West 2',
};

/** Hourly Linux pay-as-you-go price per vCPU by family letter (roughly Azure's level). */
const PER_VCPU: Record<string, number> = { B: 0.0208, D: 0.048, E: 0.063, F: 0.0423, N: 0.51 };

export type RetailItem = Record<string, string | number | boolean | null>;

function hash(s: string): number {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * The currencies simulated, at a fixed rate per US dollar (Azure converts its USD list prices
 * monthly; a fixed rate keeps a test's expected price computable).
 */
export const SIM_EXCHANGE_RATES: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 150 };

/** Every item the simulated catalogue has for one size in one region (factor: a price change). */
export function itemsFor(armSkuName: string, region: string, factor = 1, currency = 'USD'): RetailItem[] {
  const fx = SIM_EXCHANGE_RATES[currency] ?? 1;
  const m = /^Standard_([A-Za-z]+?)(\d+)([a-z]*)(?:_(v\d+))?$/.exec(armSkuName);
  if (!m || !/^[a-z0-9]+$/.test(region)) return [];
  const [, family, cpus, suffix, version] = m as unknown as [
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  const vcpus = Number(cpus);
  const base = PER_VCPU[family.charAt(0).toUpperCase()] ?? 0.05;
  const regionFactor = 1 + (hash(region) % 30) / 100;
  const linux = round(vcpus * base * regionFactor * factor * fx);
  const windows = round(linux + vcpus * 0.046 * factor * fx);
  const short = `${family}${cpus}${suffix}${version ? ` ${version}` : ''}`;
  const series = `${family}${suffix.replace(/\d/g, '')}${version ? version : ''} Series`;
  const productId = `DZH${(hash(`${family}${suffix}${version}`) % 1e6).toString(36).toUpperCase().padStart(6, '0')}`;
  const location = LOCATIONS[region] ?? region;
  const item = (o: {
    product: string;
    sku: string;
    price: number;
    type: string;
    meterSuffix?: string;
    term?: string;
  }): RetailItem => {
    const meterId = hash(`${armSkuName}|${region}|${o.product}|${o.sku}|${o.type}|${o.term ?? ''}`)
      .toString(16)
      .padStart(8, '0');
    return {
      currencyCode: currency,
      tierMinimumUnits: 0,
      ...(o.term ? { reservationTerm: o.term } : {}),
      retailPrice: o.price,
      unitPrice: o.price,
      armRegionName: region,
      location,
      effectiveStartDate: '2024-05-01T00:00:00Z',
      meterId: `${meterId}-0000-4000-8000-${meterId}${meterId.slice(0, 4)}`,
      meterName: `${short}${o.meterSuffix ?? ''}`,
      productId,
      skuId: `${productId}/${(hash(o.sku + o.type) % 4096).toString(16).padStart(4, '0').toUpperCase()}`,
      productName: o.product,
      skuName: o.sku,
      serviceName: 'Virtual Machines',
      serviceId: 'DZH313Z7MMC8',
      serviceFamily: 'Compute',
      unitOfMeasure: '1 Hour',
      type: o.type,
      isPrimaryMeterRegion: true,
      armSkuName,
    };
  };
  const linuxProduct = `Virtual Machines ${series}`;
  const windowsProduct = `Virtual Machines ${series} Windows`;
  return [
    item({ product: linuxProduct, sku: short, price: linux, type: 'Consumption' }),
    item({
      product: linuxProduct,
      sku: `${short} Spot`,
      price: round(linux * 0.2),
      type: 'Consumption',
      meterSuffix: ' Spot',
    }),
    item({
      product: linuxProduct,
      sku: `${short} Low Priority`,
      price: round(linux * 0.2),
      type: 'Consumption',
      meterSuffix: ' Low Priority',
    }),
    item({ product: windowsProduct, sku: short, price: windows, type: 'Consumption' }),
    item({
      product: windowsProduct,
      sku: `${short} Spot`,
      price: round(windows * 0.3),
      type: 'Consumption',
      meterSuffix: ' Spot',
    }),
    item({ product: windowsProduct, sku: short, price: round(windows * 0.7), type: 'DevTestConsumption' }),
    item({
      product: linuxProduct,
      sku: short,
      price: round(linux * 8760 * 0.6),
      type: 'Reservation',
      term: '1 Year',
    }),
    item({
      product: linuxProduct,
      sku: short,
      price: round(linux * 26280 * 0.4),
      type: 'Reservation',
      term: '3 Years',
    }),
  ];
}

export class FilterError extends Error {}

type Clause = (item: RetailItem) => boolean;

/** Parses the OData subset; throws FilterError on anything else, as the service answers 400. */
export function parseFilter(filter: string): { clauses: Clause[]; skus: string[]; regions: string[] } {
  const clauses: Clause[] = [];
  const skus: string[] = [];
  const regions: string[] = [];
  const text = filter.trim();
  if (!text) return { clauses, skus, regions };
  for (const part of text.split(/\s+and\s+/i)) {
    const eq = /^(\w+)\s+eq\s+'((?:[^']|'')*)'$/i.exec(part.trim());
    if (eq) {
      const field = eq[1]!;
      const value = eq[2]!.replace(/''/g, "'");
      // Azure compares these case-insensitively.
      clauses.push((i) => String(i[field] ?? '').toLowerCase() === value.toLowerCase());
      if (field === 'armSkuName') skus.push(value);
      if (field === 'armRegionName') regions.push(value.toLowerCase());
      continue;
    }
    const contains = /^contains\((\w+),\s*'((?:[^']|'')*)'\)(?:\s+eq\s+(true|false))?$/i.exec(part.trim());
    if (contains) {
      const field = contains[1]!;
      const value = contains[2]!.replace(/''/g, "'");
      const want = (contains[3] ?? 'true').toLowerCase() === 'true';
      clauses.push((i) => String(i[field] ?? '').includes(value) === want);
      continue;
    }
    throw new FilterError(`Invalid OData filter clause: ${part}`);
  }
  return { clauses, skus, regions };
}

export interface RetailPricesAnswer {
  status: number;
  body: unknown;
}

/** One page of the answer to GET /api/retail/prices. */
export function answerRetailPrices(
  url: URL,
  baseUrl: string,
  opts: { pageSize: number; factor: number },
): RetailPricesAnswer {
  const currency = (url.searchParams.get('currencyCode') ?? "'USD'").replace(/'/g, '').toUpperCase();
  let parsed: ReturnType<typeof parseFilter>;
  try {
    parsed = parseFilter(url.searchParams.get('$filter') ?? '');
  } catch (err) {
    return { status: 400, body: { Error: { Code: 'InvalidFilter', Message: (err as Error).message } } };
  }
  if (SIM_EXCHANGE_RATES[currency] === undefined) {
    return {
      status: 400,
      body: { Error: { Code: 'InvalidCurrency', Message: `Currency ${currency} is not simulated.` } },
    };
  }
  const skus = parsed.skus.length ? parsed.skus : CATALOGUE_SIZES;
  const regions = parsed.regions.length ? parsed.regions : CATALOGUE_REGIONS;
  const all: RetailItem[] = [];
  for (const sku of skus)
    for (const region of regions) all.push(...itemsFor(sku, region, opts.factor, currency));
  const matching = all.filter((i) => parsed.clauses.every((c) => c(i)));
  const skip = Math.max(0, Number(url.searchParams.get('$skip') ?? 0) || 0);
  const page = matching.slice(skip, skip + opts.pageSize);
  let next: string | null = null;
  if (skip + opts.pageSize < matching.length) {
    const link = new URL('/api/retail/prices', baseUrl);
    for (const [k, v] of url.searchParams) if (k !== '$skip') link.searchParams.set(k, v);
    link.searchParams.set('$skip', String(skip + opts.pageSize));
    next = link.toString();
  }
  return {
    status: 200,
    body: {
      BillingCurrency: currency,
      CustomerEntityId: 'Default',
      CustomerEntityType: 'Retail',
      Items: page,
      NextPageLink: next,
      Count: page.length,
    },
  };
}
