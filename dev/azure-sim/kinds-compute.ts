/** Generated compute and disk resources: virtual machines, managed disks and snapshots. */

import { type KindBuilder, round } from './generated-kind.js';
import { guid } from './prng.js';

const vm: KindBuilder = ({ rng, waste, suffix, rgPath, daysAgo, base }) => {
  const r = base('Microsoft.Compute', 'virtualMachines', `vm-${suffix}`);
  const code =
    waste === 'vm-stopped'
      ? 'PowerState/stopped'
      : waste === 'vm-deallocated'
        ? 'PowerState/deallocated'
        : 'PowerState/running';
  const vmSize = rng.pick(['Standard_B2s', 'Standard_D2s_v5', 'Standard_D4s_v5', 'Standard_E8s_v5']);
  const vmId = guid(rng);
  const os = rng.chance(0.7) ? 'Linux' : 'Windows';
  const props = {
    vmId,
    hardwareProfile: { vmSize },
    // Generated Windows VMs use Hybrid Benefit: only the waste catalogue shows one without it.
    ...(os === 'Windows' ? { licenseType: 'Windows_Server' } : {}),
    storageProfile: {
      osDisk: {
        osType: os,
        name: `vm-${suffix}_OsDisk`,
        createOption: 'FromImage',
        managedDisk: { id: `${rgPath}/providers/Microsoft.Compute/disks/vm-${suffix}_OsDisk` },
      },
    },
    osProfile: { computerName: `vm-${suffix}` },
    networkProfile: {
      networkInterfaces: [{ id: `${rgPath}/providers/Microsoft.Network/networkInterfaces/vm-${suffix}-nic` }],
    },
    timeCreated: daysAgo(rng.int(40, 900)),
    extended: {
      instanceView: {
        powerState: { code, level: 'Info', displayStatus: code.replace('PowerState/', 'VM ') },
      },
    },
  };
  const dailyBase = waste === 'vm-deallocated' ? 0 : round(rng.int(20, 400) / 10);
  return { r, props, dailyBase, serviceName: 'Virtual Machines' };
};

const disk: KindBuilder = ({ rng, waste, suffix, rgPath, daysAgo, base }) => {
  const r = base('Microsoft.Compute', 'disks', `disk-${suffix}`);
  const attached = waste !== 'unattached-disk';
  const managedBy = attached ? `${rgPath}/providers/Microsoft.Compute/virtualMachines/vm-${suffix}` : '';
  const size = rng.pick([32, 64, 128, 256, 512, 1024]);
  const sku = rng.chance(0.5)
    ? { name: 'Premium_LRS', tier: 'Premium' }
    : { name: 'StandardSSD_LRS', tier: 'Standard' };
  const props = {
    diskSizeGB: size,
    diskState: attached ? 'Attached' : 'Unattached',
    timeCreated: daysAgo(rng.int(10, 700)),
    creationData: { createOption: 'Empty' },
  };
  return { r, props, sku, managedBy, dailyBase: round(size * 0.004 + rng.next()), serviceName: 'Storage' };
};

const snapshot: KindBuilder = ({ rng, waste, suffix, daysAgo, base }) => {
  const r = base('Microsoft.Compute', 'snapshots', `snap-${suffix}`);
  const sku = { name: 'Standard_LRS', tier: 'Standard' };
  const age = waste === 'old-snapshot' ? rng.int(31, 400) : rng.int(1, 25);
  const props = {
    diskSizeGB: rng.pick([32, 128, 256]),
    timeCreated: daysAgo(age),
    incremental: false,
  };
  return { r, props, sku, dailyBase: round(0.05 + rng.next() * 1.5), serviceName: 'Storage' };
};

export const COMPUTE_KINDS = { vm, disk, snapshot } satisfies Record<string, KindBuilder>;
