/**
 * The Azure Retail Prices API (GET {base}/api/retail/prices, anonymous): the request fields are
 * whitelisted and validated, so the OData filter is built here from known fields only, never
 * passed through from a caller. Pages are followed through NextPageLink up to MAX_PAGES.
 */
import { Agent, fetch } from 'undici';
import { z } from 'zod';

/** A value inside an OData string literal: letters, digits and the punctuation SKU and region names use. */
const filterValue = (max = 100) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(/^[A-Za-z0-9 _.\-/()+]+$/, 'may hold only letters, digits, spaces and _ . - / ( ) +');

/** The request body of POST azure-prices: the original's fields, except its raw `filter`. */
export const priceRequestSchema = z
  .object({
    currencyCode: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code')
      .transform((s) => s.toUpperCase())
      .default('USD'),
    serviceName: filterValue().optional(),
    armSkuName: filterValue().optional(),
    skuName: filterValue().optional(),
    productName: filterValue(200).optional(),
    armRegionName: filterValue(60)
      .transform((s) => s.toLowerCase())
      .optional(),
    type: filterValue(40).optional(),
    operatingSystem: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(['linux', 'windows'], { error: 'must be Linux or Windows' }))
      .optional(),
    filter: z
      .unknown()
      .optional()
      .refine((v) => v === undefined || v === null || v === '', {
        message: 'is not accepted: send the fields (serviceName, armSkuName, armRegionName, …) instead',
      }),
  })
  .refine((r) => r.armSkuName || r.skuName || r.productName || r.serviceName, {
    message: 'Name at least one of serviceName, armSkuName, skuName or productName.',
    path: ['armSkuName'],
  });

export type PriceRequest = z.infer<typeof priceRequestSchema>;

/** An item as Azure answers it (the fields the original kept, in its order). */
export interface PriceItem {
  currencyCode: string;
  tierMinimumUnits: number;
  retailPrice: number;
  unitPrice: number;
  armRegionName: string;
  location: string;
  effectiveStartDate: string;
  meterId: string;
  meterName: string;
  productId: string;
  skuId: string;
  productName: string;
  skuName: string;
  serviceName: string;
  serviceId: string;
  serviceFamily: string;
  unitOfMeasure: string;
  type: string;
  isPrimaryMeterRegion: boolean;
  armSkuName: string;
  effectiveEndDate: string | null;
}

export interface PriceResponse {
  BillingCurrency: string;
  CustomerEntityId: string;
  CustomerEntityType: string;
  Items: PriceItem[];
  NextPageLink: string | null;
  Count: number;
}

/** Pages followed per lookup (Azure answers 100 items a page; a VM size in a region has a few dozen). */
export const MAX_PAGES = 10;
export const REQUEST_TIMEOUT_MS = 15_000;

const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;

/** The OData filter of a validated request (the original's rule: Spot and Low Priority excluded). */
export function buildFilter(r: PriceRequest): string {
  const parts: string[] = [];
  if (r.serviceName) parts.push(`serviceName eq ${quote(r.serviceName)}`);
  if (r.skuName) parts.push(`skuName eq ${quote(r.skuName)}`);
  if (r.productName) parts.push(`productName eq ${quote(r.productName)}`);
  if (r.armSkuName) parts.push(`armSkuName eq ${quote(r.armSkuName)}`);
  if (r.armRegionName) parts.push(`armRegionName eq ${quote(r.armRegionName)}`);
  if (r.type) parts.push(`type eq ${quote(r.type)}`);
  if (r.operatingSystem === 'windows') parts.push(`contains(productName, 'Windows')`);
  if (r.operatingSystem === 'linux') parts.push(`contains(productName, 'Windows') eq false`);
  parts.push(`contains(skuName, 'Spot') eq false`, `contains(skuName, 'Low Priority') eq false`);
  return parts.join(' and ');
}

/** The cache key of a request: its normalised fields, in a fixed order. */
export function requestKey(r: PriceRequest): string {
  return JSON.stringify([
    r.currencyCode,
    r.serviceName ?? null,
    r.armSkuName ?? null,
    r.skuName ?? null,
    r.productName ?? null,
    r.armRegionName ?? null,
    r.type ?? null,
    r.operatingSystem ?? null,
  ]);
}

const itemSchema = z.looseObject({
  currencyCode: z.string(),
  retailPrice: z.number(),
  unitPrice: z.number(),
  armRegionName: z.string(),
  meterName: z.string(),
  productName: z.string(),
  skuName: z.string(),
  serviceName: z.string(),
  effectiveStartDate: z.string(),
});
const pageSchema = z.looseObject({
  BillingCurrency: z.string().optional(),
  CustomerEntityId: z.string().optional(),
  CustomerEntityType: z.string().optional(),
  Items: z.array(itemSchema),
  NextPageLink: z.string().nullish(),
});

export class PriceApiError extends Error {}

function pick(i: Record<string, unknown>): PriceItem {
  const s = (k: string) => (typeof i[k] === 'string' ? (i[k] as string) : '');
  const n = (k: string) => (typeof i[k] === 'number' ? (i[k] as number) : 0);
  return {
    currencyCode: s('currencyCode'),
    tierMinimumUnits: n('tierMinimumUnits'),
    retailPrice: n('retailPrice'),
    unitPrice: n('unitPrice'),
    armRegionName: s('armRegionName'),
    location: s('location'),
    effectiveStartDate: s('effectiveStartDate'),
    meterId: s('meterId'),
    meterName: s('meterName'),
    productId: s('productId'),
    skuId: s('skuId'),
    productName: s('productName'),
    skuName: s('skuName'),
    serviceName: s('serviceName'),
    serviceId: s('serviceId'),
    serviceFamily: s('serviceFamily'),
    unitOfMeasure: s('unitOfMeasure'),
    type: s('type'),
    isPrimaryMeterRegion: i.isPrimaryMeterRegion === true,
    armSkuName: s('armSkuName'),
    effectiveEndDate: typeof i.effectiveEndDate === 'string' ? i.effectiveEndDate : null,
  };
}

export interface RetailPricesClient {
  lookup(r: PriceRequest): Promise<PriceResponse>;
  close(): Promise<void>;
}

/**
 * A client of the API at `baseUrl` (https://prices.azure.com, or the local simulator). `ca`: an
 * extra certificate to trust (the simulator's). NextPageLink is followed only on the same origin.
 */
export function retailPricesClient(baseUrl: string, ca?: string): RetailPricesClient {
  const base = new URL(baseUrl);
  const dispatcher = new Agent({ connect: ca ? { ca } : {}, connections: 4 });
  return {
    async lookup(r) {
      const first = new URL('/api/retail/prices', base);
      first.searchParams.set('currencyCode', `'${r.currencyCode}'`);
      first.searchParams.set('$filter', buildFilter(r));
      const items: PriceItem[] = [];
      let head: z.infer<typeof pageSchema> | undefined;
      let next: string | null = first.toString();
      let pages = 0;
      while (next && pages < MAX_PAGES) {
        const url = new URL(next);
        // Azure's link names prices.azure.com:443; the simulator's, itself. Anything else is not followed.
        if (url.hostname !== base.hostname) throw new PriceApiError(`NextPageLink leaves ${base.host}`);
        if (url.origin !== base.origin) {
          url.protocol = base.protocol;
          url.port = base.port;
        }
        const res = await fetch(url, {
          dispatcher,
          headers: { accept: 'application/json', 'user-agent': 'finwatch' },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await res.text();
        if (!res.ok) throw new PriceApiError(`the Azure Retail Prices API answered ${res.status}`);
        let parsed: z.infer<typeof pageSchema>;
        try {
          parsed = pageSchema.parse(JSON.parse(text));
        } catch {
          throw new PriceApiError('the Azure Retail Prices API answered an unexpected body');
        }
        head ??= parsed;
        for (const i of parsed.Items) items.push(pick(i as Record<string, unknown>));
        next = parsed.NextPageLink ?? null;
        pages++;
      }
      return {
        BillingCurrency: head?.BillingCurrency ?? r.currencyCode,
        CustomerEntityId: head?.CustomerEntityId ?? 'Default',
        CustomerEntityType: head?.CustomerEntityType ?? 'Retail',
        Items: items,
        // Only when pages were left unread: the caller can tell the list is cut.
        NextPageLink: next,
        Count: items.length,
      };
    },
    close: () => dispatcher.close(),
  };
}

/**
 * The hourly pay-as-you-go price of a node size among a lookup's items: Consumption, per hour,
 * not Spot or Low Priority, the primary meter region first, the latest effective date first.
 */
export function nodePrice(items: PriceItem[]): PriceItem | undefined {
  const usable = items.filter(
    (i) =>
      i.type === 'Consumption' &&
      /hour/i.test(i.unitOfMeasure) &&
      !/spot|low priority/i.test(`${i.skuName} ${i.meterName}`) &&
      i.retailPrice > 0,
  );
  usable.sort(
    (a, b) =>
      Number(b.isPrimaryMeterRegion) - Number(a.isPrimaryMeterRegion) ||
      b.effectiveStartDate.localeCompare(a.effectiveStartDate) ||
      a.retailPrice - b.retailPrice,
  );
  return usable[0];
}
