/**
 * Streams a cost export (CSV, optionally gzip) into the daily history an analysis stores: totals per
 * day, per day and resource group, per day, group and service. Memory grows with the distinct days
 * × groups × services, never with the file (a 1 GB export is read a chunk at a time).
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { CsvError, parse } from 'csv-parse';
import type { DailyCost } from '../azure/index.js';
import { HistoryAggregate } from '../engine/cost-aggregate.js';
import {
  type ColumnMap,
  type CostMetric,
  type ExportFormat,
  groupOf,
  ImportError,
  mapColumns,
  rowDay,
  subscriptionOf,
} from './columns.js';

export interface ParsedExport {
  format: ExportFormat;
  history: HistoryAggregate;
  currency: string;
  rows: number;
  /** Rows of other subscriptions (an export may cover several). */
  skippedRows: number;
  from: string;
  to: string;
  /** Cost of the last month in the file, by group and service (the run's month-to-date lines). */
  lastMonth: Array<{ resourceGroup: string; serviceName: string; cost: number }>;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** Gunzips when the stream starts with the gzip magic bytes, whatever the headers said. */
async function* maybeGunzip(source: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const head = Buffer.from(first.value);
  const rest = (async function* () {
    yield head;
    for (;;) {
      const n = await it.next();
      if (n.done) return;
      yield Buffer.from(n.value);
    }
  })();
  if (head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]) {
    const gunzip = createGunzip();
    const feeding = pipeline(rest, gunzip).catch((e) => gunzip.destroy(e));
    try {
      for await (const chunk of gunzip) yield chunk as Buffer;
    } catch (e) {
      throw new ImportError(400, `The body is not valid gzip: ${(e as Error).message}`);
    }
    await feeding;
  } else {
    yield* rest;
  }
}

/** What the files of one import add up to (an export run may be split over several blobs). */
export class ExportAccumulator implements ExportSink {
  readonly history = new HistoryAggregate();
  readonly byMonth = new Map<string, Map<string, number>>();
  format: ExportFormat | undefined;
  currency = '';
  rows = 0;
  skippedRows = 0;
  from = '';
  to = '';
  files = 0;
  private readonly batch: DailyCost[] = [];

  constructor(
    readonly subscriptionId: string,
    readonly metric: CostMetric,
  ) {}

  addCost(row: DailyCost): void {
    this.batch.push(row);
    if (this.batch.length >= 5000) this.flush();
  }

  flush(): void {
    this.history.add(this.batch);
    this.batch.length = 0;
  }

  /** Rows that name no subscription are this one's. */
  accumulatorFor(sub: string | undefined): ExportAccumulator | undefined {
    return sub === undefined || sub === this.subscriptionId ? this : undefined;
  }
}

/** Where readExport puts each row: the accumulator of its subscription, or nowhere (skipped). */
export interface ExportSink {
  readonly metric: CostMetric;
  format: ExportFormat | undefined;
  skippedRows: number;
  files: number;
  accumulatorFor(sub: string | undefined): ExportAccumulator | undefined;
  /** Rows are added in batches: the last ones reach the history here. */
  flush(): void;
}

/**
 * The rows of an export that covers several subscriptions (a billing account's, read once), one
 * accumulator per subscription the rows name. With `only`, rows of other subscriptions are skipped
 * and rows that name none are that subscription's; without, rows that name none are skipped.
 */
export class ExportSet implements ExportSink {
  readonly bySubscription = new Map<string, ExportAccumulator>();
  format: ExportFormat | undefined;
  skippedRows = 0;
  files = 0;

  constructor(
    readonly metric: CostMetric,
    readonly only?: string,
  ) {}

  accumulatorFor(sub: string | undefined): ExportAccumulator | undefined {
    const only = this.only?.toLowerCase();
    const id = sub ?? only;
    if (!id || (only && id !== only)) return undefined;
    let acc = this.bySubscription.get(id);
    if (!acc) {
      acc = new ExportAccumulator(id, this.metric);
      this.bySubscription.set(id, acc);
    }
    return acc;
  }

  flush(): void {
    for (const acc of this.bySubscription.values()) acc.flush();
  }

  /** Each subscription's accumulator, ready for finishExport (rows of the others count as skipped). */
  accumulators(): ExportAccumulator[] {
    let total = this.skippedRows;
    for (const acc of this.bySubscription.values()) total += acc.rows;
    return [...this.bySubscription.values()]
      .sort((a, b) => a.subscriptionId.localeCompare(b.subscriptionId))
      .map((acc) => {
        acc.format = this.format;
        acc.files = this.files;
        acc.skippedRows = total - acc.rows;
        return acc;
      });
  }
}

/**
 * Reads one CSV file (gzip or not) into the accumulator. Errors name the line, and the file when
 * `name` is given.
 */
export async function readExport(
  sink: ExportSink,
  body: AsyncIterable<Buffer | Uint8Array> | Readable,
  name?: string,
): Promise<void> {
  const where = (line: number) => (name ? `${name}, line ${line}` : `Line ${line}`);
  const parser = parse({ relax_column_count: false, skip_empty_lines: true, bom: true, info: true });
  let cols: ColumnMap | undefined;
  const feeding = (async () => {
    try {
      for await (const chunk of maybeGunzip(body as AsyncIterable<Buffer>)) {
        if (parser.destroyed) return;
        if (!parser.write(chunk)) {
          // Whichever comes first; the other listener goes too (one pair per wait would pile up).
          await new Promise<void>((resolve) => {
            const done = () => {
              parser.off('drain', done);
              parser.off('close', done);
              resolve();
            };
            parser.once('drain', done);
            parser.once('close', done);
          });
        }
      }
      if (!parser.destroyed) parser.end();
    } catch (e) {
      parser.destroy(e as Error);
    }
  })();
  try {
    // With info, each record carries its own line: the parser itself reads ahead of this loop.
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      const line = info.lines;
      if (!cols) {
        try {
          cols = mapColumns(record, sink.metric);
        } catch (e) {
          if (e instanceof ImportError && name)
            throw new ImportError(e.status, `${name}: ${e.message}`, e.line);
          throw e;
        }
        if (sink.format && sink.format !== cols.format) {
          throw new ImportError(422, `${where(1)}: a ${cols.format} file among ${sink.format} files.`, 1);
        }
        sink.format = cols.format;
        continue;
      }
      const at = (i: number | undefined) => (i === undefined ? undefined : record[i]);
      const acc = sink.accumulatorFor(
        cols.subscription === undefined ? undefined : subscriptionOf(at(cols.subscription)),
      );
      if (!acc) {
        sink.skippedRows++;
        continue;
      }
      const day = rowDay(record[cols.date] ?? '');
      if (!day)
        throw new ImportError(422, `${where(line)}: the date '${record[cols.date]}' is not a date.`, line);
      const rawCost = (record[cols.cost] ?? '').trim();
      const cost = rawCost === '' ? 0 : Number(rawCost);
      if (!Number.isFinite(cost)) {
        throw new ImportError(422, `${where(line)}: the cost '${rawCost}' is not a number.`, line);
      }
      const cur = (at(cols.currency) ?? '').trim().toUpperCase();
      if (cur) {
        if (!acc.currency) acc.currency = cur;
        else if (cur !== acc.currency) {
          throw new ImportError(
            422,
            `${where(line)}: currency ${cur} differs from ${acc.currency}; import one currency at a time.`,
            line,
          );
        }
      }
      const resourceGroup = groupOf(at(cols.resourceGroup), at(cols.resourceId)).toUpperCase();
      const serviceName = (at(cols.service) ?? '').trim();
      acc.addCost({ date: day, resourceGroup, serviceName, cost, currency: cur });
      acc.rows++;
      if (!acc.from || day < acc.from) acc.from = day;
      if (!acc.to || day > acc.to) acc.to = day;
      const month = day.slice(0, 7);
      let m = acc.byMonth.get(month);
      if (!m) {
        m = new Map();
        acc.byMonth.set(month, m);
      }
      const key = `${resourceGroup}\u0000${serviceName}`;
      m.set(key, (m.get(key) ?? 0) + cost);
    }
  } catch (e) {
    if (e instanceof ImportError) throw e;
    if (e instanceof CsvError) {
      const line = (e as CsvError & { lines?: number }).lines ?? parser.info.lines;
      throw new ImportError(400, `${where(line)}: ${e.message}`, line);
    }
    throw e;
  } finally {
    // On a bad row the parser stops here: its close ends the feeding loop instead of a drain.
    if (!parser.destroyed && !parser.writableEnded) parser.destroy();
    await feeding;
  }
  sink.flush();
  if (!cols) throw new ImportError(422, `${name ? `${name}: ` : ''}The export is empty: no header line.`, 1);
  sink.files++;
}

/** The import's result; 422 when no row of the subscription was read. */
export function finishExport(acc: ExportAccumulator): ParsedExport {
  if (acc.rows === 0 || !acc.format) {
    throw new ImportError(
      422,
      acc.skippedRows
        ? `The export has no rows of subscription ${acc.subscriptionId} (${acc.skippedRows} rows of other subscriptions).`
        : 'The export has a header but no cost rows.',
    );
  }
  const last = acc.byMonth.get(acc.to.slice(0, 7)) ?? new Map<string, number>();
  return {
    format: acc.format,
    history: acc.history,
    currency: acc.currency || 'USD',
    rows: acc.rows,
    skippedRows: acc.skippedRows,
    from: acc.from,
    to: acc.to,
    lastMonth: [...last].map(([key, cost]) => {
      const [resourceGroup, serviceName] = key.split('\u0000') as [string, string];
      return { resourceGroup, serviceName, cost };
    }),
  };
}

export async function parseCostExport(
  body: AsyncIterable<Buffer | Uint8Array> | Readable,
  subscriptionId: string,
  metric: CostMetric,
): Promise<ParsedExport> {
  const acc = new ExportAccumulator(subscriptionId, metric);
  await readExport(acc, body);
  return finishExport(acc);
}
