/** The waste catalogue's network cases: IPs, NICs, load balancers, gateways, VNets, DNS, endpoints. */
import { type CatalogueBuilder, free, network } from './catalogue-builder.js';

/** The IP configuration of the attached NIC: what an associated IP or a used subnet points at. */
function nicIpConfig(b: CatalogueBuilder): { id: string } {
  return {
    id: `${b.idOf('Microsoft.Network', 'networkInterfaces', 'nic-cat-attached')}/ipConfigurations/ipconfig1`,
  };
}

function usedSubnets(b: CatalogueBuilder): Array<{ id: string }> {
  return [{ id: `${b.idOf('Microsoft.Network', 'virtualNetworks', 'vnet-cat-used')}/subnets/app` }];
}

export function addPublicIpCases(b: CatalogueBuilder): void {
  const pip = (caseTag: string, name: string, props: Record<string, unknown>, skuName = 'Standard') =>
    b.add(
      caseTag,
      'Microsoft.Network',
      'publicIPAddresses',
      name,
      { publicIPAllocationMethod: 'Static', ...props },
      network(0.12),
      { sku: { name: skuName, tier: 'Regional' } },
    );
  const ipConfiguration = nicIpConfig(b);
  pip('UnassociatedPublicIp:positive', 'pip-cat-unassociated', {});
  pip('UnassociatedPublicIp:negative:from-prefix', 'pip-cat-prefix', {
    publicIPPrefix: { id: b.idOf('Microsoft.Network', 'publicIPPrefixes', 'ippre-cat') },
  });
  pip('BasicSkuPublicIp:positive', 'pip-cat-basic', { ipConfiguration }, 'Basic');
  pip('BasicSkuPublicIp:negative:standard', 'pip-cat-standard', { ipConfiguration });
}

export function addNicCases(b: CatalogueBuilder, attachedVm: string): void {
  const nic = (caseTag: string, name: string, props: Record<string, unknown>) =>
    b.add(caseTag, 'Microsoft.Network', 'networkInterfaces', name, props, free);
  nic('OrphanedNic:positive', 'nic-cat-orphan', { ipConfigurations: [] });
  nic('OrphanedNic:negative:private-endpoint', 'nic-cat-pe', {
    privateEndpoint: { id: b.idOf('Microsoft.Network', 'privateEndpoints', 'pe-cat-approved') },
  });
  nic('OrphanedNic:negative:attached', 'nic-cat-attached', { virtualMachine: { id: attachedVm } });
}

export function addLoadBalancerCases(b: CatalogueBuilder): void {
  const lb = (caseTag: string, name: string, skuName: string, props: Record<string, unknown>) =>
    b.add(
      caseTag,
      'Microsoft.Network',
      'loadBalancers',
      name,
      props,
      { dailyBase: 0.6, serviceName: 'Load Balancer' },
      { sku: { name: skuName, tier: 'Regional' } },
    );
  const pools = { backendAddressPools: [{ name: 'backend', id: 'x' }] };
  lb('LoadBalancerWithoutBackends:positive', 'lb-cat-empty', 'Standard', { backendAddressPools: [] });
  lb('LoadBalancerWithoutBackends:negative:inbound-nat', 'lb-cat-nat', 'Standard', {
    backendAddressPools: [],
    inboundNatRules: [{ name: 'rdp', properties: { frontendPort: 50001 } }],
  });
  lb('BasicSkuLoadBalancer:positive', 'lb-cat-basic', 'Basic', pools);
  lb('BasicSkuLoadBalancer:negative:standard', 'lb-cat-standard', 'Standard', pools);
}

/** Application, NAT and VPN gateways (with the connection that makes one used) and DDoS plans. */
export function addGatewayCases(b: CatalogueBuilder): void {
  const agw = (caseTag: string, name: string, backendAddresses: unknown[]) =>
    b.add(
      caseTag,
      'Microsoft.Network',
      'applicationGateways',
      name,
      { backendAddressPools: [{ name: 'pool', properties: { backendAddresses } }] },
      { dailyBase: 6, serviceName: 'Application Gateway' },
    );
  agw('AppGatewayWithoutBackends:positive', 'agw-cat-empty', []);
  agw('AppGatewayWithoutBackends:negative:has-targets', 'agw-cat-used', [{ ipAddress: '10.0.1.4' }]);
  b.add(
    'NatGatewayWithoutSubnet:positive',
    'Microsoft.Network',
    'natGateways',
    'ng-cat-idle',
    {},
    network(1.1),
  );
  b.add(
    'NatGatewayWithoutSubnet:negative:attached',
    'Microsoft.Network',
    'natGateways',
    'ng-cat-used',
    { subnets: usedSubnets(b) },
    network(1.1),
  );
  const gw = (caseTag: string, name: string, props: Record<string, unknown> = {}) =>
    b.add(
      caseTag,
      'Microsoft.Network',
      'virtualNetworkGateways',
      name,
      { gatewayType: 'Vpn', ...props },
      { dailyBase: 4.5, serviceName: 'VPN Gateway' },
    );
  gw('VnetGatewayWithoutConnections:positive', 'vgw-cat-idle');
  const connectedGw = gw('VnetGatewayWithoutConnections:negative:connected', 'vgw-cat-connected');
  gw('VnetGatewayWithoutConnections:negative:point-to-site', 'vgw-cat-p2s', {
    vpnClientConfiguration: { vpnClientAddressPool: { addressPrefixes: ['172.16.0.0/24'] } },
  });
  b.add(
    'connection',
    'Microsoft.Network',
    'connections',
    'cn-cat-site',
    { connectionType: 'IPsec', virtualNetworkGateway1: { id: connectedGw } },
    free,
  );
  const ddos = (caseTag: string, name: string, props: Record<string, unknown>) =>
    b.add(caseTag, 'Microsoft.Network', 'ddosProtectionPlans', name, props, {
      dailyBase: 95,
      serviceName: 'DDoS Protection',
    });
  ddos('DdosPlanWithoutVnet:positive', 'ddos-cat-idle', {});
  ddos('DdosPlanWithoutVnet:negative:protects', 'ddos-cat-used', {
    virtualNetworks: [{ id: b.idOf('Microsoft.Network', 'virtualNetworks', 'vnet-cat-used') }],
  });
}

export function addSecurityGroupAndRouteCases(b: CatalogueBuilder): void {
  const nsg = (caseTag: string, name: string, props: Record<string, unknown>) =>
    b.add(caseTag, 'Microsoft.Network', 'networkSecurityGroups', name, props, free);
  nsg('EmptyNetworkSecurityGroup:positive', 'nsg-cat-idle', { securityRules: [] });
  nsg('EmptyNetworkSecurityGroup:negative:on-subnet', 'nsg-cat-used', { subnets: usedSubnets(b) });
  const rt = (caseTag: string, name: string, props: Record<string, unknown>) =>
    b.add(caseTag, 'Microsoft.Network', 'routeTables', name, props, free);
  rt('RouteTableWithoutSubnet:positive', 'rt-cat-idle', { routes: [] });
  rt('RouteTableWithoutSubnet:negative:on-subnet', 'rt-cat-used', { subnets: usedSubnets(b) });
}

export function addVnetCases(b: CatalogueBuilder): void {
  const ipConfig = nicIpConfig(b);
  const subnet = (name: string, used: boolean) => ({
    name,
    properties: {
      addressPrefix: '10.0.1.0/24',
      ...(used ? { ipConfigurations: [{ id: ipConfig.id }] } : {}),
    },
  });
  const vnet = (caseTag: string, name: string, subnets: unknown[]) =>
    b.add(
      caseTag,
      'Microsoft.Network',
      'virtualNetworks',
      name,
      { addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, subnets },
      free,
    );
  vnet('EmptyVirtualNetwork:positive', 'vnet-cat-empty', []);
  vnet('EmptyVirtualNetwork:negative:has-subnets', 'vnet-cat-used', [subnet('app', true)]);
  vnet('SubnetsWithoutDevices:positive', 'vnet-cat-idle-subnet', [
    subnet('app', true),
    subnet('idle', false),
  ]);
  vnet('SubnetsWithoutDevices:negative:gateway-subnet', 'vnet-cat-gateway', [
    subnet('app', true),
    subnet('GatewaySubnet', false),
  ]);
}

export function addDnsAndEndpointCases(b: CatalogueBuilder): void {
  const zone = (caseTag: string, name: string, links: number) =>
    b.add(
      caseTag,
      'Microsoft.Network',
      'privateDnsZones',
      name,
      { numberOfVirtualNetworkLinks: links, numberOfRecordSets: 3 },
      { dailyBase: 0.017, serviceName: 'Azure DNS' },
    );
  zone('PrivateDnsZoneWithoutVnetLink:positive', 'privatelink.cat-unlinked.example', 0);
  zone('PrivateDnsZoneWithoutVnetLink:negative:linked', 'privatelink.cat-linked.example', 1);
  const pe = (caseTag: string, name: string, status: string) =>
    b.add(
      caseTag,
      'Microsoft.Network',
      'privateEndpoints',
      name,
      {
        privateLinkServiceConnections: [
          { name: 'plsc', properties: { privateLinkServiceConnectionState: { status, description: '' } } },
        ],
      },
      network(0.24),
    );
  pe('DisconnectedPrivateEndpoint:positive', 'pe-cat-disconnected', 'Disconnected');
  pe('DisconnectedPrivateEndpoint:negative:approved', 'pe-cat-approved', 'Approved');
}
