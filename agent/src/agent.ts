import { SentEvents } from './collectors/events.js';
import { SentLogs } from './collectors/logs.js';
import type { AgentConfig } from './config.js';
import type { Refusals } from './cost-fields.js';
import { type CycleSummary, runCycle } from './cycle.js';
import { Delivery } from './delivery.js';
import type { HealthState } from './health.js';
import { KubeClient, resolveKube, SERVICE_ACCOUNT_DIR } from './kube.js';
import type { Logger } from './logger.js';
import { runLoop } from './loop.js';
import type { OutboxOptions } from './outbox.js';

/** The agent without process concerns (env, signals, exit codes), so tests and the bench drive the real thing. */
export class Agent {
  readonly sentEvents = new SentEvents();
  readonly sentLogs = new SentLogs();
  /** Lists RBAC refused (403), so each refusal is logged once, not every cycle. */
  private readonly refusals: Refusals = new Set();

  private constructor(
    readonly config: AgentConfig,
    readonly kube: KubeClient,
    readonly delivery: Delivery,
    private readonly log: Logger,
  ) {}

  static async create(
    config: AgentConfig,
    log: Logger,
    env: Record<string, string | undefined> = process.env,
    serviceAccountDir = SERVICE_ACCOUNT_DIR,
    /** Tests and the bench shorten the outbox's waits. */
    outboxOptions: Partial<OutboxOptions> = {},
  ): Promise<Agent> {
    const target = await resolveKube(env, serviceAccountDir);
    const kube = new KubeClient(target, config.logConcurrency);
    await kube.refreshCredentials();
    log.info({ kubeconfig: target.source, server: target.server.href }, 'Kubernetes configuration loaded');
    const delivery = new Delivery(config, log, outboxOptions);
    log.info(delivery.describe(), `ingest mode: ${delivery.describe().mode}`);
    return new Agent(config, kube, delivery, log);
  }

  /** The one-object client (also the version probe's). */
  get ingest() {
    return this.delivery.ingest;
  }

  /** Startup check of METRICS_API_URL (the ingest API lives under a `/metrics` route prefix). */
  async probeIngest(): Promise<void> {
    const url = `${this.config.metricsApiUrl}/api/Version`;
    const result = await this.ingest.probeVersion();
    if ('error' in result) {
      this.log.warn({ url, err: result.error }, 'ingest API not reachable yet; the agent keeps trying');
    } else if (result.status === 404) {
      this.log.error(
        { url, status: 404 },
        'ingest API answered 404 on /api/Version: METRICS_API_URL probably lacks the route prefix, ' +
          'it usually ends in /metrics (e.g. http://alerthawk-metrics-api.<ns>.svc.cluster.local:8080/metrics)',
      );
    } else if (result.status >= 200 && result.status < 300) {
      this.log.info({ url, version: result.body.replace(/"/g, '').trim() }, 'ingest API reachable');
    } else {
      this.log.warn({ url, status: result.status }, 'ingest API version probe failed');
    }
  }

  runOnce(signal: AbortSignal = new AbortController().signal): Promise<CycleSummary> {
    return runCycle(
      {
        config: this.config,
        kube: this.kube,
        delivery: this.delivery,
        sentEvents: this.sentEvents,
        sentLogs: this.sentLogs,
        refusals: this.refusals,
        log: this.log,
      },
      signal,
    );
  }

  run(signal: AbortSignal, health?: HealthState): Promise<void> {
    if (health) health.ingest = () => this.delivery.status();
    signal.addEventListener('abort', () => this.delivery.stopAccepting(), { once: true });
    return runLoop(
      () => this.runOnce(signal),
      {
        intervalMs: this.config.intervalSeconds * 1000,
        onCycleStart: () => health?.cycleStarted(),
        onCycleEnd: () => health?.cycleEnded(),
      },
      this.log,
      signal,
    );
  }

  async close(): Promise<void> {
    await this.delivery.close();
    await this.kube.close();
  }
}
