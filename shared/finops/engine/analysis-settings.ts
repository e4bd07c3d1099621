/**
 * What an analysis is given, assembled from the FinOps settings: the Azure access it collects
 * through, and the dependencies the orchestrator runs with. Read once per engine; nothing here runs
 * an analysis.
 */
import { readFileSync } from 'node:fs';
import type { CoreServices } from '../../app/services.js';
import type { FinopsSettings } from '../../config/finops.js';
import { databaseTimeouts } from '../../db/timeouts.js';
import type { Logger } from '../../observability/logger.js';
import { type AzureAccess, createAzureAccess } from '../azure/index.js';
import type { KubernetesUsageSource } from '../kubernetes/usage-source.js';
import type { Clock } from './clock.js';
import { PermanentAnalysisError } from './errors.js';
import type { AnalysisDeps } from './orchestrator.js';

export interface SettingsDto {
  costQueryType: 'ActualCost' | 'AmortizedCost';
  costQueryTypeLabel: 'Actual' | 'Amortized';
  costQueryTypeDescription: string;
}

/**
 * The Azure access of the Cloud__* settings. Without credentials no retry can help, so the error is
 * permanent (the job fails at once rather than going round the queue).
 */
export function azureAccessFromSettings(f: FinopsSettings, log: Logger): AzureAccess {
  if (!f.Cloud__TenantId || !f.Cloud__ClientId || !f.Cloud__ClientSecret) {
    throw new PermanentAnalysisError(
      'Azure access is not configured: set Cloud__TenantId, Cloud__ClientId and Cloud__ClientSecret.',
    );
  }
  return createAzureAccess({
    tenantId: f.Cloud__TenantId,
    clientId: f.Cloud__ClientId,
    clientSecret: f.Cloud__ClientSecret,
    ...(f.Cloud__ArmEndpoint ? { armEndpoint: f.Cloud__ArmEndpoint } : {}),
    ...(f.Cloud__AuthorityHost ? { authorityHost: f.Cloud__AuthorityHost } : {}),
    ...(f.Cloud__CaFile ? { ca: readFileSync(f.Cloud__CaFile, 'utf8') } : {}),
    costQueryType: f.Cloud__CostQueryType,
    paceScale: f.CostQuery__PaceScale,
    costPacing: f.CostQuery__Pacing,
    requestTimeoutMs: f.Cloud__RequestTimeoutSeconds * 1000,
    logger: {
      info: (meta, msg) => log.info(meta, msg),
      warn: (meta, msg) => log.warn(meta, msg),
      debug: (meta, msg) => log.debug(meta, msg),
    },
  });
}

/** The PostgreSQL URL analyses write through, when the database is PostgreSQL (see persist.ts). */
export function postgresUrlOf(core: CoreServices): string | undefined {
  return core.db.kind === 'postgres'
    ? core.config.platform.ConnectionStrings__SqlConnectionString
    : undefined;
}

/** The orchestrator's dependencies: the settings of every step, the given Azure access and clock. */
export function analysisDeps(
  core: CoreServices,
  azure: AzureAccess,
  now: Clock,
  kubernetesUsage: (() => KubernetesUsageSource) | undefined,
): AnalysisDeps {
  const f = core.config.finops;
  return {
    azure,
    prisma: core.prisma,
    log: core.log,
    now,
    costQueryType: f.Cloud__CostQueryType,
    intel: { sensitivity: f.Anomalies__Sensitivity, minImpact: f.Anomalies__MinImpact },
    ...(kubernetesUsage
      ? {
          kubernetes: {
            usage: kubernetesUsage,
            sharedNamespaces: f.KubernetesCost__SharedNamespaces.filter((n) => n.toLowerCase() !== 'none'),
            shareMode: f.KubernetesCost__ShareMode,
          },
        }
      : {}),
    ageThresholds: {
      unattachedDiskMinAgeDays: f.Waste__UnattachedDiskMinAgeDays,
      deallocatedVmMinAgeDays: f.Waste__DeallocatedVmMinAgeDays,
    },
    postgresUrl: postgresUrlOf(core),
    postgresTimeouts: databaseTimeouts(core.config.platform),
    ...(f.AI__ApiUrl
      ? {
          ai: {
            url: f.AI__ApiUrl,
            apiKey: f.AI__ApiKey,
            headerName: f.AI__ApiKeyHeaderName,
            timeoutMs: f.AI__TimeoutSeconds * 1000,
            paceScale: f.CostQuery__PaceScale,
            now,
          },
        }
      : {}),
  };
}

/** GET /Analysis/settings: which cost the analyses read, in words. */
export function costQuerySettings(costQueryType: FinopsSettings['Cloud__CostQueryType']): SettingsDto {
  return costQueryType === 'AmortizedCost'
    ? {
        costQueryType: 'AmortizedCost',
        costQueryTypeLabel: 'Amortized',
        costQueryTypeDescription:
          'Amortized cost: reservation and savings-plan purchases are spread over their commitment term.',
      }
    : {
        costQueryType: 'ActualCost',
        costQueryTypeLabel: 'Actual',
        costQueryTypeDescription:
          'Actual cost: charges as they are billed, purchases on the day they are made.',
      };
}
