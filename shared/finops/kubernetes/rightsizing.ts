/**
 * Request recommendations from observed usage, the way the Vertical Pod Autoscaler's recommender
 * derives its target: CPU at the 90th percentile of usage, memory at the 90th percentile of the
 * daily peaks, both with a 15 % safety margin; memory 1.2x after an OOM kill; never below VPA's
 * minimums (25 mCPU, 250 MiB). Pure: usage in, recommendation out.
 */

export const CPU_PERCENTILE = 0.9;
export const MEMORY_PERCENTILE = 0.9;
export const SAFETY_MARGIN = 0.15;
export const OOM_BUMP = 1.2;
export const MIN_CPU_CORES = 0.025;
/** VPA's default minimum memory (its `pod-recommendation-min-memory-mb` 250, in MiB). */
export const MIN_MEMORY_BYTES = 250 * 1024 * 1024;
export const HOURS_PER_MONTH = 730;

const DAY_MS = 86_400_000;

export interface UsageSample {
  /** Milliseconds since the epoch. */
  at: number;
  cpuCores: number;
  memoryBytes: number;
}

export interface ContainerUsage {
  namespace: string;
  workload: string;
  container: string;
  cpuRequestCores: number | null;
  memoryRequestBytes: number | null;
  samples: UsageSample[];
  oomKills: number;
  restarts: number;
}

export interface PoolRate {
  cpuPerCoreHour: number;
  memoryPerGiBHour: number;
}

export interface Recommendation {
  namespace: string;
  workload: string;
  container: string;
  current: { cpuCores: number | null; memoryBytes: number | null };
  recommended: { cpuCores: number; memoryBytes: number };
  /** Per month at the pool's billed rate; negative where the container needs more than it asks. */
  monthlySaving: number;
  kind: 'over-requested' | 'under-requested' | 'fits';
  evidence: {
    samples: number;
    days: number;
    cpuP50Cores: number;
    cpuP90Cores: number;
    cpuMaxCores: number;
    memoryDailyPeakP90Bytes: number;
    memoryMaxBytes: number;
    oomKills: number;
    restarts: number;
  };
}

/** The q-quantile of values, linearly interpolated between closest ranks. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** The highest memory of each UTC day that has samples. */
export function dailyPeaks(samples: readonly UsageSample[]): number[] {
  const peaks = new Map<number, number>();
  for (const s of samples) {
    const d = Math.floor(s.at / DAY_MS);
    peaks.set(d, Math.max(peaks.get(d) ?? 0, s.memoryBytes));
  }
  return [...peaks.values()];
}

/**
 * A change smaller than this share of the request is not worth a restart of the pods: it is
 * reported as `fits`.
 */
const FITS_WITHIN = 0.1;

export function recommend(c: ContainerUsage, rate: PoolRate): Recommendation {
  const cpu = c.samples.map((s) => s.cpuCores);
  const peaks = dailyPeaks(c.samples);
  const cpuP90 = quantile(cpu, CPU_PERCENTILE);
  const memP90 = quantile(peaks, MEMORY_PERCENTILE);
  const cpuTarget = Math.max(MIN_CPU_CORES, cpuP90 * (1 + SAFETY_MARGIN));
  const memTarget = Math.max(
    MIN_MEMORY_BYTES,
    memP90 * (1 + SAFETY_MARGIN) * (c.oomKills > 0 ? OOM_BUMP : 1),
  );
  const recommended = {
    cpuCores: Math.round(cpuTarget * 1000) / 1000,
    // whole MiB, as one would write it in a manifest
    memoryBytes: Math.ceil(memTarget / 1048576) * 1048576,
  };
  const cpuDelta = (c.cpuRequestCores ?? 0) - recommended.cpuCores;
  const memDelta = (c.memoryRequestBytes ?? 0) - recommended.memoryBytes;
  const monthlySaving =
    Math.round(
      (cpuDelta * rate.cpuPerCoreHour + (memDelta / 1024 ** 3) * rate.memoryPerGiBHour) *
        HOURS_PER_MONTH *
        100,
    ) / 100;
  const under =
    c.oomKills > 0 ||
    (c.cpuRequestCores ?? 0) < recommended.cpuCores * (1 - FITS_WITHIN) ||
    (c.memoryRequestBytes ?? 0) < recommended.memoryBytes * (1 - FITS_WITHIN);
  const over =
    (c.cpuRequestCores ?? 0) > recommended.cpuCores * (1 + FITS_WITHIN) ||
    (c.memoryRequestBytes ?? 0) > recommended.memoryBytes * (1 + FITS_WITHIN);
  const days = new Set(c.samples.map((s) => Math.floor(s.at / DAY_MS))).size;
  return {
    namespace: c.namespace,
    workload: c.workload,
    container: c.container,
    current: { cpuCores: c.cpuRequestCores, memoryBytes: c.memoryRequestBytes },
    recommended,
    monthlySaving,
    kind: under ? 'under-requested' : over ? 'over-requested' : 'fits',
    evidence: {
      samples: c.samples.length,
      days,
      cpuP50Cores: round4(quantile(cpu, 0.5)),
      cpuP90Cores: round4(cpuP90),
      cpuMaxCores: round4(cpu.reduce((m, x) => Math.max(m, x), 0)),
      memoryDailyPeakP90Bytes: Math.round(memP90),
      memoryMaxBytes: peaks.reduce((m, x) => Math.max(m, x), 0),
      oomKills: c.oomKills,
      restarts: c.restarts,
    },
  };
}

function round4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
