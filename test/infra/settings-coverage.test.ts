// The deployed app's wiring in infra/*.bicep, read as text (no Bicep compiler exists on the
// development machines). Which setting names the template sets is compared with the
// configuration schema as data in test/config/settings.test.ts.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueTrigger } from '../../shared/app/triggers.js';
import { loadConfig } from '../../shared/config/index.js';
import { SPOOL_CONTAINER } from '../../shared/finops/imports/spool.js';
import {
  declaredKeyVaultSecrets,
  paramDefault,
  parseAppSettings,
  readInfraBicep,
  referencedKeyVaultSecrets,
  repoRoot,
  stripComments,
} from './bicep-source.js';

const bicep = readInfraBicep();
const appSettings = parseAppSettings(bicep);

// Secrets that must live in Key Vault: their app settings must be Key Vault references.
const secretSettings = [
  'ConnectionStrings__SqlConnectionString',
  'Jwt__Key',
  'MOBILE_API_KEY',
  'Cloud__ClientSecret',
  'CloudAd__ClientSecret',
  'AI__ApiKey',
  'smtpPassword',
  'SENDGRID_API_KEY',
  'Metrics__ClickHousePassword',
];

describe('infra keeps the secrets in Key Vault', () => {
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

  it('creates the queue the queue trigger listens on with the default settings', () => {
    const config = loadConfig({ WEBAPP_ENVIRONMENT: 'Development', DATA_DIR: 'memory://' });
    expect(queueTrigger(config).queueName).toBe(paramDefault(code, 'analysisQueueName'));
  });
});
