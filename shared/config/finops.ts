import { z } from 'zod';
import { ncrontabError } from '../app/ncrontab.js';
import {
  bool,
  GUID,
  GUID_TEXT,
  int,
  list,
  num,
  optionalBool,
  optionalString,
  stringWithDefault,
  url,
} from './fields.js';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** Settings of the FinOps service: the original's names (docs/settings.md) and finwatch's own. */
export const finopsSettingsSchema = z.object({
  Cloud__TenantId: optionalString(),
  Cloud__ClientId: optionalString(),
  Cloud__ClientSecret: optionalString(),
  Cloud__SubscriptionIds: list().pipe(
    z.array(
      z
        .string()
        .regex(GUID, 'every entry must be a subscription GUID')
        .transform((s) => s.toLowerCase()),
    ),
  ) as unknown as z.ZodType<string[]>,
  Cloud__CostQueryType: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() ? v.trim() : 'ActualCost'),
    z.enum(['ActualCost', 'AmortizedCost'], { error: 'must be ActualCost or AmortizedCost' }),
  ),
  /** Azure Resource Manager endpoint; the simulator's URL in local runs and tests. */
  Cloud__ArmEndpoint: url(),
  /** Entra ID authority host; the simulator's URL in local runs and tests. */
  Cloud__AuthorityHost: url(),
  /**
   * Optional PEM file of an extra CA to trust for Cloud__ArmEndpoint and Cloud__AuthorityHost
   * (the Azure simulator's self-signed certificate, dev/azure-sim/tls/sim-cert.pem). Unset: system CAs.
   */
  Cloud__CaFile: optionalString(),
  /**
   * One Azure request (token, subscriptions, Resource Graph, Cost Management), per attempt. 100 s is
   * .NET's HttpClient default, which the original's SDK clients ran with.
   */
  Cloud__RequestTimeoutSeconds: int(100, 1, 3600),
  CostQuery__PaceScale: num(1, 0, 10),
  /**
   * quota: cost queries wait only for the room Cost Management's QPU headers report (no 429s, no
   * idle time); fixed: also the original's fixed pauses (15–25 s before the history, 8–12 s a page).
   */
  CostQuery__Pacing: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() ? v.trim().toLowerCase() : 'quota'),
    z.enum(['quota', 'fixed'], { error: 'must be quota or fixed' }),
  ),
  /**
   * How often a running analysis job records a heartbeat, in seconds. A `running` job whose
   * heartbeat is older than four intervals is treated as abandoned (its host stopped): a redelivered
   * queue message restarts it, a sync job is marked failed.
   */
  AnalysisJobs__HeartbeatSeconds: int(15, 1, 600),
  /**
   * How long POST /Analysis/start waits for its analysis (including the wait behind a running
   * one) before it answers 202 with the job instead. Azure ends any HTTP response after 230 s, so
   * the bound stays below it.
   */
  AnalysisStart__MaxWaitSeconds: int(200, 1, 225),
  WeeklyAnalysis__Enabled: bool(true),
  WeeklyAnalysis__DayOfWeekUtc: z.preprocess(
    (v) => {
      const s = typeof v === 'string' ? v.trim() : '';
      if (!s) return 'Sunday';
      return DAYS.find((d) => d.toLowerCase() === s.toLowerCase()) ?? s;
    },
    z.enum(DAYS, { error: 'must be an English day name (Sunday … Saturday)' }),
  ),
  WeeklyAnalysis__HourUtc: int(2, 0, 23),
  WeeklyAnalysis__MinuteUtc: int(0, 0, 59),
  AI__ApiUrl: url(),
  AI__ApiKey: optionalString(),
  AI__ApiKeyHeaderName: stringWithDefault('x-api-key'),
  AI__TimeoutSeconds: int(600, 1, 3600),
  /** Robust z-score a day must reach to be a spike or drop (docs/anomalies.md); higher: fewer. */
  Anomalies__Sensitivity: num(4, 1, 50),
  /** Smallest daily cost difference, in the run's currency, an anomaly must have to be stored. */
  Anomalies__MinImpact: num(10, 0, 1_000_000_000),
  /** How often each instance looks for notifications to send, in seconds. */
  Notifications__PollSeconds: int(15, 1, 3600),
  /** Attempts per notification before it is marked failed (backoff 10 s doubling, at most 1 h). */
  Notifications__MaxAttempts: int(8, 1, 50),
  /**
   * Whether webhook channels may point at loopback, private, link-local, CGNAT, unspecified or
   * multicast addresses. Unset: only in Development (docs/anomalies.md, Notifications).
   */
  Notifications__AllowPrivateTargets: optionalBool(),
  /**
   * Days a flag must have been seen before an unattached disk or a deallocated VM counts as waste;
   * younger ones are listed with status "watch" (Advisor and the Optimization Engine also wait 30).
   */
  Waste__UnattachedDiskMinAgeDays: int(30, 0, 3650),
  Waste__DeallocatedVmMinAgeDays: int(30, 0, 3650),
  /**
   * The storage container Cost Management's scheduled exports write to (https URL; a SAS in it is
   * used as given, otherwise the app's managed identity reads). Unset: no scheduled import.
   */
  CostExports__ContainerUrl: url(),
  /** When the export container is looked at for new export runs (NCRONTAB, six fields, UTC). */
  CostExports__Schedule: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() ? v.trim() : '0 30 */6 * * *'),
    z.string().superRefine((v, ctx) => {
      const problem = ncrontabError(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ),
  /**
   * exportName=subscriptionGuid pairs: an export listed here is imported for that subscription only
   * (its rows that name no subscription are that one's); an export not listed is imported for every
   * subscription its rows name.
   */
  CostExports__Subscriptions: list().pipe(
    z.array(
      z
        .string()
        .regex(new RegExp(`^[^=]+=${GUID_TEXT}$`, 'i'), 'every entry must be exportName=subscriptionGuid'),
    ),
  ) as unknown as z.ZodType<string[]>,
  /** Namespaces whose cost is spread over the others in the Kubernetes cost allocation. */
  KubernetesCost__SharedNamespaces: list(['kube-system']),
  /** How shared namespaces are spread: by the others' cost (weighted) or equally per namespace (even). */
  KubernetesCost__ShareMode: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() ? v.trim().toLowerCase() : 'weighted'),
    z.enum(['weighted', 'even'], { error: 'must be weighted or even' }),
  ),
  /** Days of usage a rightsizing recommendation is drawn from. */
  KubernetesCost__RightsizingWindowDays: int(7, 1, 90),
  /** Whether to start the Azure simulator when no Cloud credentials are set (npm start). */
  AzureSimulator__Enabled: bool(true),
});

export type FinopsSettings = z.infer<typeof finopsSettingsSchema>;
export const WEEK_DAYS = DAYS;
