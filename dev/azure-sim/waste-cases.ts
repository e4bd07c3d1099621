/** The waste cases the generated resources carry (the catalogue covers the rules one by one). */

export type WasteCase =
  | 'unattached-disk'
  | 'unassociated-public-ip'
  | 'vm-stopped'
  | 'vm-deallocated'
  | 'empty-app-service-plan'
  | 'old-snapshot'
  | 'orphaned-nic'
  | 'lb-without-backends'
  | 'acr-admin-user'
  | 'redis-non-ssl-port';

export const WASTE_CASES: readonly WasteCase[] = [
  'unattached-disk',
  'unassociated-public-ip',
  'vm-stopped',
  'vm-deallocated',
  'empty-app-service-plan',
  'old-snapshot',
  'orphaned-nic',
  'lb-without-backends',
  'acr-admin-user',
  'redis-non-ssl-port',
];
