/**
 * Bench: a steady collection cycle (after a first, cold one, reported apart) for a fake cluster of 2,000 pods x 3 containers, 200 nodes and 5,000 events
 * with logs on, against the same sink as a bare posting loop.   npm run bench -w agent
 *
 * Three processes, so the fakes do not share the agent's event loop: the fake API server (TLS, with a
 * service-account directory, so the agent runs its in-cluster path), the ingest sink, and the agent itself,
 * compiled to JS and run with plain `node` like the image (tsx's loader thread alone costs ~35 MB of RSS).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { PAYLOAD_KINDS } from '../src/ingest.js';

const agentDir = fileURLToPath(new URL('..', import.meta.url));
const buildDir = 'dist/bench-build';
const AIMS = { cycleSeconds: 30, rssMb: 100, ratio: 1.5, batchToSingle: 0.5 };
const EXPECTED_POSTS = 2000 * 3 + 2000 * 3 + 200 + 200 + 5000;

interface Measured {
  ms: number;
  cpuMs: number;
  systemMs: number;
  gc: { ms: number; count: number };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function firstLine(child: ChildProcess, what: string): Promise<string> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

async function serve(
  role: 'kube' | 'ingest',
): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const child = spawn(process.execPath, [`${buildDir}/bench/servers.js`, role], {
    cwd: agentDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { child, info: JSON.parse(await firstLine(child, `${role} server`)) as Record<string, string> };
}

/** The node flags of the image's CMD, so the bench measures the agent as it ships. */
function imageNodeFlags(): string[] {
  const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(`${agentDir}Dockerfile`, 'utf8'))?.[1];
  const args = cmd ? (JSON.parse(cmd) as string[]) : [];
  return args.slice(1, -1);
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--outDir', buildDir, '--sourceMap', 'false'], {
  cwd: agentDir,
  stdio: 'inherit',
});

const loadAtStart = loadavg()[0] ?? 0;
const kube = await serve('kube');
const sink = await serve('ingest');
try {
  const nodeFlags = imageNodeFlags();
  const agent = spawn(process.execPath, [...nodeFlags, `${buildDir}/bench/agent-process.js`], {
    cwd: agentDir,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      PATH: process.env['PATH'] ?? '',
      KUBERNETES_SERVICE_HOST: kube.info['host'],
      KUBERNETES_SERVICE_PORT: kube.info['port'],
      BENCH_SERVICE_ACCOUNT_DIR: kube.info['serviceAccountDir'],
      CLUSTER_NAME: 'bench',
      METRICS_API_URL: sink.info['url'],
      NAMESPACES_TO_WATCH: Array.from({ length: 10 }, (_, i) => `team-${i}`).join(','),
      COLLECT_LOGS: 'true',
      LOG_LEVEL: 'Warning',
      // Knobs for experiments; unset means the agent's defaults, as in deploy/deployment.yaml.
      ...Object.fromEntries(
        ['POST_CONCURRENCY', 'LOG_CONCURRENCY', 'BENCH_CYCLES', 'BENCH_ROUNDS', 'BENCH_CPU_PROFILE']
          .filter((name) => process.env[name] !== undefined)
          .map((name) => [name, process.env[name]]),
      ),
    },
  });
  const result = JSON.parse(await firstLine(agent, 'agent')) as {
    summary: {
      posted: Record<string, number>;
      failed: Record<string, number>;
      steps?: unknown;
    };
    batchSummary: { ingest?: { batches?: { sent: number } } };
    first: Measured;
    firstBatch: Measured;
    rounds: Array<{
      cycle: Measured;
      batchCycle: Measured;
      steadyBatch: Measured;
      noLogs: { single: Measured; batch: Measured };
      bare: Measured;
    }>;
    peakRssMb: number;
    heapMb: number;
    rssAfterCycleMb: number[];
    perOperationCpuUs: { logRead: number; logPost: number };
  };
  const posts = PAYLOAD_KINDS.reduce((n, k) => n + (result.summary.posted[k] ?? 0), 0);
  const failed = PAYLOAD_KINDS.reduce((n, k) => n + (result.summary.failed[k] ?? 0), 0);
  const { rounds } = result;
  const cycleMs = median(rounds.map((r) => r.cycle.ms));
  const bareMs = median(rounds.map((r) => r.bare.ms));
  const cycleCpuMs = median(rounds.map((r) => r.cycle.cpuMs));
  const bareCpuMs = median(rounds.map((r) => r.bare.cpuMs));
  // Each round's cycle over the bare loop that ran right after it, then the median of those ratios.
  const ratio = median(rounds.map((r) => r.cycle.ms / r.bare.ms));
  const cpuRatio = median(rounds.map((r) => r.cycle.cpuMs / r.bare.cpuMs));
  // Batched over one-object posts, each round's pair (same cluster, same process, one after the other).
  const batchCpuMs = median(rounds.map((r) => r.batchCycle.cpuMs));
  const batchToSingle = median(rounds.map((r) => r.batchCycle.cpuMs / r.cycle.cpuMs));
  const steadyBatchCpuMs = median(rounds.map((r) => r.steadyBatch.cpuMs));
  const steadyToSingle = median(rounds.map((r) => r.steadyBatch.cpuMs / r.cycle.cpuMs));
  const noLogsSingleMs = median(rounds.map((r) => r.noLogs.single.cpuMs));
  const noLogsBatchMs = median(rounds.map((r) => r.noLogs.batch.cpuMs));
  const noLogsRatio = median(rounds.map((r) => r.noLogs.batch.cpuMs / r.noLogs.single.cpuMs));
  const loadAtEnd = loadavg()[0] ?? 0;
  console.log(
    JSON.stringify(
      {
        cluster:
          '2000 pods x 3 containers, 200 nodes, 200 PVCs, 5000 events, COLLECT_LOGS=true, LOG_TAIL_LINES=100',
        agentNodeFlags: nodeFlags,
        cpus: availableParallelism(),
        loadAverage1m: { start: +loadAtStart.toFixed(1), end: +loadAtEnd.toFixed(1) },
        posted: result.summary.posted,
        failed,
        steps: result.summary.steps,
        rounds: rounds.length,
        cycleSeconds: +(cycleMs / 1000).toFixed(2),
        postsPerSecond: Math.round(posts / (cycleMs / 1000)),
        peakRssMb: +result.peakRssMb.toFixed(1),
        heapUsedAfterCycleMb: +result.heapMb.toFixed(1),
        rssAfterEachCycleMb: result.rssAfterCycleMb,
        agentCpuSeconds: { cycle: cycleCpuMs / 1000, bareLoop: bareCpuMs / 1000 },
        // The same cycle posting batches (gzip, up to 5,000 records / 4 MiB each) instead of one object per
        // request, with the cost-allocation reads (ReplicaSets, PersistentVolumes) batches add.
        batched: {
          cycleCpuSeconds: batchCpuMs / 1000,
          oneObjectCycleCpuSeconds: cycleCpuMs / 1000,
          cpuRatioToOneObject: +batchToSingle.toFixed(2),
          cpuRatioEachRound: rounds.map((r) => +(r.batchCycle.cpuMs / r.cycle.cpuMs).toFixed(2)),
          // A running batching agent's later cycle: logs unchanged since they were delivered are read, not sent.
          steadyCycleCpuSeconds: steadyBatchCpuMs / 1000,
          steadyCpuRatioToOneObject: +steadyToSingle.toFixed(2),
          steadyCpuRatioEachRound: rounds.map((r) => +(r.steadyBatch.cpuMs / r.cycle.cpuMs).toFixed(2)),
          cycleSeconds: +(median(rounds.map((r) => r.batchCycle.ms)) / 1000).toFixed(2),
          batches: result.batchSummary.ingest?.batches?.sent,
          firstCycleCpuSeconds: result.firstBatch.cpuMs / 1000,
          // The 6,000 log reads cost the same either way: the least the batched cycle can cost with logs on.
          logReadsCpuSeconds: +(
            ((result.summary.posted['log'] ?? 0) * result.perOperationCpuUs.logRead) /
            1e6
          ).toFixed(2),
          // COLLECT_LOGS=false, the default: what batching saves when posting is most of the cycle.
          withoutLogs: {
            cycleCpuSeconds: noLogsBatchMs / 1000,
            oneObjectCycleCpuSeconds: noLogsSingleMs / 1000,
            cpuRatioToOneObject: +noLogsRatio.toFixed(2),
          },
        },
        // Main-thread GC pauses; under load they stretch with the machine, so read them as a share, not a cost.
        gcPauseMs: {
          cycle: median(rounds.map((r) => r.cycle.gc.ms)),
          bareLoop: median(rounds.map((r) => r.bare.gc.ms)),
        },
        gcCount: { cycle: rounds[0]?.cycle.gc.count, bareLoop: rounds[0]?.bare.gc.count },
        // The agent's first cycle after start, on code the JIT has not compiled yet (once per process).
        firstCycle: {
          seconds: +(result.first.ms / 1000).toFixed(2),
          cpuSeconds: result.first.cpuMs / 1000,
          ratio: +(result.first.ms / bareMs).toFixed(2),
          cpuRatio: +(result.first.cpuMs / bareCpuMs).toFixed(2),
        },
        bareLoopSeconds: +(bareMs / 1000).toFixed(2),
        ratio: +ratio.toFixed(2),
        // CPU seconds of the cycle over those of the bare loop: steadier than wall time on a shared machine.
        cpuRatio: +cpuRatio.toFixed(2),
        cpuRatioEachRound: rounds.map((r) => +(r.cycle.cpuMs / r.bare.cpuMs).toFixed(2)),
        // The least CPU each side needed in any round: load on a shared machine only ever adds to CPU time
        // (preemption, cold caches), so the minimums come closest to what the work itself costs.
        cpuRatioOfMinimums: +(
          Math.min(...rounds.map((r) => r.cycle.cpuMs)) / Math.min(...rounds.map((r) => r.bare.cpuMs))
        ).toFixed(2),
        // One log read and one log post alone, on the agent's clients (least of three batches of 2,000). The
        // cycle's log reads on their own put this floor under cpuRatioOfMinimums, before lists and payloads.
        perOperationCpuUs: result.perOperationCpuUs,
        cpuRatioFloorFromLogReads: +(
          1 +
          ((result.summary.posted['log'] ?? 0) * result.perOperationCpuUs.logRead) /
            1000 /
            Math.min(...rounds.map((r) => r.bare.cpuMs))
        ).toFixed(2),
        systemCpuSeconds: {
          cycle: median(rounds.map((r) => r.cycle.systemMs)) / 1000,
          bareLoop: median(rounds.map((r) => r.bare.systemMs)) / 1000,
        },
        aims: {
          cycleUnder30s: cycleMs / 1000 < AIMS.cycleSeconds,
          rssUnder100Mb: result.peakRssMb < AIMS.rssMb,
          cpuRatioUnder1_5: cpuRatio < AIMS.ratio,
          batchedAtMostHalfOfOneObject: batchToSingle <= AIMS.batchToSingle,
          batchedAtMostHalfOfOneObjectWithoutLogs: noLogsRatio <= AIMS.batchToSingle,
        },
      },
      null,
      2,
    ),
  );
  console.log(
    `agent bench: cycle ${(cycleMs / 1000).toFixed(2)} s, peak RSS ${result.peakRssMb.toFixed(1)} MB, ` +
      `CPU ratio ${cpuRatio.toFixed(2)}, wall ratio ${ratio.toFixed(2)}; ` +
      `cycle CPU batched ${(batchCpuMs / 1000).toFixed(2)} s vs one-object ${(cycleCpuMs / 1000).toFixed(2)} s, ` +
      `ratio ${batchToSingle.toFixed(2)}, a later cycle with unchanged logs ${(steadyBatchCpuMs / 1000).toFixed(2)} s, ratio ${steadyToSingle.toFixed(2)} (without logs ${(noLogsBatchMs / 1000).toFixed(2)} s vs ` +
      `${(noLogsSingleMs / 1000).toFixed(2)} s, ratio ${noLogsRatio.toFixed(2)}) ` +
      `(median of ${rounds.length} rounds; load average ${loadAtStart.toFixed(1)} -> ${loadAtEnd.toFixed(1)})`,
  );
  if (failed > 0 || posts !== EXPECTED_POSTS) process.exitCode = 1;
} finally {
  kube.child.kill();
  sink.child.kill();
}
