/**
 * The measured process of the bench (compiled to JS and run with plain `node`, as the image runs the
 * agent): one cycle of the real agent in in-cluster mode, then a bare loop posting the same number of
 * payloads of each kind to the same sink through the same HTTP client. Prints one JSON line.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { Agent } from '../src/agent.js';
import { type IngestMode, loadConfig } from '../src/config.js';
import { type Counts, IngestClient, PAYLOAD_KINDS } from '../src/ingest.js';
import { KubeClient, resolveKube } from '../src/kube.js';
import { createLogger } from '../src/logger.js';
import { samples } from './samples.js';

async function bareLoop(url: string, counts: Counts, concurrency: number): Promise<number> {
  const client = new IngestClient(url, { concurrency, timeoutMs: 10_000 }, createLogger('warn'));
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

const env = { ...process.env };
const config = loadConfig(env);
/** A fresh agent posting one object per request (`single`) or batches (`batch`). */
const newAgent = (mode: IngestMode = 'single', collectLogs = config.collectLogs): Promise<Agent> =>
  Agent.create(
    { ...config, ingestMode: mode, collectLogs },
    createLogger(config.logLevel),
    env,
    env['BENCH_SERVICE_ACCOUNT_DIR'],
  );

// Warm this process's HTTP paths and the sink with a short bare loop so neither measured run pays for it.
await bareLoop(
  config.metricsApiUrl,
  { pod: 200, log: 50, node: 20, pvc: 20, event: 200 },
  config.postConcurrency,
);

/** BENCH_CPU_PROFILE=<prefix>: V8 CPU profiles of the steady cycle and of the bare loop, for `--cpu-prof`-style reading. */
const profilePrefix = env['BENCH_CPU_PROFILE'];
const profiler = profilePrefix ? new Session() : undefined;
async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  if (!profiler) return run();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
  await profiler.post('Profiler.start');
  await profiler.post('HeapProfiler.startSampling', {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  try {
    return await run();
  } finally {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(`${profilePrefix}-${name}.cpuprofile`, JSON.stringify(profile));
    const heap = await profiler.post('HeapProfiler.stopSampling');
    writeFileSync(`${profilePrefix}-${name}.heapprofile`, JSON.stringify(heap.profile));
    profiler.disconnect();
  }
}

const cpu = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return Math.round((used.user + used.system) / 1000);
};

/** Garbage-collection pauses on the main thread, so the bench can say how much of a run's CPU they are. */
const gcTotal = { ms: 0, count: 0 };
const addGc = (entries: PerformanceEntry[]): void => {
  for (const entry of entries) {
    gcTotal.ms += entry.duration;
    gcTotal.count++;
  }
};
const gcObserver = new PerformanceObserver((list) => addGc(list.getEntries()));
gcObserver.observe({ entryTypes: ['gc'] });
const gcMark = (): { ms: number; count: number } => {
  addGc(gcObserver.takeRecords());
  return { ...gcTotal };
};
const gcSince = (at: { ms: number; count: number }): { ms: number; count: number } => {
  const now = gcMark();
  return { ms: Math.round(now.ms - at.ms), count: now.count - at.count };
};

interface Measured {
  ms: number;
  cpuMs: number;
  /** The kernel's share of cpuMs: system calls, loopback TCP and TLS socket I/O. */
  systemMs: number;
  gc: { ms: number; count: number };
}

async function measure<T>(run: () => Promise<T>): Promise<{ result: T; measured: Measured }> {
  const cpuAt = process.cpuUsage();
  const gcAt = gcMark();
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  const systemMs = Math.round(process.cpuUsage(cpuAt).system / 1000);
  return { result, measured: { ms, cpuMs: cpu(cpuAt), systemMs, gc: gcSince(gcAt) } };
}

/**
 * The first cycle after start runs on cold code (the JIT has not compiled the list, log and payload paths
 * yet); every later cycle of a running agent is warm. The first is measured once; then BENCH_ROUNDS rounds
 * (default 3) each run a steady cycle with a fresh agent, whose empty event memory makes it post the same
 * 5,000 events again, followed by the bare loop. Pairing each cycle with the loop right after it keeps a
 * change in the machine's load from landing on one side of a ratio only. Each agent is closed and dropped
 * before the next starts, as a running agent holds one.
 */
let agent: Agent | undefined = await newAgent();
const first = await measure(() => (agent as Agent).runOnce());
await agent.close();
agent = await newAgent('batch');
const firstBatch = await measure(() => (agent as Agent).runOnce());
await agent.close();
agent = undefined;

const rounds = Math.max(1, Number(env['BENCH_ROUNDS'] ?? '3'));
// Optional soak in the first round: more cycles against the same cluster, to see whether memory stays flat.
const extraCycles = Math.max(0, Number(env['BENCH_CYCLES'] ?? '1') - 1);
interface Round {
  cycle: Measured;
  batchCycle: Measured;
  /** The batching agent's second cycle: unchanged logs read but not sent. */
  steadyBatch: Measured;
  /** The same pair with COLLECT_LOGS=false (the agent's default): no log reads, which batching cannot save. */
  noLogs: { single: Measured; batch: Measured };
  bare: Measured;
}
const measuredRounds: Round[] = [];
/** One cycle of a fresh agent, measured, then the agent closed. */
async function cycleOf(mode: IngestMode, collectLogs: boolean): Promise<Measured> {
  const fresh = await newAgent(mode, collectLogs);
  const { measured } = await measure(() => fresh.runOnce());
  await fresh.close();
  return measured;
}
let steadySummary = first.result;
let batchSummary = firstBatch.result;
let heapMb = 0;
const rssAfterCycleMb: number[] = [];
for (let round = 0; round < rounds; round++) {
  agent = await newAgent();
  const steady = agent;
  const cycle = await measure(() =>
    round === 0 ? profiled('cycle', () => steady.runOnce()) : steady.runOnce(),
  );
  if (JSON.stringify(first.result.posted) !== JSON.stringify(cycle.result.posted)) {
    throw new Error('the first and a steady cycle posted different counts');
  }
  if (round === 0) {
    steadySummary = cycle.result;
    heapMb = process.memoryUsage().heapUsed / 1048576;
    rssAfterCycleMb.push(Math.round(process.memoryUsage().rss / 1048576));
    for (let i = 0; i < extraCycles; i++) {
      await steady.runOnce();
      rssAfterCycleMb.push(Math.round(process.memoryUsage().rss / 1048576));
    }
  }
  await agent.close();
  // The same cycle posting batches, with a fresh agent too (its event memory empty, so the same events).
  agent = await newAgent('batch');
  const batching = agent;
  const batchCycle = await measure(() =>
    round === 0 ? profiled('batch-cycle', () => batching.runOnce()) : batching.runOnce(),
  );
  if (JSON.stringify(batchCycle.result.posted) !== JSON.stringify(cycle.result.posted)) {
    throw new Error('the batched and the one-object cycle delivered different counts');
  }
  if (round === 0) batchSummary = batchCycle.result;
  // The same batching agent's next cycle, as a running agent's every cycle after its first: logs that have
  // not changed since they were delivered are read but not sent again (this cluster's logs never change, so
  // none is sent: the least a steady batched cycle costs). Its event memory is emptied first, so it sends
  // the 5,000 events again like the one-object cycle it is compared with.
  for (const namespace of config.namespaces) batching.sentEvents.retainOnly(namespace, new Set());
  const steadyBatch = await measure(() => batching.runOnce());
  await agent.close();
  agent = undefined;
  const posted = cycle.result.posted;
  const bare = await measure(() =>
    round === 0
      ? profiled('bare', () => bareLoop(config.metricsApiUrl, posted, config.postConcurrency))
      : bareLoop(config.metricsApiUrl, posted, config.postConcurrency),
  );
  const noLogs = { single: await cycleOf('single', false), batch: await cycleOf('batch', false) };
  measuredRounds.push({
    cycle: cycle.measured,
    batchCycle: batchCycle.measured,
    steadyBatch: steadyBatch.measured,
    noLogs,
    bare: bare.measured,
  });
}
/**
 * What one log read and one post cost alone, on the agent's own clients: the cycle makes 6,000 of the former
 * on top of the bare loop's posts, so a read's cost against the loop's bounds the ratio from below.
 * The least CPU per operation over three batches (see cpuRatioOfMinimums in cycle.ts).
 */
async function perOperationCpuUs(): Promise<{ logRead: number; logPost: number }> {
  const batch = 2000;
  const kube = new KubeClient(
    await resolveKube(env, env['BENCH_SERVICE_ACCOUNT_DIR']),
    config.logConcurrency,
  );
  await kube.refreshCredentials();
  const ingest = new IngestClient(
    config.metricsApiUrl,
    { concurrency: config.postConcurrency, timeoutMs: 10_000 },
    createLogger('warn'),
  );
  const reads = async (): Promise<void> => {
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < batch; i = next++) {
        await kube.readLog(
          `team-${i % 10}`,
          `app-${i}-7d9f8c6b5-x${i}`,
          'c0',
          config.logTailLines,
          config.logMaxBytes,
        );
      }
    };
    await Promise.all(Array.from({ length: config.logConcurrency }, worker));
  };
  const posts = async (): Promise<void> => {
    for (let i = 0; i < batch; i++) await ingest.send('log', samples.log);
    await ingest.flush();
  };
  const least = { logRead: Number.POSITIVE_INFINITY, logPost: Number.POSITIVE_INFINITY };
  for (let round = 0; round < 3; round++) {
    for (const [name, run] of [
      ['logRead', reads],
      ['logPost', posts],
    ] as const) {
      const cpuAt = process.cpuUsage();
      await run();
      least[name] = Math.min(least[name], (cpu(cpuAt) * 1000) / batch);
    }
  }
  await kube.close();
  await ingest.close();
  return { logRead: Math.round(least.logRead), logPost: Math.round(least.logPost) };
}
const perOperation = await perOperationCpuUs();

console.log(
  JSON.stringify({
    perOperationCpuUs: perOperation,
    summary: steadySummary,
    batchSummary,
    first: first.measured,
    firstBatch: firstBatch.measured,
    rounds: measuredRounds,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    heapMb,
    rssAfterCycleMb,
  }),
);
