import { SentEvents } from './collectors/events.js';
import type { AgentConfig } from './config.js';
import { type CycleSummary, runCycle } from './cycle.js';
import type { HealthState } from './health.js';
import { IngestClient } from './ingest.js';
import { KubeClient, resolveKube, SERVICE_ACCOUNT_DIR } from './kube.js';
import type { Logger } from './logger.js';
import { runLoop } from './loop.js';

/** The agent without process concerns (env, signals, exit codes), so tests and the bench drive the real thing. */
export class Agent {
  readonly sentEvents = new SentEvents();

  private constructor(
    readonly config: AgentConfig,
    readonly kube: KubeClient,
    readonly ingest: IngestClient,
    private readonly log: Logger,
  ) {}

  static async create(
    config: AgentConfig,
    log: Logger,
    env: Record<string, string | undefined> = process.env,
    serviceAccountDir = SERVICE_ACCOUNT_DIR,
  ): Promise<Agent> {
    const target = await resolveKube(env, serviceAccountDir);
    const kube = new KubeClient(target, config.logConcurrency);
    await kube.refreshCredentials();
    log.info({ kubeconfig: target.source, server: target.server.href }, 'Kubernetes configuration loaded');
    const ingest = new IngestClient(
      config.metricsApiUrl,
      { concurrency: config.postConcurrency, timeoutMs: config.postTimeoutSeconds * 1000 },
      log,
    );
    return new Agent(config, kube, ingest, log);
  }

  /** Startup check of METRICS_API_URL (the API lives under a `/metrics` prefix). */
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
    return runCycle(this.config, this.kube, this.ingest, this.sentEvents, this.log, signal);
  }

  run(signal: AbortSignal, health?: HealthState): Promise<void> {
    signal.addEventListener('abort', () => this.ingest.stopAccepting(), { once: true });
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
    await this.ingest.close();
    await this.kube.close();
  }
}
