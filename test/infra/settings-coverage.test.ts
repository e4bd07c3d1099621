// Every setting the two service specs name must reach the deployed app (infra/*.bicep, as an app
// setting or a Key Vault reference) and the local developer setup (local.settings.sample.json).
// The Bicep is read as text: no Bicep compiler exists on the development machines.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPOOL_CONTAINER } from '../../shared/finops/imports/spool.js';
import {
  checkedInSpecSettings,
  declaredKeyVaultSecrets,
  liveSpecDir,
  loadSpecSettings,
  paramDefault,
  parseAppSettings,
  parseSpecSettings,
  readInfraBicep,
  referencedKeyVaultSecrets,
  repoRoot,
  type SpecSettingsCopy,
  specFiles,
  stripComments,
} from './bicep-source.js';

const spec = loadSpecSettings();
const specSettingNames = [...new Set(Object.values(spec.settings).flat())].sort();
const bicep = readInfraBicep();
const appSettings = parseAppSettings(bicep);

// Secrets the brief requires in Key Vault: their app settings must be Key Vault references.
const secretSettings = [
  'ConnectionStrings__SqlConnectionString',
  'Jwt__Key',
  'MOBILE_API_KEY',
  'Cloud__ClientSecret',
  'CloudAd__ClientSecret',
  'AI__ApiKey',
  'smtpPassword',
  'SENDGRID_API_KEY',
];

// Settings that only make sense in Azure (the local host sets up its own storage and telemetry, and
// is not the Functions host's Node worker).
const azureOnlySetting = (name: string) =>
  name === 'APPLICATIONINSIGHTS_CONNECTION_STRING' ||
  name === 'languageWorkers__node__arguments' ||
  name.startsWith('AzureWebJobsStorage__');

describe('spec setting names', () => {
  it('are read from both service specs (live spec or the checked-in copy)', () => {
    expect(Object.keys(spec.settings).sort()).toEqual([...specFiles].sort());
    for (const file of specFiles) expect(spec.settings[file].length).toBeGreaterThan(10);
    // Names from tables, multi-name cells and the prose alike.
    expect(specSettingNames).toEqual(
      expect.arrayContaining([
        'ENABLED_LOGIN_AUTH',
        'smtpFrom',
        'ErrorTracker__SendDefaultPii',
        'Cloud__TenantId',
        'Logging__LogLevel__Vendor.IdentityModel.LoggingExtensions.IdentityLoggerAdapter',
      ]),
    );
    expect(specSettingNames).not.toContain('API_KEY');
  });

  it.skipIf(spec.source !== 'live')('checked-in copy matches the live spec', () => {
    const copy = JSON.parse(readFileSync(checkedInSpecSettings, 'utf8')) as SpecSettingsCopy;
    for (const file of specFiles) {
      const live = parseSpecSettings(readFileSync(path.join(liveSpecDir, file), 'utf8'));
      expect(copy.settings[file], `test/infra/spec-settings.json is stale for ${file}`).toEqual(live);
    }
  });
});

describe('infra wires every spec setting', () => {
  it.each(specSettingNames)('%s is an app setting of the Function App', (name) => {
    expect(appSettings.has(name), `${name} missing from the app settings in infra/*.bicep`).toBe(true);
  });

  it.each(secretSettings)('%s is resolved from Key Vault, not a plain value', (name) => {
    const value = appSettings.get(name) ?? '';
    expect(value).toContain('@Microsoft.KeyVault(SecretUri=');
  });

  it('references only Key Vault secrets the template declares', () => {
    const declared = declaredKeyVaultSecrets(bicep);
    const referenced = referencedKeyVaultSecrets(stripComments(bicep));
    expect(referenced.length).toBeGreaterThanOrEqual(secretSettings.length);
    for (const name of referenced)
      expect(declared, `secret ${name} is referenced but not declared`).toContain(name);
    // Key Vault secret names allow letters, digits and '-' only.
    for (const name of declared) expect(name).toMatch(/^[A-Za-z0-9-]{1,127}$/);
    expect(declared).toContain('postgres-admin-password');
  });

  it('gives every app setting a name App Service accepts', () => {
    for (const name of appSettings.keys()) expect(name).toMatch(/^[A-Za-z0-9_.]+$/);
  });

  it('sets none of the app settings Flex Consumption rejects', () => {
    for (const name of [
      'FUNCTIONS_WORKER_RUNTIME',
      'FUNCTIONS_EXTENSION_VERSION',
      'WEBSITE_NODE_DEFAULT_VERSION',
      'WEBSITE_RUN_FROM_PACKAGE',
      'WEBSITE_CONTENTAZUREFILECONNECTIONSTRING',
      'WEBSITE_CONTENTSHARE',
    ]) {
      expect(appSettings.has(name), name).toBe(false);
    }
  });
});

describe('infra hosts the app as the functions expect', () => {
  const code = stripComments(bicep);

  it('runs Node 22 on a Linux Flex Consumption plan with a system-assigned identity', () => {
    expect(code).toMatch(/runtime:\s*\{\s*name:\s*'node'\s*version:\s*'22'\s*\}/);
    expect(code).toMatch(/sku:\s*\{\s*name:\s*'FC1'\s*tier:\s*'FlexConsumption'\s*\}/);
    expect(code).toContain("kind: 'functionapp,linux'");
    expect(code).toMatch(/identity:\s*\{\s*type:\s*'SystemAssigned'\s*\}/);
    expect(code).toMatch(/maximumInstanceCount:\s*maximumInstanceCount\b/);
    expect(code).toMatch(/^param maximumInstanceCount int = \d+/m);
  });

  it('starts the Node worker with the flags of infra/worker-node-arguments.txt, which Node accepts', () => {
    expect(appSettings.get('languageWorkers__node__arguments')).toBe(
      "trim(loadTextContent('worker-node-arguments.txt'))",
    );
    const flags = readFileSync(path.join(repoRoot, 'infra/worker-node-arguments.txt'), 'utf8')
      .split(/\s+/)
      .filter(Boolean);
    // A misspelt flag would stop the worker from starting; a low heap cap would trade a peak for a crash.
    const run = spawnSync(process.execPath, [...flags, '-e', '0'], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(flags.some((f) => f.startsWith('--max-old-space-size'))).toBe(false);
  });

  it('declares the analysis-jobs queue and its poison queue, and tells the app the queue name', () => {
    const queueName = paramDefault(code, 'analysisQueueName');
    expect(queueName).toBe('analysis-jobs');
    expect(code).toMatch(/^var analysisPoisonQueueName = '\$\{analysisQueueName\}-poison'$/m);
    const queues = [
      ...code.matchAll(
        /'Microsoft\.Storage\/storageAccounts\/queueServices\/queues@[^']+'\s*=\s*\{([\s\S]*?)\n\}/g,
      ),
    ].map((m) => /^\s*name:\s*(\w+)/m.exec(m[1]!)?.[1]);
    expect(queues.sort()).toEqual(['analysisPoisonQueueName', 'analysisQueueName']);
    expect(appSettings.get('AnalysisQueue__Name')).toBe('analysisQueueName');
  });

  it('allow-lists pg_trgm on the PostgreSQL server before the app starts', () => {
    const config =
      /resource (\w+) 'Microsoft\.DBforPostgreSQL\/flexibleServers\/configurations@[^']+'\s*=\s*\{([\s\S]*?)\n\}/.exec(
        code,
      );
    expect(config?.[2]).toMatch(/^\s*parent:\s*postgres$/m);
    expect(config?.[2]).toMatch(/^\s*name:\s*'azure\.extensions'$/m);
    const value = /^\s*value:\s*'([^']*)'$/m.exec(config?.[2] ?? '')?.[1] ?? '';
    expect(value.split(',').map((v) => v.trim().toUpperCase())).toContain('PG_TRGM');
    const appSettingsDeps = /resource appSettings [\s\S]*?dependsOn:\s*\[([\s\S]*?)\]/.exec(code)?.[1] ?? '';
    expect(appSettingsDeps.split(/\s+/)).toContain(config?.[1]);
  });

  it('declares the import spool container the app writes to, and expires orphans in it', () => {
    const containers = [
      ...code.matchAll(
        /'Microsoft\.Storage\/storageAccounts\/blobServices\/containers@[^']+'\s*=\s*\{([\s\S]*?)\n\}/g,
      ),
    ].map((m) => /^\s*name:\s*'([^']+)'/m.exec(m[1]!)?.[1]);
    expect(containers).toContain(SPOOL_CONTAINER);
    const policy =
      /'Microsoft\.Storage\/storageAccounts\/managementPolicies@[^']+'\s*=\s*\{([\s\S]*?)\n\}/.exec(
        code,
      )?.[1];
    expect(policy).toContain(`prefixMatch: [ '${SPOOL_CONTAINER}/' ]`);
    expect(policy).toMatch(/delete: \{ daysAfterModificationGreaterThan: \d+ \}/);
  });

  it('grants the app identity the storage and Key Vault roles it needs', () => {
    for (const roleId of [
      'b7e6dc6d-f1e8-4753-8033-0f276bb0955b', // Storage Blob Data Owner
      '974c5e8b-45b9-4653-ba55-5f855dd0fb88', // Storage Queue Data Contributor
      '4633458b-17de-408a-b874-0445c86b69e6', // Key Vault Secrets User
    ]) {
      expect(code).toContain(roleId);
    }
    expect(code).toContain('enableRbacAuthorization: true');
  });

  it('has an example parameters file that lists exactly the template parameters', () => {
    const declared = [...code.matchAll(/^param (\w+) /gm)].map((m) => m[1]!).sort();
    const example = JSON.parse(
      readFileSync(path.join(repoRoot, 'infra/main.parameters.example.json'), 'utf8'),
    ) as {
      parameters: Record<string, { value: unknown }>;
    };
    expect(Object.keys(example.parameters).sort()).toEqual(declared);
  });

  // The queue trigger's source is written elsewhere; when it exists, its queue must be the one
  // the Bicep creates (a literal name or the %AnalysisQueue__Name% binding expression).
  const functionsDir = path.join(repoRoot, 'functions');
  const triggerSources = existsSync(functionsDir)
    ? readdirSync(functionsDir, { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.[cm]?ts$/.test(f))
        .map((f) => readFileSync(path.join(functionsDir, f), 'utf8'))
        .filter((text) => text.includes('storageQueue('))
    : [];
  it.skipIf(triggerSources.length === 0)('matches the queue name the queue trigger listens on', () => {
    const names = triggerSources.flatMap((text) =>
      [...text.matchAll(/queueName:\s*['"`]([^'"`]+)['"`]/g)].map((m) => m[1]!),
    );
    for (const name of names) expect(['analysis-jobs', '%AnalysisQueue__Name%']).toContain(name);
  });
});

describe('local.settings.sample.json', () => {
  const samplePath = path.join(repoRoot, 'local.settings.sample.json');
  const values = (): Record<string, unknown> => {
    expect(existsSync(samplePath), 'local.settings.sample.json is missing at the repository root').toBe(true);
    const sample = JSON.parse(readFileSync(samplePath, 'utf8')) as { Values?: Record<string, unknown> };
    return sample.Values ?? {};
  };

  it.each(specSettingNames)('lists %s in Values', (name) => {
    expect(Object.keys(values())).toContain(name);
  });

  it('lists every app setting the Bicep wires, except Azure-only storage and telemetry', () => {
    const missing = [...appSettings.keys()].filter((n) => !azureOnlySetting(n) && !(n in values()));
    expect(missing, `in infra but not in local.settings.sample.json: ${missing.join(', ')}`).toEqual([]);
  });
});
