// finwatch: the whole Azure footprint of the platform's server side.
//
//   Function App (Flex Consumption, Linux, Node 22, system-assigned identity) serving
//   /auth/api/... and /finops/api/..., the `analysis-jobs` queue trigger and the weekly timer;
//   its Storage account (host storage, deployment container, queues);
//   Azure Database for PostgreSQL Flexible Server + database;
//   Application Insights on a Log Analytics workspace;
//   Key Vault (RBAC mode) holding every secret, referenced from app settings.
//
// Deploy into an existing resource group:
//   az deployment group create -g <rg> -f infra/main.bicep -p @infra/main.parameters.json
//
// NOT VERIFIED ON THE MACHINE THAT WROTE IT: there was no Bicep compiler, no az CLI and no Azure
// access there. Run `az bicep build -f infra/main.bicep` and a what-if before the first deployment.
//
// Naming rules that shape this file:
// - Key Vault secret names allow only letters, digits and '-', so the secret for the app setting
//   `Jwt__Key` is named `Jwt--Key` (the ASP.NET Core convention: '--' stands for the ':' level
//   separator); the app setting itself keeps its exact name and points at the secret.
// - App setting names may contain letters, digits, '.' and '_'. On Linux every '.' in a name reaches
//   the process environment as '_': the setting
//   `Logging__LogLevel__Vendor.IdentityModel.LoggingExtensions.IdentityLoggerAdapter` is visible to
//   Node as `Logging__LogLevel__Vendor_IdentityModel_LoggingExtensions_IdentityLoggerAdapter`. The
//   setting keeps the original's name here; the app's configuration loader must accept both spellings.
// - Flex Consumption rejects FUNCTIONS_WORKER_RUNTIME, FUNCTIONS_EXTENSION_VERSION,
//   WEBSITE_NODE_DEFAULT_VERSION, WEBSITE_RUN_FROM_PACKAGE and the WEBSITE_CONTENT* settings: the
//   runtime and version live in `functionAppConfig.runtime`, the package in the deployment container.

targetScope = 'resourceGroup'

// ---------------------------------------------------------------------------------------------
// Parameters: platform
// ---------------------------------------------------------------------------------------------

@description('Azure region of every resource. Must offer Flex Consumption and PostgreSQL Flexible Server.')
param location string = resourceGroup().location

@description('Short prefix for resource names: lower-case letters and digits, starting with a letter (Key Vault, Storage and PostgreSQL name rules).')
@minLength(2)
@maxLength(8)
param namePrefix string = 'finwatch'

@description('Function App name; must be globally unique. Empty = derived from namePrefix and the resource group.')
param functionAppName string = ''

@description('Upper bound of instances Flex Consumption may scale the app out to. The analysis gate (PostgreSQL advisory lock) keeps one analysis running at a time whatever this is.')
@minValue(1)
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Memory per Flex Consumption instance, in MB.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('How the Functions host (and the app) reach AzureWebJobsStorage. identity: managed identity, no account keys (shared-key access is disabled on the account). connectionString: a key-based connection string in AzureWebJobsStorage (use only if the app build cannot use identity-based queue access).')
@allowed([
  'identity'
  'connectionString'
])
param storageConnectionMode string = 'identity'

@description('Name of the storage queue the start-async route writes to and the queue trigger drains (AnalysisQueue__Name). The poison queue is "<name>-poison".')
param analysisQueueName string = 'analysis-jobs'

@description('Days Log Analytics keeps the app\'s logs.')
@minValue(30)
@maxValue(730)
param logRetentionDays int = 30

@description('Tags put on every resource.')
param tags object = {
  application: 'finwatch'
}

// ---------------------------------------------------------------------------------------------
// Parameters: PostgreSQL
// ---------------------------------------------------------------------------------------------

@description('PostgreSQL server administrator login (not "postgres", "admin", "azure_superuser", ...).')
param postgresAdminLogin string = 'finwatchadmin'

@description('PostgreSQL administrator password (12-128 chars, three of: upper, lower, digit, symbol). Stored in Key Vault; the connection string is composed from it.')
@secure()
@minLength(12)
@maxLength(128)
param postgresAdminPassword string

@description('PostgreSQL major version.')
@allowed([
  '14'
  '15'
  '16'
])
param postgresVersion string = '16'

@description('PostgreSQL compute SKU name (Burstable B1ms is the cheapest).')
param postgresSkuName string = 'Standard_B1ms'

@description('PostgreSQL compute tier matching postgresSkuName.')
@allowed([
  'Burstable'
  'GeneralPurpose'
  'MemoryOptimized'
])
param postgresSkuTier string = 'Burstable'

@description('PostgreSQL storage size in GB.')
param postgresStorageSizeGB int = 32

@description('Name of the application database.')
param postgresDatabaseName string = 'finwatch'

// ---------------------------------------------------------------------------------------------
// Parameters: app settings shared by both services (spec defaults)
// ---------------------------------------------------------------------------------------------

@description('WEBAPP_ENVIRONMENT: Production for deployments; Development enables the API documentation UI.')
@allowed([
  'Production'
  'Development'
])
param webappEnvironment string = 'Production'

@description('RUNTIME_SYSTEM_GLOBALIZATION_INVARIANT (spec: false recommended).')
param runtimeSystemGlobalizationInvariant string = 'false'

@description('basePath: optional base path of the API documentation UI (Development only).')
param basePath string = ''

@description('Jwt__Key: secret that signs and validates the service\'s own JWTs (HS256). At least 32 random bytes. Stored in Key Vault. A missing or placeholder key stops startup in Production.')
@secure()
@minLength(32)
param jwtKey string

@description('Jwt__Issuers: comma-separated valid issuers; the first one is used when issuing.')
param jwtIssuers string = 'finwatch'

@description('Jwt__Audiences: comma-separated valid audiences; the first one is used when issuing.')
param jwtAudiences string = 'finwatch'

@description('Jwt__ExpiryMinutes: lifetime of issued JWTs.')
param jwtExpiryMinutes string = '1440'

@description('CloudAd__ClientId: application (client) id of the directory (Entra ID) app registration of the auth service.')
param cloudAdClientId string = ''

@description('CloudAd__TenantId: directory (tenant) id of that app registration.')
param cloudAdTenantId string = ''

@description('CloudAd__ClientSecret: client secret of that app registration (Graph calls). Stored in Key Vault when set.')
@secure()
param cloudAdClientSecret string = ''

@description('CloudAd__Instance: directory instance URL, with the trailing slash.')
param cloudAdInstance string = 'https://login.microsoftonline.com/'

@description('CloudAd__CallbackPath: OIDC callback path.')
param cloudAdCallbackPath string = '/signin-oidc'

@description('Console__DirectorySignIn: the console offers "Sign in with Microsoft" when the directory above is set; false hides it.')
param consoleDirectorySignIn string = 'true'

@description('Console__DirectoryClientId: app registration the console signs in as (a single-page-app redirect to https://<host>/console/); empty: CloudAd__ClientId.')
param consoleDirectoryClientId string = ''

@description('Console__DirectoryScopes: comma-separated scopes the console asks for; empty: api://<CloudAd__ClientId>/access_as_user.')
param consoleDirectoryScopes string = ''

@description('DownstreamApi__BaseUrl: base URL of the directory graph API.')
param downstreamApiBaseUrl string = 'https://graph.microsoft.com/v1.0'

@description('DownstreamApi__Scopes: scopes requested for the graph API.')
param downstreamApiScopes string = 'https://graph.microsoft.com/.default'

@description('MOBILE_API_KEY: API key mobile clients send to POST /auth/api/Auth/azure. Stored in Key Vault.')
@secure()
@minLength(16)
param mobileApiKey string

@description('ENABLED_LOGIN_AUTH: false disables username/password login, user create, reset and update password.')
param enabledLoginAuth string = 'true'

@description('DEMO_MODE: true gives users created by directory mobile auth a default monitor group.')
param demoMode string = 'false'

@description('DEMO_MONITOR_GROUP_ID: the monitor group DEMO_MODE assigns.')
param demoMonitorGroupId string = '24'

@description('BLOCKED_DOMAINS: comma-separated email domains that receive 403.')
param blockedDomains string = ''

@description('ADMIN_EMAILS: comma-separated emails that become admins when created or first seen.')
param adminEmails string = ''

@description('smtpHost: SMTP server for password-reset mail. Empty = SMTP not used.')
param smtpHost string = ''

@description('smtpPort: SMTP port.')
param smtpPort string = '587'

@description('smtpUsername: SMTP user.')
param smtpUsername string = ''

@description('smtpPassword: SMTP password. Stored in Key Vault when set.')
@secure()
param smtpPassword string = ''

@description('smtpFrom: sender address of outgoing mail.')
param smtpFrom string = ''

@description('enableSsl: TLS for SMTP.')
param enableSsl string = 'true'

@description('SENDGRID_API_KEY: when set, mail goes through the SendGrid API instead of SMTP. Stored in Key Vault when set.')
@secure()
param sendgridApiKey string = ''

@description('SwaggerUICredentials__username: basic-auth user of the API documentation UI (Development only).')
param swaggerUiUsername string = ''

@description('SwaggerUICredentials__password: basic-auth password of the API documentation UI. Stored in Key Vault when set.')
@secure()
param swaggerUiPassword string = ''

@description('CacheSettings__CacheProvider: cache implementation name.')
param cacheProvider string = 'Memory'

@description('ErrorTracker__Enabled: turns error tracking (Sentry) on.')
param errorTrackerEnabled string = 'false'

@description('ErrorTracker__Dsn: Sentry DSN; tracking is active only when set.')
param errorTrackerDsn string = ''

@description('ErrorTracker__Environment: environment label sent with events. Empty = WEBAPP_ENVIRONMENT.')
param errorTrackerEnvironment string = ''

@description('ErrorTracker__SendDefaultPii: send default PII with events.')
param errorTrackerSendDefaultPii string = 'false'

@description('Logging__LogLevel__Default: default log level.')
param logLevelDefault string = 'Information'

@description('Logging__LogLevel__Vendor.IdentityModel.LoggingExtensions.IdentityLoggerAdapter: identity logger level.')
param logLevelIdentityLogger string = 'Warning'

@description('CORS_ALLOWED_ORIGINS: comma-separated origins the app answers CORS for; * = any. (Platform CORS is left unset so the app\'s own CORS handling applies.)')
param corsAllowedOrigins string = '*'

// ---------------------------------------------------------------------------------------------
// Parameters: FinOps service (spec defaults)
// ---------------------------------------------------------------------------------------------

@description('Cloud__TenantId: tenant of the service principal that reads the subscriptions.')
param cloudTenantId string = ''

@description('Cloud__ClientId: client id of that service principal.')
param cloudClientId string = ''

@description('Cloud__ClientSecret: client secret of that service principal. Stored in Key Vault when set.')
@secure()
param cloudClientSecret string = ''

@description('Cloud__SubscriptionIds: comma-separated subscription GUIDs to analyze (and to enqueue weekly).')
param cloudSubscriptionIds string = ''

@description('Cloud__CostQueryType: ActualCost (as billed) or AmortizedCost.')
@allowed([
  'ActualCost'
  'AmortizedCost'
])
param cloudCostQueryType string = 'ActualCost'

@description('CostQuery__PaceScale: multiplier of the pauses between cost queries (1 = the original\'s 15-25 s).')
param costQueryPaceScale string = '1'

@description('Notifications__AllowPrivateTargets: true lets webhook channels point at loopback, private, link-local, CGNAT, unspecified and multicast addresses (SSRF); keep false unless receivers live inside your network.')
@allowed([
  'true'
  'false'
])
param notificationsAllowPrivateTargets string = 'false'

@description('Metrics__AllowAnonymousIngest: true accepts agent posts without an ingest key (anyone who reaches the app can then write metrics).')
@allowed([
  'true'
  'false'
])
param metricsAllowAnonymousIngest string = 'false'

@description('Metrics__RetentionRawDays: days raw pod, node and PVC samples are kept.')
param metricsRetentionRawDays string = '14'

@description('Metrics__Retention5mDays: days the 5-minute averages are kept.')
param metricsRetention5mDays string = '90'

@description('Metrics__RetentionHourlyDays: days the hourly averages are kept.')
param metricsRetentionHourlyDays string = '400'

@description('Metrics__SilenceAfterMinutes: minutes without node data before a cluster or node raises a silence alert (0 = off).')
param metricsSilenceAfterMinutes string = '5'
@description('Metrics__ClickHouseUrl: store metrics in ClickHouse (its HTTP interface, e.g. https://ch.example.com:8443) instead of PostgreSQL. Empty: PostgreSQL.')
param metricsClickHouseUrl string = ''

@description('Metrics__ClickHouseUser: the ClickHouse user.')
param metricsClickHouseUser string = 'default'

@description('Metrics__ClickHousePassword: that user\'s password. Stored in Key Vault when set.')
@secure()
param metricsClickHousePassword string = ''

@description('Metrics__ClickHouseDatabase: the ClickHouse database of the metrics tables (created when missing).')
param metricsClickHouseDatabase string = 'finwatch'

@description('WeeklyAnalysis__Enabled: true runs the weekly timer.')
param weeklyAnalysisEnabled string = 'true'

@description('WeeklyAnalysis__DayOfWeekUtc: English day name.')
@allowed([
  'Sunday'
  'Monday'
  'Tuesday'
  'Wednesday'
  'Thursday'
  'Friday'
  'Saturday'
])
param weeklyAnalysisDayOfWeekUtc string = 'Sunday'

@description('WeeklyAnalysis__HourUtc: 0-23.')
param weeklyAnalysisHourUtc string = '2'

@description('WeeklyAnalysis__MinuteUtc: 0-59.')
param weeklyAnalysisMinuteUtc string = '0'

@description('AI__ApiUrl: HTTP endpoint of the recommendation agent. Empty = AI step skipped.')
param aiApiUrl string = ''

@description('AI__ApiKey: key sent to the recommendation agent. Stored in Key Vault when set.')
@secure()
param aiApiKey string = ''

@description('AI__ApiKeyHeaderName: header that carries the AI key.')
param aiApiKeyHeaderName string = 'x-api-key'

@description('CostExports__ContainerUrl: https URL of the container Cost Management exports write to, without a SAS (grant the app identity Storage Blob Data Reader on it). Empty = no scheduled import.')
param costExportsContainerUrl string = ''

@description('CostExports__Schedule: NCRONTAB (six fields, UTC) of the look for new export runs.')
param costExportsSchedule string = '0 30 */6 * * *'

@description('CostExports__Subscriptions: exportName=subscriptionGuid pairs, comma-separated, for exports of one subscription. Empty = every subscription the rows name.')
param costExportsSubscriptions string = ''

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

var resourceToken = toLower(uniqueString(subscription().id, resourceGroup().id, namePrefix))
var appName = empty(functionAppName) ? '${namePrefix}-func-${resourceToken}' : functionAppName
var planName = '${namePrefix}-plan-${resourceToken}'
// Storage account: 3-24 lower-case letters and digits.
var storageAccountName = take(toLower(replace('${namePrefix}st${resourceToken}', '-', '')), 24)
// Key Vault: 3-24 letters, digits and '-'.
var keyVaultName = take('${namePrefix}-kv-${resourceToken}', 24)
var postgresServerName = '${namePrefix}-pg-${resourceToken}'
var logAnalyticsName = '${namePrefix}-log-${resourceToken}'
var appInsightsName = '${namePrefix}-appi-${resourceToken}'
// Flex Consumption reads the app package from this blob container.
var deploymentContainerName = 'app-package-${take(resourceToken, 13)}'
var analysisPoisonQueueName = '${analysisQueueName}-poison'

// Built-in role definition ids.
var roleStorageBlobDataOwner = 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
var roleStorageQueueDataContributor = '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
var roleStorageTableDataContributor = '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
var roleMonitoringMetricsPublisher = '3913510d-42f4-4e42-8a64-420c390055eb'
var roleKeyVaultSecretsUser = '4633458b-17de-408a-b874-0445c86b69e6'

// ---------------------------------------------------------------------------------------------
// Monitoring
// ---------------------------------------------------------------------------------------------

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2022-10-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: logRetentionDays
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
  }
}

// ---------------------------------------------------------------------------------------------
// Storage: host storage, deployment container, analysis queues
// ---------------------------------------------------------------------------------------------

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: storageAccountName
  location: location
  tags: tags
  sku: {
    name: 'Standard_LRS'
  }
  kind: 'StorageV2'
  properties: {
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    allowBlobPublicAccess: false
    // Identity-based access only, unless the operator chose a key-based connection string.
    allowSharedKeyAccess: storageConnectionMode == 'connectionString'
    defaultToOAuthAuthentication: storageConnectionMode == 'identity'
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

// Large cost imports wait in this container until their job runs; the job deletes them. A host
// that dies between the upload and the job row leaves an orphan: the lifecycle rule removes what is
// older than any job could be (imports retry for well under a day).
resource importSpoolContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: 'cost-import-spool'
  properties: {
    publicAccess: 'None'
  }
}

resource storageLifecycle 'Microsoft.Storage/storageAccounts/managementPolicies@2023-05-01' = {
  parent: storage
  name: 'default'
  properties: {
    policy: {
      rules: [
        {
          name: 'expire-import-spool'
          enabled: true
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [ 'blockBlob' ]
              prefixMatch: [ 'cost-import-spool/' ]
            }
            actions: {
              baseBlob: {
                delete: { daysAfterModificationGreaterThan: 3 }
              }
            }
          }
        }
      ]
    }
  }
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

// Written by POST /finops/api/Analysis/start-async and the weekly timer; drained by the queue trigger.
resource analysisQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: analysisQueueName
}

// The Functions host moves a message here after maxDequeueCount (host.json: 5) failed attempts.
// The host would create it on first use; declaring it lets operators alert on it from day one.
resource analysisPoisonQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: analysisPoisonQueueName
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL Flexible Server
// ---------------------------------------------------------------------------------------------

resource postgres 'Microsoft.DBforPostgreSQL/flexibleServers@2024-08-01' = {
  name: postgresServerName
  location: location
  tags: tags
  sku: {
    name: postgresSkuName
    tier: postgresSkuTier
  }
  properties: {
    version: postgresVersion
    administratorLogin: postgresAdminLogin
    administratorLoginPassword: postgresAdminPassword
    authConfig: {
      activeDirectoryAuth: 'Disabled'
      passwordAuth: 'Enabled'
    }
    storage: {
      storageSizeGB: postgresStorageSizeGB
    }
    backup: {
      backupRetentionDays: 7
      geoRedundantBackup: 'Disabled'
    }
    highAvailability: {
      mode: 'Disabled'
    }
    network: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource postgresDatabase 'Microsoft.DBforPostgreSQL/flexibleServers/databases@2024-08-01' = {
  parent: postgres
  name: postgresDatabaseName
  properties: {
    charset: 'UTF8'
    collation: 'en_US.utf8'
  }
}

// Azure refuses CREATE EXTENSION for an extension missing from azure.extensions. The migrations
// create pg_trgm for the substring search's trigram indexes (docs/decisions.md); without it they
// skip the indexes and the search reads every resource of the run.
resource postgresExtensions 'Microsoft.DBforPostgreSQL/flexibleServers/configurations@2024-08-01' = {
  parent: postgres
  name: 'azure.extensions'
  properties: {
    value: 'PG_TRGM'
    source: 'user-defined'
  }
}

// 0.0.0.0-0.0.0.0 is Azure's convention for "allow public access from any Azure service", which
// is how a Flex Consumption app without VNet integration reaches the server. It also admits other
// tenants' Azure resources: the password and TLS are the remaining guards. For a tighter setup,
// put the app and the server in a VNet (not done here).
resource postgresAllowAzure 'Microsoft.DBforPostgreSQL/flexibleServers/firewallRules@2024-08-01' = {
  parent: postgres
  name: 'AllowAllAzureServicesAndResourcesWithinAzureIps'
  properties: {
    startIpAddress: '0.0.0.0'
    endIpAddress: '0.0.0.0'
  }
}

// node-postgres URL; the password is URL-encoded. Azure requires TLS (sslmode=require); the server
// certificate chains to a public root that Node trusts.
var sqlConnectionString = 'postgresql://${uriComponent(postgresAdminLogin)}:${uriComponent(postgresAdminPassword)}@${postgres.properties.fullyQualifiedDomainName}:5432/${postgresDatabaseName}?sslmode=require'

// ---------------------------------------------------------------------------------------------
// Key Vault and secrets
// ---------------------------------------------------------------------------------------------

resource keyVault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: keyVaultName
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 7
    publicNetworkAccess: 'Enabled'
  }
}

// Secret names: letters, digits and '-' only ('--' stands for the '__' of the app setting).
// Optional secrets are created only when a value is given; their app setting is then empty.

resource secretJwtKey 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: keyVault
  name: 'Jwt--Key'
  properties: {
    value: jwtKey
  }
}

resource secretMobileApiKey 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: keyVault
  name: 'MOBILE-API-KEY'
  properties: {
    value: mobileApiKey
  }
}

resource secretPostgresPassword 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: keyVault
  name: 'postgres-admin-password'
  properties: {
    value: postgresAdminPassword
    contentType: 'PostgreSQL administrator password of ${postgresServerName}'
  }
}

resource secretSqlConnectionString 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: keyVault
  name: 'ConnectionStrings--SqlConnectionString'
  properties: {
    value: sqlConnectionString
    contentType: 'postgresql:// URL'
  }
}

resource secretCloudClientSecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(cloudClientSecret)) {
  parent: keyVault
  name: 'Cloud--ClientSecret'
  properties: {
    value: cloudClientSecret
  }
}

resource secretCloudAdClientSecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(cloudAdClientSecret)) {
  parent: keyVault
  name: 'CloudAd--ClientSecret'
  properties: {
    value: cloudAdClientSecret
  }
}

resource secretAiApiKey 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(aiApiKey)) {
  parent: keyVault
  name: 'AI--ApiKey'
  properties: {
    value: aiApiKey
  }
}

resource secretSmtpPassword 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(smtpPassword)) {
  parent: keyVault
  name: 'smtpPassword'
  properties: {
    value: smtpPassword
  }
}

resource secretSendgridApiKey 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(sendgridApiKey)) {
  parent: keyVault
  name: 'SENDGRID-API-KEY'
  properties: {
    value: sendgridApiKey
  }
}

resource secretSwaggerUiPassword 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(swaggerUiPassword)) {
  parent: keyVault
  name: 'SwaggerUICredentials--password'
  properties: {
    value: swaggerUiPassword
  }
}

resource secretClickHousePassword 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(metricsClickHousePassword)) {
  parent: keyVault
  name: 'Metrics--ClickHousePassword'
  properties: {
    value: metricsClickHousePassword
  }
}

// Key Vault references without a version follow the latest secret version (refreshed within 24 h,
// or at once on an app settings change / restart).
var kvSecretBaseUri = 'https://${keyVaultName}${environment().suffixes.keyvaultDns}/secrets'

// ---------------------------------------------------------------------------------------------
// Function App (Flex Consumption)
// ---------------------------------------------------------------------------------------------

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true // Linux
  }
}

resource functionApp 'Microsoft.Web/sites@2024-04-01' = {
  name: appName
  location: location
  tags: tags
  kind: 'functionapp,linux'
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    siteConfig: {
      minTlsVersion: '1.2'
      ftpsState: 'Disabled'
      http20Enabled: true
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storage.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'SystemAssignedIdentity'
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
      }
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }
  dependsOn: [
    deploymentContainer
  ]
}

// ---------------------------------------------------------------------------------------------
// Role assignments for the app's system-assigned identity
// ---------------------------------------------------------------------------------------------

// Deployment package container, host leases/keys (blobs), timer singleton locks.
resource raBlobOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: storage
  name: guid(storage.id, functionApp.id, roleStorageBlobDataOwner)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleStorageBlobDataOwner)
    principalId: functionApp.identity.principalId
    principalType: 'ServicePrincipal'
  }
}

// Queue trigger (read/delete/poison) and start-async / weekly timer (send).
resource raQueueContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: storage
  name: guid(storage.id, functionApp.id, roleStorageQueueDataContributor)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleStorageQueueDataContributor)
    principalId: functionApp.identity.principalId
    principalType: 'ServicePrincipal'
  }
}

// The host keeps some state (e.g. diagnostics events) in tables.
resource raTableContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: storage
  name: guid(storage.id, functionApp.id, roleStorageTableDataContributor)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleStorageTableDataContributor)
    principalId: functionApp.identity.principalId
    principalType: 'ServicePrincipal'
  }
}

// Allows switching Application Insights ingestion to Entra ID auth without a redeploy of roles.
resource raMetricsPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: appInsights
  name: guid(appInsights.id, functionApp.id, roleMonitoringMetricsPublisher)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleMonitoringMetricsPublisher)
    principalId: functionApp.identity.principalId
    principalType: 'ServicePrincipal'
  }
}

// Resolves the @Microsoft.KeyVault(...) app settings.
resource raKeyVaultSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: keyVault
  name: guid(keyVault.id, functionApp.id, roleKeyVaultSecretsUser)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleKeyVaultSecretsUser)
    principalId: functionApp.identity.principalId
    principalType: 'ServicePrincipal'
  }
}

// ---------------------------------------------------------------------------------------------
// App settings
// ---------------------------------------------------------------------------------------------

// Identity-based host storage: the Functions host and the app (QueueServiceClient with a managed
// identity credential) build their clients from these service URIs. No account key exists.
var storageIdentityAppSettings = {
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__blobServiceUri: storage.properties.primaryEndpoints.blob
  AzureWebJobsStorage__queueServiceUri: storage.properties.primaryEndpoints.queue
  AzureWebJobsStorage__tableServiceUri: storage.properties.primaryEndpoints.table
}

// Key-based fallback (storageConnectionMode = connectionString).
var storageConnectionStringAppSettings = {
  AzureWebJobsStorage: storageConnectionMode == 'connectionString' ? 'DefaultEndpointsProtocol=https;AccountName=${storage.name};AccountKey=${storage.listKeys().keys[0].value};EndpointSuffix=${environment().suffixes.storage}' : ''
}

var baseAppSettings = {
  // Platform
  APPLICATIONINSIGHTS_CONNECTION_STRING: appInsights.properties.ConnectionString
  AnalysisQueue__Name: analysisQueueName
  // V8 flags of the Node worker (kept in one file: bench/finops-analysis.ts runs with the same ones).
  // They keep an analysis's heap from growing far ahead of its live objects; docs/decisions.md.
  languageWorkers__node__arguments: trim(loadTextContent('worker-node-arguments.txt'))

  // Both services
  WEBAPP_ENVIRONMENT: webappEnvironment
  RUNTIME_SYSTEM_GLOBALIZATION_INVARIANT: runtimeSystemGlobalizationInvariant
  basePath: basePath
  ConnectionStrings__SqlConnectionString: '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/ConnectionStrings--SqlConnectionString/)'
  Jwt__Key: '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/Jwt--Key/)'
  Jwt__Issuers: jwtIssuers
  Jwt__Audiences: jwtAudiences
  Jwt__ExpiryMinutes: jwtExpiryMinutes
  CloudAd__ClientId: cloudAdClientId
  CloudAd__TenantId: cloudAdTenantId
  CloudAd__ClientSecret: empty(cloudAdClientSecret) ? '' : '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/CloudAd--ClientSecret/)'
  CloudAd__Instance: cloudAdInstance
  CloudAd__CallbackPath: cloudAdCallbackPath
  Console__DirectorySignIn: consoleDirectorySignIn
  Console__DirectoryClientId: consoleDirectoryClientId
  Console__DirectoryScopes: consoleDirectoryScopes
  DownstreamApi__BaseUrl: downstreamApiBaseUrl
  DownstreamApi__Scopes: downstreamApiScopes
  ErrorTracker__Enabled: errorTrackerEnabled
  ErrorTracker__Dsn: errorTrackerDsn
  ErrorTracker__Environment: empty(errorTrackerEnvironment) ? webappEnvironment : errorTrackerEnvironment
  ErrorTracker__SendDefaultPii: errorTrackerSendDefaultPii
  Logging__LogLevel__Default: logLevelDefault
  // On Linux the process sees this name with '_' for every '.' (see the header of this file).
  'Logging__LogLevel__Vendor.IdentityModel.LoggingExtensions.IdentityLoggerAdapter': logLevelIdentityLogger
  CORS_ALLOWED_ORIGINS: corsAllowedOrigins

  // Auth service
  MOBILE_API_KEY: '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/MOBILE-API-KEY/)'
  ENABLED_LOGIN_AUTH: enabledLoginAuth
  DEMO_MODE: demoMode
  DEMO_MONITOR_GROUP_ID: demoMonitorGroupId
  BLOCKED_DOMAINS: blockedDomains
  ADMIN_EMAILS: adminEmails
  smtpHost: smtpHost
  smtpPort: smtpPort
  smtpUsername: smtpUsername
  smtpPassword: empty(smtpPassword) ? '' : '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/smtpPassword/)'
  smtpFrom: smtpFrom
  enableSsl: enableSsl
  SENDGRID_API_KEY: empty(sendgridApiKey) ? '' : '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/SENDGRID-API-KEY/)'
  SwaggerUICredentials__username: swaggerUiUsername
  SwaggerUICredentials__password: empty(swaggerUiPassword) ? '' : '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/SwaggerUICredentials--password/)'
  CacheSettings__CacheProvider: cacheProvider

  // FinOps service
  Cloud__TenantId: cloudTenantId
  Cloud__ClientId: cloudClientId
  Cloud__ClientSecret: empty(cloudClientSecret) ? '' : '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/Cloud--ClientSecret/)'
  Cloud__SubscriptionIds: cloudSubscriptionIds
  Cloud__CostQueryType: cloudCostQueryType
  CostQuery__PaceScale: costQueryPaceScale
  Notifications__AllowPrivateTargets: notificationsAllowPrivateTargets
  WeeklyAnalysis__Enabled: weeklyAnalysisEnabled
  WeeklyAnalysis__DayOfWeekUtc: weeklyAnalysisDayOfWeekUtc
  WeeklyAnalysis__HourUtc: weeklyAnalysisHourUtc
  WeeklyAnalysis__MinuteUtc: weeklyAnalysisMinuteUtc
  AI__ApiUrl: aiApiUrl
  AI__ApiKey: empty(aiApiKey) ? '' : '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/AI--ApiKey/)'
  AI__ApiKeyHeaderName: aiApiKeyHeaderName
  CostExports__ContainerUrl: costExportsContainerUrl
  CostExports__Schedule: costExportsSchedule
  CostExports__Subscriptions: costExportsSubscriptions

  // Metrics service
  Metrics__AllowAnonymousIngest: metricsAllowAnonymousIngest
  Metrics__RetentionRawDays: metricsRetentionRawDays
  Metrics__Retention5mDays: metricsRetention5mDays
  Metrics__RetentionHourlyDays: metricsRetentionHourlyDays
  Metrics__SilenceAfterMinutes: metricsSilenceAfterMinutes
  Metrics__ClickHouseUrl: metricsClickHouseUrl
  Metrics__ClickHouseUser: metricsClickHouseUser
  Metrics__ClickHousePassword: empty(metricsClickHousePassword) ? '' : '@Microsoft.KeyVault(SecretUri=${kvSecretBaseUri}/Metrics--ClickHousePassword/)'
  Metrics__ClickHouseDatabase: metricsClickHouseDatabase
}

// This resource owns the complete app settings list: settings added by hand in the portal are
// removed by the next deployment. Change values through parameters.
resource appSettings 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: functionApp
  name: 'appsettings'
  properties: union(baseAppSettings, storageConnectionMode == 'identity' ? storageIdentityAppSettings : storageConnectionStringAppSettings)
  dependsOn: [
    // References resolve with the app's identity: grant it first, create the secrets first.
    raKeyVaultSecretsUser
    raBlobOwner
    raQueueContributor
    raTableContributor
    secretJwtKey
    secretMobileApiKey
    secretPostgresPassword
    secretSqlConnectionString
    secretCloudClientSecret
    secretCloudAdClientSecret
    secretAiApiKey
    secretSmtpPassword
    secretSendgridApiKey
    secretSwaggerUiPassword
    postgresDatabase
    postgresAllowAzure
    // The app migrates on its first request: the extension must be allowed by then.
    postgresExtensions
    analysisQueue
    analysisPoisonQueue
  ]
}

// ---------------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------------

var appBaseUrl = 'https://${functionApp.properties.defaultHostName}'

output functionAppName string = functionApp.name
output functionAppHostName string = functionApp.properties.defaultHostName
output functionAppUrl string = appBaseUrl
output authVersionUrl string = '${appBaseUrl}/auth/api/Version'
output finopsVersionUrl string = '${appBaseUrl}/finops/api/Version'
output keyVaultName string = keyVault.name
output storageAccountName string = storage.name
output postgresServerFqdn string = postgres.properties.fullyQualifiedDomainName
output postgresDatabaseName string = postgresDatabase.name
output appInsightsName string = appInsights.name
output functionAppPrincipalId string = functionApp.identity.principalId
