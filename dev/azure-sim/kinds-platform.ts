/** Generated platform services: App Service, registries, Redis, storage, SQL and Key Vault. */
import { type KindBuilder, round } from './generated-kind.js';

const plan: KindBuilder = ({ rng, waste, suffix, base }) => {
  const r = base('Microsoft.Web', 'serverfarms', `plan-${suffix}`);
  const tier = rng.pick(['PremiumV3', 'Standard', 'Basic']);
  const sku = { name: tier === 'PremiumV3' ? 'P1v3' : tier === 'Standard' ? 'S1' : 'B1', tier, capacity: 1 };
  const kind = rng.chance(0.6) ? 'linux' : 'app';
  const props = {
    status: 'Ready',
    numberOfSites: waste === 'empty-app-service-plan' ? 0 : rng.int(1, 6),
    maximumNumberOfWorkers: 30,
    reserved: kind === 'linux',
  };
  const dailyBase = tier === 'PremiumV3' ? 4.8 : tier === 'Standard' ? 2.4 : 1.3;
  return { r, props, sku, kind, dailyBase, serviceName: 'Azure App Service' };
};

const site: KindBuilder = ({ rng, suffix, rgPath, base }) => {
  const r = base('Microsoft.Web', 'sites', `app-${suffix}`);
  const props = {
    state: 'Running',
    defaultHostName: `app-${suffix}.azurewebsites.net`,
    serverFarmId: `${rgPath}/providers/Microsoft.Web/serverfarms/plan-${suffix}`,
    httpsOnly: rng.chance(0.8),
  };
  return { r, props, kind: 'app', dailyBase: round(rng.next() * 0.3), serviceName: 'Azure App Service' };
};

const acr: KindBuilder = ({ rng, waste, suffix, base }) => {
  const r = base('Microsoft.ContainerRegistry', 'registries', `acr${suffix}`);
  const tier = rng.pick(['Basic', 'Standard', 'Premium']);
  const props = { adminUserEnabled: waste === 'acr-admin-user', loginServer: `acr${suffix}.azurecr.io` };
  const dailyBase = tier === 'Premium' ? 1.67 : tier === 'Standard' ? 0.67 : 0.17;
  return { r, props, sku: { name: tier, tier }, dailyBase, serviceName: 'Container Registry' };
};

const redis: KindBuilder = ({ rng, waste, suffix, base }) => {
  const r = base('Microsoft.Cache', 'Redis', `redis-${suffix}`);
  const props = {
    enableNonSslPort: waste === 'redis-non-ssl-port',
    sku: { name: 'Standard', family: 'C', capacity: rng.int(0, 3) },
    hostName: `redis-${suffix}.redis.cache.windows.net`,
    port: 6379,
    sslPort: 6380,
    redisVersion: '6.0',
  };
  return { r, props, dailyBase: round(1 + rng.next() * 12), serviceName: 'Redis Cache' };
};

const storage: KindBuilder = ({ rng, suffix, base }) => {
  const r = base('Microsoft.Storage', 'storageAccounts', `st${suffix}${rng.hex(6)}`);
  const props = { accessTier: 'Hot', supportsHttpsTrafficOnly: true, minimumTlsVersion: 'TLS1_2' };
  return {
    r,
    props,
    sku: { name: 'Standard_LRS', tier: 'Standard' },
    kind: 'StorageV2',
    dailyBase: round(0.1 + rng.next() * 6),
    serviceName: 'Storage',
  };
};

const sql: KindBuilder = ({ rng, suffix, rgPath }) => {
  const server = `sql-${suffix}`;
  const r = {
    id: `${rgPath}/providers/Microsoft.Sql/servers/${server}/databases/db-${suffix}`,
    name: `${server}/db-${suffix}`,
    type: 'microsoft.sql/servers/databases',
  };
  const props = { status: 'Online', maxSizeBytes: 268435456000 };
  return {
    r,
    props,
    sku: { name: 'S0', tier: 'Standard', capacity: 10 },
    dailyBase: round(0.5 + rng.next() * 20),
    serviceName: 'SQL Database',
  };
};

const kv: KindBuilder = ({ rng, suffix, tenantId, base }) => {
  const r = base('Microsoft.KeyVault', 'vaults', `kv-${suffix}`);
  const props = { sku: { family: 'A', name: 'standard' }, tenantId, enableSoftDelete: true };
  return { r, props, dailyBase: round(0.01 + rng.next() * 0.3), serviceName: 'Key Vault' };
};

export const PLATFORM_KINDS = { plan, site, acr, redis, storage, sql, kv } satisfies Record<
  string,
  KindBuilder
>;
