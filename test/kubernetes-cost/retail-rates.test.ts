import { describe, expect, it } from 'vitest';
import { itemsFor } from '../../dev/azure-sim/retail-prices.js';
import { retailRates } from '../../shared/finops/kubernetes/retail-rates.js';
import { PricesUnavailable } from '../../shared/metrics/prices/price-lookup.js';
import type { PriceItem, PriceRequest, PriceResponse } from '../../shared/metrics/prices/retail-api.js';

const answer = (items: unknown[]): PriceResponse => ({
  BillingCurrency: 'EUR',
  CustomerEntityId: 'Default',
  CustomerEntityType: 'Retail',
  Items: items as PriceItem[],
  NextPageLink: null,
  Count: items.length,
});

describe('retail rates of estimated days', () => {
  it("asks for the bill's currency and takes the Linux pay-as-you-go price", async () => {
    const asked: PriceRequest[] = [];
    const rates = retailRates({
      get: async (r) => {
        asked.push(r);
        return answer(itemsFor('Standard_D4s_v5', 'westeurope', 1, 'EUR'));
      },
    });
    const rate = await rates('Standard_D4s_v5', 'westeurope', 'eur');
    const linux = itemsFor('Standard_D4s_v5', 'westeurope', 1, 'EUR')[0]!;
    expect(rate).toEqual({ hourly: linux.retailPrice, source: 'api' });
    expect(asked[0]).toMatchObject({
      currencyCode: 'EUR',
      armSkuName: 'Standard_D4s_v5',
      armRegionName: 'westeurope',
    });
  });

  it('falls back to the built-in USD table when the API cannot be reached', async () => {
    const rates = retailRates({
      get: async () => {
        throw new PricesUnavailable('unreachable');
      },
    });
    expect(await rates('Standard_D4s_v5', 'westeurope', 'EUR')).toEqual({
      hourly: 0.192,
      source: 'built-in',
    });
    // A size the table does not list: per vCPU.
    expect(await rates('Standard_D32s_v5', 'westeurope', 'EUR')).toEqual({
      hourly: 32 * 0.048,
      source: 'built-in',
    });
  });

  it('does not take a price in another currency than the one asked', async () => {
    const rates = retailRates({
      get: async () => answer(itemsFor('Standard_D4s_v5', 'westeurope', 1, 'USD')),
    });
    expect((await rates('Standard_D4s_v5', 'westeurope', 'EUR')).source).toBe('built-in');
  });
});
