import { Writable } from 'node:stream';
import { Agent } from '../src/agent.js';
import { type AgentConfig, loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import type { OutboxOptions } from '../src/outbox.js';
import { type FakeIngest, type IngestOptions, startFakeIngest } from './fakes/ingest-server.js';
import { type FakeCluster, type FakeKube, startFakeKube } from './fakes/kube-server.js';

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

export interface Harness {
  kube: FakeKube;
  ingest: FakeIngest;
  agent: Agent;
  logs: LogLine[];
  close(): Promise<void>;
}

export function baseEnv(kubeconfig: string, metricsApiUrl: string): Record<string, string> {
  return {
    KUBECONFIG: kubeconfig,
    CLUSTER_NAME: 'test-cluster',
    METRICS_API_URL: metricsApiUrl,
    NAMESPACES_TO_WATCH: 'shop, data',
    CLUSTER_ENVIRONMENT: 'DEV',
    LOG_LEVEL: 'Debug',
    // The one-object posts of the original ingest API; batch tests set INGEST_MODE themselves.
    INGEST_MODE: 'single',
  };
}

/** The real agent against a fake API server and a recording ingest server, both on loopback. */
export async function harness(
  cluster: FakeCluster,
  env: Record<string, string> = {},
  ingestOptions: IngestOptions = {},
  configure?: (config: AgentConfig) => void,
  outboxOptions: Partial<OutboxOptions> = {},
): Promise<Harness> {
  const kube = await startFakeKube(cluster);
  const ingest = await startFakeIngest(ingestOptions);
  const fullEnv = { ...baseEnv(kube.kubeconfig, ingest.url), ...env };
  const config = loadConfig(fullEnv);
  configure?.(config);
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const agent = await Agent.create(
    config,
    createLogger(config.logLevel, sink),
    fullEnv,
    undefined,
    outboxOptions,
  );
  return {
    kube,
    ingest,
    agent,
    logs,
    close: async () => {
      await agent.close();
      await Promise.all([kube.close(), ingest.close()]);
    },
  };
}

export function bodies(ingest: FakeIngest, path: string): Array<Record<string, unknown>> {
  return ingest.accepted.filter((r) => r.path === path).map((r) => r.body);
}
