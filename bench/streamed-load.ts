// Load for the streamed (unpaged) answers: N clients each repeat one GET for a while, reading every
// byte and keeping none, while the process's RSS and CPU time are sampled. autocannon cannot send
// one user's token per connection, and a heavy route admits only a few requests per user at once.
import http from 'node:http';

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
  /** Process CPU time (user + system) per answer, ms: serving, compressing and this client. */
  cpuMsPerAnswer: number;
}

function once(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;

/** `clients` loops, client i using `tokens[i % tokens.length]`, for `seconds`. */
export async function streamedLoad(
  url: string,
  tokens: string[],
  clients: number,
  seconds: number,
  extraHeaders: Record<string, string> = {},
): Promise<StreamedLoadResult> {
  (globalThis as { gc?: () => void }).gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const latencies: number[] = [];
  let refused = 0;
  let failed = 0;
  let bytes = 0;
  const cpu0 = process.cpuUsage();
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const headers = { authorization: `Bearer ${tokens[i % tokens.length]}`, ...extraHeaders };
      // Every client completes at least one answer, however long the window.
      do {
        const t0 = performance.now();
        try {
          const r = await once(url, headers);
          if (r.status === 200) {
            latencies.push(performance.now() - t0);
            bytes += r.bytes;
          } else if (r.status === 429) refused++;
          else failed++;
        } catch {
          failed++;
        }
      } while (performance.now() < until);
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  const mib = (n: number) => Math.round(n / 1024 / 1024);
  return {
    answers: latencies.length,
    refused,
    failed,
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    wireBytes: latencies.length ? Math.round(bytes / latencies.length) : 0,
    peakRssMiB: mib(peak),
    baselineRssMiB: mib(baseline),
    cpuMsPerAnswer: latencies.length ? Math.round((cpu.user + cpu.system) / 1000 / latencies.length) : 0,
  };
}
