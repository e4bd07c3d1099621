import type { AzureAccessOptions } from '../shared/finops/azure/index.js';

/**
 * What points the real Azure SDK clients at the Azure simulator (it accepts any credentials) for a
 * benchmark; the caller adds its cost query type and pacing.
 */
export function simulatorAccess(sim: {
  url: string;
  ca: string;
}): Pick<
  AzureAccessOptions,
  'tenantId' | 'clientId' | 'clientSecret' | 'armEndpoint' | 'authorityHost' | 'ca'
> {
  return {
    tenantId: '00000000-0000-0000-0000-0000000000aa',
    clientId: 'bench',
    clientSecret: 'bench',
    armEndpoint: sim.url,
    authorityHost: sim.url,
    ca: sim.ca,
  };
}
