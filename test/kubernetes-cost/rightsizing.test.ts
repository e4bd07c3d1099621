import { describe, expect, it } from 'vitest';
import {
  type ContainerUsage,
  recommend,
  type UsageSample,
} from '../../shared/finops/kubernetes/rightsizing.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const HOUR = 3_600_000;
const START = Date.UTC(2026, 10, 1);
const rate = { cpuPerCoreHour: 0.04, memoryPerGiBHour: 0.005 };

function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s + 0.5) / 2147483648;
  };
}

/** One sample a minute for `days` days. */
function samples(days: number, cpu: () => number, mem: (dayIndex: number) => number): UsageSample[] {
  const out: UsageSample[] = [];
  for (let m = 0; m < days * 1440; m++) {
    out.push({ at: START + m * 60_000, cpuCores: cpu(), memoryBytes: mem(Math.floor(m / 1440)) });
  }
  return out;
}

function usage(o: Partial<ContainerUsage>): ContainerUsage {
  return {
    namespace: 'shop',
    workload: 'Deployment/api',
    container: 'api',
    cpuRequestCores: 1,
    memoryRequestBytes: 2 * GiB,
    samples: [],
    oomKills: 0,
    restarts: 0,
    ...o,
  };
}

const within10 = (actual: number, expected: number) => {
  expect(Math.abs(actual - expected) / expected).toBeLessThanOrEqual(0.1);
};

describe('rightsizing recommendations (VPA-like)', () => {
  it('CPU: 90th percentile of an exponential usage with a 15 % margin', () => {
    // Exponential with mean 0.2 core: p90 = -ln(0.1) * 0.2 = 0.4605 cores.
    const r = rng(3);
    const s = samples(
      7,
      () => -Math.log(r()) * 0.2,
      () => 300 * MiB,
    );
    const rec = recommend(usage({ samples: s }), rate);
    within10(rec.recommended.cpuCores, -Math.log(0.1) * 0.2 * 1.15);
    within10(rec.evidence.cpuP90Cores, 0.4605);
  });

  it('CPU: uniform usage between 0.1 and 0.5 core', () => {
    const r = rng(11);
    const s = samples(
      7,
      () => 0.1 + 0.4 * r(),
      () => 300 * MiB,
    );
    const rec = recommend(usage({ samples: s }), rate);
    within10(rec.recommended.cpuCores, (0.1 + 0.4 * 0.9) * 1.15);
  });

  it('memory: from the daily peaks, not from the typical sample', () => {
    // Usage mostly 400 MiB with a daily spike; the peak of day d is 600 + 40 d MiB (7 days).
    const s = samples(
      7,
      () => 0.1,
      () => 400 * MiB,
    );
    for (let d = 0; d < 7; d++) s[d * 1440 + 600]!.memoryBytes = (600 + 40 * d) * MiB;
    const rec = recommend(usage({ samples: s }), rate);
    // p90 of {600,640,...,840} by interpolation: 840 - 0.4*40 = 816 MiB; +15 %.
    within10(rec.recommended.memoryBytes, 816 * MiB * 1.15);
    expect(rec.evidence.memoryMaxBytes).toBe(840 * MiB);
    expect(rec.evidence.days).toBe(7);
  });

  it('memory: normal daily peaks around 1 GiB', () => {
    // Peaks ~ N(1024 MiB, 100 MiB) over 60 days: p90 = 1024 + 1.2816 * 100 MiB.
    const r = rng(9);
    const normal = () => Math.sqrt(-2 * Math.log(r())) * Math.cos(2 * Math.PI * r());
    const s: UsageSample[] = [];
    for (let d = 0; d < 60; d++) {
      const peak = (1024 + 100 * normal()) * MiB;
      for (let h = 0; h < 24; h++) {
        s.push({ at: START + (d * 24 + h) * HOUR, cpuCores: 0.2, memoryBytes: h === 13 ? peak : 500 * MiB });
      }
    }
    const rec = recommend(usage({ samples: s }), rate);
    within10(rec.recommended.memoryBytes, (1024 + 1.2816 * 100) * MiB * 1.15);
  });

  it('an OOM kill raises memory by 1.2 and lists the container as a risk', () => {
    const s = samples(
      2,
      () => 0.5,
      () => 900 * MiB,
    );
    const rec = recommend(
      usage({ samples: s, oomKills: 2, restarts: 2, cpuRequestCores: 0.575, memoryRequestBytes: 900 * MiB }),
      rate,
    );
    within10(rec.recommended.memoryBytes, 900 * MiB * 1.15 * 1.2);
    expect(rec.kind).toBe('under-requested');
    expect(rec.monthlySaving).toBeLessThan(0);
    expect(rec.evidence.oomKills).toBe(2);
  });

  it('keeps the minimums of 25 mCPU and 250 MiB', () => {
    const s = samples(
      1,
      () => 0.001,
      () => 20 * MiB,
    );
    const rec = recommend(usage({ samples: s }), rate);
    expect(rec.recommended).toEqual({ cpuCores: 0.025, memoryBytes: 250 * MiB });
  });

  it('prices the change at the pool rate for a month (730 h)', () => {
    // Steady 0.2 core / 400 MiB: recommended 0.23 core and 460 MiB (400 * 1.15).
    const s = samples(
      3,
      () => 0.2,
      () => 400 * MiB,
    );
    const rec = recommend(usage({ samples: s, cpuRequestCores: 1, memoryRequestBytes: 2 * GiB }), rate);
    expect(rec.recommended).toEqual({ cpuCores: 0.23, memoryBytes: 460 * MiB });
    const expected = ((1 - 0.23) * 0.04 + ((2048 - 460) / 1024) * 0.005) * 730;
    expect(rec.monthlySaving).toBeCloseTo(expected, 2);
    expect(rec.kind).toBe('over-requested');
  });

  it('a container asking less than it uses needs more (negative saving)', () => {
    const s = samples(
      3,
      () => 0.8,
      () => 400 * MiB,
    );
    const rec = recommend(usage({ samples: s, cpuRequestCores: 0.1, memoryRequestBytes: 460 * MiB }), rate);
    expect(rec.recommended.cpuCores).toBe(0.92);
    expect(rec.monthlySaving).toBeCloseTo((0.1 - 0.92) * 0.04 * 730, 2);
    expect(rec.kind).toBe('under-requested');
  });
});
