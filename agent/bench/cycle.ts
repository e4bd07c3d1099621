/**
 * One collection cycle of the real agent against a large fake cluster (2,000 pods x 3 containers, 200 nodes,
 * 5,000 events, logs on), then a bare loop posting the same number of payloads of the same kinds to the same
 * sink through the same HTTP client. The ratio isolates what collecting costs on top of posting.
 *   npm run bench -w agent
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent } from '../src/agent.js';
import { loadConfig } from '../src/config.js';
import { type Counts, IngestClient, PAYLOAD_KINDS, type PayloadKind } from '../src/ingest.js';
import { createLogger } from '../src/logger.js';

const agentDir = fileURLToPath(new URL('..', import.meta.url));
const AIMS = { cycleSeconds: 30, rssMb: 100, ratio: 1.5 };

async function serve(
  role: 'kube' | 'ingest',
): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers.ts', role], {
    cwd: agentDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${role} server exited with ${code}`)));
  });
  return { child, info: JSON.parse(first) as Record<string, string> };
}

const samples: Record<PayloadKind, object> = {
  pod: {
    clusterName: 'bench',
    namespace: 'team-1',
    pod: 'app-1-7d9f8c6b5-x1',
    container: 'c0',
    cpuUsageCores: 0.012345678,
    cpuLimitCores: 0.5,
    memoryUsageBytes: 83183616,
    memoryLimitBytes: 536870912,
    nodeName: 'node-1',
    podState: 'Running',
    restartCount: 0,
    podAge: 86400,
    usageSource: 'metrics',
    cpuRequestCores: 0.1,
    memoryRequestBytes: 134217728,
    containerState: 'running',
    containerRestartCount: 0,
  },
  log: {
    clusterName: 'bench',
    namespace: 'team-1',
    pod: 'app-1-7d9f8c6b5-x1',
    container: 'c0',
    logContent: '2026-01-05T10:00:00Z INFO request handled path=/api/items/1 status=200 ms=12\n'.repeat(100),
  },
  node: {
    clusterName: 'bench',
    nodeName: 'node-1',
    clusterEnvironment: 'PROD',
    cpuUsageCores: 2.345,
    cpuCapacityCores: 8,
    memoryUsageBytes: 12884901888,
    memoryCapacityBytes: 34359738368,
    kubernetesVersion: 'v1.30.4',
    cloudProvider: 'AKS',
    isReady: true,
    hasMemoryPressure: false,
    hasDiskPressure: false,
    hasPidPressure: false,
    architecture: 'amd64',
    operatingSystem: 'linux',
    region: 'westeurope',
    instanceType: 'Standard_D8s_v5',
    zone: 'westeurope-1',
    kubeletVersion: 'v1.30.4',
    usageSource: 'metrics',
  },
  event: {
    clusterName: 'bench',
    namespace: 'team-1',
    eventName: 'app-1.1',
    eventUid: 'ev-uid-1',
    involvedObjectKind: 'Pod',
    involvedObjectName: 'app-1',
    involvedObjectNamespace: 'team-1',
    eventType: 'Normal',
    reason: 'Pulled',
    message: 'Container image "registry.example.com/app:1.2.3" already present on machine',
    sourceComponent: 'kubelet',
    count: 1,
    firstTimestamp: '2026-01-04T10:00:00.000Z',
    lastTimestamp: '2026-01-04T10:00:00.000Z',
  },
};

async function bareLoop(url: string, counts: Counts, concurrency: number): Promise<number> {
  const log = createLogger('warn');
  const client = new IngestClient(url, { concurrency, timeoutMs: 10_000 }, log);
  const started = performance.now();
  for (const kind of PAYLOAD_KINDS) {
    for (let i = 0; i < counts[kind]; i++) await client.send(kind, samples[kind]);
    await client.flush();
  }
  const elapsed = performance.now() - started;
  const stats = client.takeStats();
  await client.close();
  const failed = PAYLOAD_KINDS.reduce((n, k) => n + stats.failed[k], 0);
  if (failed > 0) throw new Error(`bare loop: ${failed} posts failed`);
  return elapsed;
}

const kube = await serve('kube');
const sink = await serve('ingest');
try {
  const env = {
    KUBECONFIG: kube.info['kubeconfig'] ?? '',
    CLUSTER_NAME: 'bench',
    METRICS_API_URL: sink.info['url'] ?? '',
    NAMESPACES_TO_WATCH: Array.from({ length: 10 }, (_, i) => `team-${i}`).join(','),
    COLLECT_LOGS: 'true',
    LOG_LEVEL: 'Warning',
  };
  const config = loadConfig(env);
  const agent = await Agent.create(config, createLogger(config.logLevel), env);

  // Warm both servers' and this process's HTTP paths with a short bare loop so neither run pays for it.
  await bareLoop(config.metricsApiUrl, { pod: 200, log: 50, node: 20, event: 200 }, config.postConcurrency);

  const started = performance.now();
  const summary = await agent.runOnce();
  const cycleMs = performance.now() - started;
  const rssMb = process.resourceUsage().maxRSS / 1024;
  await agent.close();

  const posts = PAYLOAD_KINDS.reduce((n, k) => n + summary.posted[k], 0);
  const failed = PAYLOAD_KINDS.reduce((n, k) => n + summary.failed[k], 0);
  const bareMs = await bareLoop(config.metricsApiUrl, summary.posted, config.postConcurrency);
  const ratio = cycleMs / bareMs;

  const report = {
    cluster: '2000 pods x 3 containers, 200 nodes, 5000 events, COLLECT_LOGS=true, LOG_TAIL_LINES=100',
    posted: summary.posted,
    failed,
    cycleSeconds: +(cycleMs / 1000).toFixed(2),
    postsPerSecond: Math.round(posts / (cycleMs / 1000)),
    peakRssMb: +rssMb.toFixed(1),
    bareLoopSeconds: +(bareMs / 1000).toFixed(2),
    ratio: +ratio.toFixed(2),
    aims: {
      cycleUnder30s: cycleMs / 1000 < AIMS.cycleSeconds,
      rssUnder100Mb: rssMb < AIMS.rssMb,
      ratioUnder1_5: ratio < AIMS.ratio,
    },
  };
  console.log(JSON.stringify(report, null, 2));
  if (failed > 0 || posts !== 6000 + 6000 + 200 + 5000) process.exitCode = 1;
} finally {
  kube.child.kill();
  sink.child.kill();
}
