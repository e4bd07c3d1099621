/**
 * Retail (pay-as-you-go, Linux) prices of node sizes for the days whose bill has not closed, in the
 * bill's currency, from the Azure Retail Prices API through the metrics service's price lookup (its
 * shared table and in-process memo are the cache, so an allocation asks Azure at most once per size,
 * region and currency a day). When the API cannot be reached and nothing is cached, the built-in USD
 * table (prices.ts) is the fallback, whatever the bill's currency.
 */
import { type PriceLookup, PricesUnavailable } from '../../metrics/prices/price-lookup.js';
import { nodePrice, priceRequestSchema } from '../../metrics/prices/retail-api.js';
import { retailHourlyRate } from './prices.js';

export interface RetailRate {
  /** Price of one instance-hour. */
  hourly: number;
  /** `api`: the Retail Prices API in `currency`; `built-in`: the USD table, the API being unreachable. */
  source: 'api' | 'built-in';
}

export type RetailRates = (vmSize: string | null, region: string, currency: string) => Promise<RetailRate>;

/** The built-in table only (no API: lookups turned off, or a source with no lookup). */
export const BUILT_IN_RATES: RetailRates = async (vmSize) => ({
  hourly: retailHourlyRate(vmSize),
  source: 'built-in',
});

export function retailRates(lookup: Pick<PriceLookup, 'get'> | undefined): RetailRates {
  if (!lookup) return BUILT_IN_RATES;
  return async (vmSize, region, currency) => {
    const request = priceRequestSchema.safeParse({
      currencyCode: currency,
      serviceName: 'Virtual Machines',
      armSkuName: vmSize ?? undefined,
      armRegionName: region,
      type: 'Consumption',
      operatingSystem: 'linux',
    });
    // A node without a known size, or a name the API would not take, has no API price.
    if (!vmSize || !request.success) return BUILT_IN_RATES(vmSize, region, currency);
    try {
      const answer = await lookup.get(request.data);
      const price = nodePrice(
        answer.Items.filter((i) => i.currencyCode.toUpperCase() === request.data.currencyCode),
      );
      if (price) return { hourly: price.retailPrice, source: 'api' };
    } catch (err) {
      if (!(err instanceof PricesUnavailable)) throw err;
    }
    return BUILT_IN_RATES(vmSize, region, currency);
  };
}
