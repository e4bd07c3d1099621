/** The waste catalogue's compute cases: disks, virtual machines, SQL VMs, snapshots, availability sets. */
import { type CatalogueBuilder, compute, free, storage } from './catalogue-builder.js';

function vm(
  b: CatalogueBuilder,
  caseTag: string,
  name: string,
  opts: { power?: string; os?: 'Linux' | 'Windows'; licenseType?: string; vhd?: boolean } = {},
  daily = 3,
): string {
  return b.add(
    caseTag,
    'Microsoft.Compute',
    'virtualMachines',
    name,
    {
      hardwareProfile: { vmSize: 'Standard_D2s_v5' },
      ...(opts.licenseType ? { licenseType: opts.licenseType } : {}),
      storageProfile: {
        osDisk: {
          osType: opts.os ?? 'Linux',
          name: `${name}_OsDisk`,
          ...(opts.vhd
            ? { vhd: { uri: `https://stcatalogue.blob.core.windows.net/vhds/${name}.vhd` } }
            : { managedDisk: { id: b.idOf('Microsoft.Compute', 'disks', `${name}_OsDisk`) } }),
        },
        dataDisks: [],
      },
      timeCreated: b.daysAgo(200),
      extended: { instanceView: { powerState: { code: `PowerState/${opts.power ?? 'running'}` } } },
    },
    compute(daily),
  );
}

/** The running VM other cases attach to, then the disk cases; answers both ids later cases use. */
export function addDiskCases(b: CatalogueBuilder): { attachedVm: string; liveDisk: string } {
  const attachedVm = vm(b, 'VmStoppedNotDeallocated:negative:running', 'vm-cat-running');
  const disk = (caseTag: string, name: string, attached: boolean, tags: Record<string, string> = {}) =>
    b.add(
      caseTag,
      'Microsoft.Compute',
      'disks',
      name,
      {
        diskSizeGB: 128,
        diskState: attached ? 'Attached' : 'Unattached',
        timeCreated: b.daysAgo(120),
        // When the disk was last attached or detached (Resource Graph's casing).
        LastOwnershipUpdateTime: b.daysAgo(attached ? 100 : 45),
      },
      storage(1.5),
      { sku: { name: 'Premium_LRS', tier: 'Premium' }, ...(attached ? { managedBy: attachedVm } : {}), tags },
    );
  disk('UnattachedDisk:positive', 'disk-cat-unattached', false);
  const liveDisk = disk('UnattachedDisk:negative:attached', 'disk-cat-attached', true);
  disk('UnattachedDisk:negative:azure-backup', 'disk-cat-backup', false, {
    RSVaultBackup: '7f1e2d3c-backup-job',
  });
  return { attachedVm, liveDisk };
}

/** Answers the Windows VM without Hybrid Benefit, which the SQL VM case extends. */
export function addVmCases(b: CatalogueBuilder): string {
  vm(b, 'VmStoppedNotDeallocated:positive', 'vm-cat-stopped', { power: 'stopped' });
  vm(b, 'VmDeallocated:positive', 'vm-cat-deallocated', { power: 'deallocated' }, 0.2);
  vm(b, 'VmDeallocated:negative:running', 'vm-cat-running-2');
  vm(b, 'VmUnmanagedDisks:positive', 'vm-cat-vhd', { vhd: true });
  vm(b, 'VmUnmanagedDisks:negative:managed', 'vm-cat-managed');
  const windowsVm = vm(b, 'WindowsVmWithoutHybridBenefit:positive', 'vm-cat-windows', { os: 'Windows' }, 5);
  vm(b, 'WindowsVmWithoutHybridBenefit:negative:licensed', 'vm-cat-windows-ahb', {
    os: 'Windows',
    licenseType: 'Windows_Server',
  });
  return windowsVm;
}

/** The positive extends the Windows VM, so its saving follows that VM's cost. */
export function addSqlVmCases(b: CatalogueBuilder, windowsVm: string): void {
  const sqlVm = (caseTag: string, name: string, license: string) =>
    b.add(
      caseTag,
      'Microsoft.SqlVirtualMachine',
      'sqlVirtualMachines',
      name,
      { virtualMachineResourceId: windowsVm, sqlServerLicenseType: license, sqlImageSku: 'Enterprise' },
      { dailyBase: 0, serviceName: 'SQL Server on Azure Virtual Machines' },
    );
  sqlVm('SqlVmWithoutHybridBenefit:positive', 'sqlvm-cat-payg', 'PAYG');
  sqlVm('SqlVmWithoutHybridBenefit:negative:ahub', 'sqlvm-cat-ahub', 'AHUB');
}

export function addSnapshotCases(b: CatalogueBuilder, liveDisk: string): void {
  const snap = (caseTag: string, name: string, ageDays: number, source: string, skuName = 'Standard_LRS') =>
    b.add(
      caseTag,
      'Microsoft.Compute',
      'snapshots',
      name,
      {
        diskSizeGB: 128,
        timeCreated: b.daysAgo(ageDays),
        creationData: { createOption: 'Copy', sourceResourceId: source },
      },
      storage(0.8),
      { sku: { name: skuName, tier: skuName.startsWith('Premium') ? 'Premium' : 'Standard' } },
    );
  snap('OldSnapshot:positive', 'snap-cat-old', 60, liveDisk);
  snap('OldSnapshot:negative:recent', 'snap-cat-recent', 5, liveDisk);
  snap(
    'SnapshotSourceDiskGone:positive',
    'snap-cat-orphan',
    5,
    b.idOf('Microsoft.Compute', 'disks', 'disk-cat-deleted'),
  );
  snap('SnapshotSourceDiskGone:negative:source-exists', 'snap-cat-sourced', 5, liveDisk);
  snap('PremiumSnapshot:positive', 'snap-cat-premium', 5, liveDisk, 'Premium_LRS');
  snap('PremiumSnapshot:negative:standard', 'snap-cat-standard', 5, liveDisk);
}

export function addAvailabilitySetCases(b: CatalogueBuilder, attachedVm: string): void {
  const avset = (caseTag: string, name: string, vms: unknown[]) =>
    b.add(caseTag, 'Microsoft.Compute', 'availabilitySets', name, { virtualMachines: vms }, free, {
      sku: { name: 'Aligned' },
    });
  avset('EmptyAvailabilitySet:positive', 'avset-cat-empty', []);
  avset('EmptyAvailabilitySet:negative:has-vm', 'avset-cat-used', [{ id: attachedVm }]);
  avset('EmptyAvailabilitySet:negative:site-recovery', 'avset-cat-asr', []);
}
