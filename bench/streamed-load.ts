// Load for the streamed (unpaged) answers: N clients, each with one user's token (a heavy route
// admits only a few requests per user at once), repeat one GET for a while in the load generator's
// process, reading every byte and keeping none, while this process (the host alone) samples its
// RSS, where the memory is at the peak, and its CPU time.
import type { startLoadGenerator } from './load-generator.js';

export interface StreamedLoadResult {
  answers: number;
  refused: number;
  failed: number;
  p50: number;
  p99: number;
  /** Mean bytes on the wire per answer. */
  wireBytes: number;
  peakRssMiB: number;
  baselineRssMiB: number;
  /** At the RSS peak: the JS heap in use and the bytes of Buffers (outside the heap), MiB. */
  atPeak: { heapUsedMiB: number; arrayBuffersMiB: number };
  /** The host's CPU time (user + system) per answer, ms: reading the rows, serving, compressing. */
  cpuMsPerAnswer: number;
}

/** `clients` connections, connection i using `tokens[i % tokens.length]`, for `seconds`. */
export async function streamedLoad(
  load: ReturnType<typeof startLoadGenerator>,
  url: string,
  tokens: string[],
  clients: number,
  seconds: number,
  extraHeaders: Record<string, string> = {},
): Promise<StreamedLoadResult> {
  (globalThis as { gc?: () => void }).gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let atPeak = process.memoryUsage();
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    if (m.rss > peak) {
      peak = m.rss;
      atPeak = m;
    }
  }, 20);
  const cpu0 = process.cpuUsage();
  const r = await load
    .measure({ url, headers: extraHeaders, tokens, connections: clients, seconds, timeoutSeconds: 120 })
    .finally(() => clearInterval(sampler));
  const cpu = process.cpuUsage(cpu0);
  const mib = (n: number) => Math.round(n / 1024 / 1024);
  return {
    answers: r.requests,
    refused: r.refused,
    failed: r.failures + r.timeouts,
    p50: r.p50,
    p99: r.p99,
    wireBytes: r.requests ? Math.round(r.bytes / r.requests) : 0,
    peakRssMiB: mib(peak),
    baselineRssMiB: mib(baseline),
    atPeak: { heapUsedMiB: mib(atPeak.heapUsed), arrayBuffersMiB: mib(atPeak.arrayBuffers) },
    cpuMsPerAnswer: r.requests ? Math.round((cpu.user + cpu.system) / 1000 / r.requests) : 0,
  };
}
