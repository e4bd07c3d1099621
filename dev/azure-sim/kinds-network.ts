/** Generated network resources: public IPs, network interfaces and load balancers. */
import type { KindBuilder } from './generated-kind.js';

const pip: KindBuilder = ({ rng, waste, suffix, rgPath, base }) => {
  const r = base('Microsoft.Network', 'publicIPAddresses', `pip-${suffix}`);
  const sku = { name: 'Standard', tier: 'Regional' };
  const props = {
    ipAddress: `20.${rng.int(1, 250)}.${rng.int(1, 250)}.${rng.int(1, 250)}`,
    publicIPAllocationMethod: 'Static',
    publicIPAddressVersion: 'IPv4',
    ...(waste === 'unassociated-public-ip'
      ? {}
      : {
          ipConfiguration: {
            id: `${rgPath}/providers/Microsoft.Network/networkInterfaces/nic-${suffix}/ipConfigurations/ipconfig1`,
          },
        }),
  };
  return { r, props, sku, dailyBase: 0.12, serviceName: 'Virtual Network' };
};

const nic: KindBuilder = ({ rng, waste, suffix, rgPath, base }) => {
  const r = base('Microsoft.Network', 'networkInterfaces', `nic-${suffix}`);
  const props = {
    macAddress: rng.hex(12).toUpperCase(),
    ipConfigurations: [
      {
        name: 'ipconfig1',
        properties: { privateIPAddress: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(4, 250)}` },
      },
    ],
    ...(waste === 'orphaned-nic'
      ? {}
      : { virtualMachine: { id: `${rgPath}/providers/Microsoft.Compute/virtualMachines/vm-${suffix}` } }),
  };
  return { r, props, dailyBase: 0, serviceName: 'Virtual Network' };
};

const lb: KindBuilder = ({ waste, suffix, base }) => {
  const r = base('Microsoft.Network', 'loadBalancers', `lb-${suffix}`);
  const sku = { name: 'Standard', tier: 'Regional' };
  const props = {
    frontendIPConfigurations: [{ name: 'frontend', id: `${r.id}/frontendIPConfigurations/frontend` }],
    backendAddressPools:
      waste === 'lb-without-backends' ? [] : [{ name: 'backend', id: `${r.id}/backendAddressPools/backend` }],
  };
  return { r, props, sku, dailyBase: 0.6, serviceName: 'Load Balancer' };
};

export const NETWORK_KINDS = { pip, nic, lb } satisfies Record<string, KindBuilder>;
