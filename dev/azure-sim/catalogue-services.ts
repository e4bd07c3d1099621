/** The waste catalogue's platform cases: App Service, registries, Redis, SQL elastic pools, storage. */
import { CASE_TAG, type CatalogueBuilder, storage } from './catalogue-builder.js';

export function addAppServiceCases(b: CatalogueBuilder): void {
  const plan = (caseTag: string, name: string, tier: string, sites: number) =>
    b.add(
      caseTag,
      'Microsoft.Web',
      'serverfarms',
      name,
      { numberOfSites: sites },
      { dailyBase: 2.4, serviceName: 'Azure App Service' },
      { sku: { name: tier === 'Free' ? 'F1' : 'S1', tier } },
    );
  plan('EmptyAppServicePlan:positive', 'plan-cat-empty', 'Standard', 0);
  plan('EmptyAppServicePlan:negative:free-tier', 'plan-cat-free', 'Free', 0);
  const cert = (caseTag: string, name: string, expiresInDays: number) =>
    b.add(
      caseTag,
      'Microsoft.Web',
      'certificates',
      name,
      { subjectName: `${name}.contoso.example`, expirationDate: b.daysAgo(-expiresInDays) },
      { dailyBase: 0.2, serviceName: 'Azure App Service' },
    );
  cert('ExpiredAppServiceCertificate:positive', 'cert-cat-expired', -10);
  cert('ExpiredAppServiceCertificate:negative:valid', 'cert-cat-valid', 200);
}

export function addRegistryAndRedisCases(b: CatalogueBuilder): void {
  const acr = (caseTag: string, name: string, adminUserEnabled: boolean) =>
    b.add(
      caseTag,
      'Microsoft.ContainerRegistry',
      'registries',
      name,
      { adminUserEnabled },
      { dailyBase: 0.67, serviceName: 'Container Registry' },
      { sku: { name: 'Standard', tier: 'Standard' } },
    );
  acr('RegistryAdminUserEnabled:positive', 'acrcatadmin', true);
  acr('RegistryAdminUserEnabled:negative:disabled', 'acrcatnoadmin', false);
  const redis = (caseTag: string, name: string, enableNonSslPort: boolean) =>
    b.add(
      caseTag,
      'Microsoft.Cache',
      'Redis',
      name,
      { enableNonSslPort },
      { dailyBase: 2, serviceName: 'Redis Cache' },
    );
  redis('RedisNonSslPort:positive', 'redis-cat-plain', true);
  redis('RedisNonSslPort:negative:tls-only', 'redis-cat-tls', false);
}

/** Pools and their database are children of one SQL server, so their ids are not provider/type/name. */
export function addSqlPoolCases(b: CatalogueBuilder): void {
  const server = 'sql-cat';
  const sqlMoney = (dailyBase: number) => ({ dailyBase, serviceName: 'SQL Database' });
  const pool = (caseTag: string, name: string) =>
    b.addRow(
      {
        id: `${b.rg}/providers/Microsoft.Sql/servers/${server}/elasticPools/${name}`,
        name: `${server}/${name}`,
        type: 'microsoft.sql/servers/elasticpools',
        kind: 'pool',
        sku: { name: 'StandardPool', tier: 'Standard', capacity: 50 },
        properties: { state: 'Ready' },
        tags: { [CASE_TAG]: caseTag },
      },
      sqlMoney(3.6),
    );
  pool('EmptySqlElasticPool:positive', 'pool-cat-empty');
  const usedPool = pool('EmptySqlElasticPool:negative:has-database', 'pool-cat-used');
  b.addRow(
    {
      id: `${b.rg}/providers/Microsoft.Sql/servers/${server}/databases/db-cat`,
      name: `${server}/db-cat`,
      type: 'microsoft.sql/servers/databases',
      kind: 'v12.0,user,pool',
      sku: { name: 'ElasticPool', tier: 'Standard' },
      properties: { status: 'Online', elasticPoolId: usedPool },
      tags: { [CASE_TAG]: 'database' },
    },
    sqlMoney(0),
  );
}

export function addStorageCases(b: CatalogueBuilder): void {
  const st = (caseTag: string, name: string, kind: string) =>
    b.add(
      caseTag,
      'Microsoft.Storage',
      'storageAccounts',
      name,
      { supportsHttpsTrafficOnly: true },
      storage(0.5),
      { kind, sku: { name: 'Standard_LRS', tier: 'Standard' } },
    );
  st('StorageAccountV1:positive', 'stcatv1', 'Storage');
  st('StorageAccountV1:negative:v2', 'stcatv2', 'StorageV2');
}
