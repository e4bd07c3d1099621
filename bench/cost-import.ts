// npm run bench -- import: streams a generated FOCUS export (BENCH_IMPORT_MB, default 256; 1024 for
// the 1 GB case) through the import parser, as a blob download or a request body would arrive, and
// prints throughput and peak RSS. Memory must stay flat whatever the size: it grows with days ×
// resource groups × services, never with the file. BENCH_IMPORT_SPOOL=1 takes an import job's path
// instead: the body streamed into the spool (Azurite's blob service, on disk, in its own process),
// then read back from it through the parser.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { startAzurite } from '../dev/azurite.js';
import { parseCostExport } from '../shared/finops/imports/parse.js';
import { ImportSpool } from '../shared/finops/imports/spool.js';
import { dayAfter, exportLines, focusCsv, type SeriesSpec } from '../test/finops-intel/export-fixture.js';

const MB = Number(process.env.BENCH_IMPORT_MB ?? 256);
const SUB = '5e1eb5b0-1313-4a13-9d13-0000000000be';
const specs: SeriesSpec[] = Array.from({ length: 400 }, (_, i) => ({
  resourceGroup: `rg-${i % 40}`,
  service: `Service ${i % 25}`,
  resource: `res-${i}`,
  level: 5 + (i % 17),
}));

/** One day's rows (400 resources) as CSV, without the header after the first. */
function* chunks(limitBytes: number) {
  let produced = 0;
  let day = 0;
  let header = true;
  while (produced < limitBytes) {
    const text = focusCsv(exportLines(SUB, dayAfter('2026-01-01', day % 180), 1, specs, day + 1));
    const out = header ? text : text.slice(text.indexOf('\n') + 1);
    header = false;
    produced += Buffer.byteLength(out);
    day++;
    yield Buffer.from(out);
  }
}

global.gc?.();
const rss0 = process.memoryUsage().rss;
let peak = rss0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const cpuSeconds = () => {
  const c = process.cpuUsage(cpu0);
  return ((c.user + c.system) / 1e6).toFixed(1);
};
let parsed: Awaited<ReturnType<typeof parseCostExport>>;
let path_ = 'parse';
if (process.env.BENCH_IMPORT_SPOOL) {
  path_ = 'spool upload + download + parse';
  const dir = mkdtempSync(path.join(tmpdir(), 'finwatch-spool-bench-'));
  const azurite = await startAzurite({ service: 'blob', location: path.join(dir, 'azurite') });
  try {
    const spool = (await ImportSpool.open({ connectionString: azurite.connectionString }))!;
    const id = randomUUID();
    await spool.writeBody(id, Readable.from(chunks(MB * 1024 * 1024)));
    const uploaded = performance.now() - t0;
    console.log(`spooled ${MB} MB in ${(uploaded / 1000).toFixed(1)} s (CPU ${cpuSeconds()} s so far)`);
    const { stream } = await spool.openBody(id);
    parsed = await parseCostExport(stream as AsyncIterable<Buffer>, SUB, 'ActualCost');
    await spool.remove(id);
  } finally {
    await azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  parsed = await parseCostExport(Readable.from(chunks(MB * 1024 * 1024)), SUB, 'ActualCost');
}
const ms = performance.now() - t0;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(
  `import ${path_} of ${MB} MB FOCUS CSV: ${parsed.rows} rows in ${(ms / 1000).toFixed(1)} s (${(MB / (ms / 1000)).toFixed(1)} MB/s), ` +
    `CPU ${cpuSeconds()} s, peak RSS ${(peak / 1048576).toFixed(0)} MB (start ${(rss0 / 1048576).toFixed(0)} MB), load ${loadavg()[0]!.toFixed(2)}`,
);
