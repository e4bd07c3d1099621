import {
  type ClickHouseClient,
  ClickHouseError,
  ClickHouseLogLevel,
  createClient as createClickHouseClient,
} from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHDB_AVAILABLE, type ChdbHttpBridge, startChdbHttpBridge } from '../support/chdb-http-bridge.js';

// The errors these tests provoke reach them as ClickHouseError; the client's console log would repeat them.
const createClient = (config: Parameters<typeof createClickHouseClient>[0]) =>
  createClickHouseClient({ log: { level: ClickHouseLogLevel.OFF }, ...config });

// The test bridge is what every ClickHouse store test stands on: here the official client is shown
// to work against it as it does against a server (DDL, batched inserts, parameterized reads,
// settings, compression, errors with their codes, authentication). ClickHouse 25.8 and later write
// 64-bit integers in JSON as numbers (output_format_json_quote_64bit_integers now defaults to 0).
describe.skipIf(!CHDB_AVAILABLE)('chDB HTTP bridge under @clickhouse/client', () => {
  let bridge: ChdbHttpBridge;
  let client: ClickHouseClient;

  beforeAll(async () => {
    bridge = await startChdbHttpBridge({ user: 'finwatch', password: 's3cret' });
    client = createClient({ url: bridge.url, username: 'finwatch', password: 's3cret' });
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS bridge_test' });
  });
  afterAll(async () => {
    await client?.close();
    await bridge?.close();
  });

  it('answers ping', async () => {
    expect(await client.ping()).toEqual({ success: true });
  });

  it('creates a table, inserts a batch of rows in one request and reads them back', async () => {
    const db = createClient({
      url: bridge.url,
      username: 'finwatch',
      password: 's3cret',
      database: 'bridge_test',
    });
    try {
      await db.command({
        query:
          "CREATE TABLE samples (at DateTime64(3, 'UTC'), pod LowCardinality(String), cpu Float64) ENGINE = MergeTree ORDER BY (pod, at)",
      });
      const before = bridge.statements.length;
      const inserted = await db.insert({
        table: 'samples',
        format: 'JSONEachRow',
        values: [
          { at: '2026-01-13 10:00:00.000', pod: 'api-1', cpu: 0.25 },
          { at: '2026-01-13 10:00:30.000', pod: 'api-1', cpu: 0.5 },
          { at: '2026-01-13 10:00:00.000', pod: "web-'quoted'", cpu: 1 },
        ],
      });
      expect(bridge.statements.length - before).toBe(1);
      expect(inserted.executed).toBe(true);
      expect(inserted.summary?.written_rows).toBe('3');

      const rs = await db.query({
        query:
          'SELECT pod, count() AS n, avg(cpu) AS cpu FROM samples WHERE pod IN {pods:Array(String)} GROUP BY pod ORDER BY pod',
        query_params: { pods: ['api-1', "web-'quoted'"] },
        format: 'JSONEachRow',
      });
      expect(rs.response_headers['x-clickhouse-format']).toBe('JSONEachRow');
      expect(await rs.json()).toEqual([
        { pod: 'api-1', n: 2, cpu: 0.375 },
        { pod: "web-'quoted'", n: 1, cpu: 1 },
      ]);

      const json = await db.query({
        query: 'SELECT toUnixTimestamp64Milli(max(at)) AS last FROM samples WHERE pod = {pod:String}',
        query_params: { pod: 'api-1' },
        format: 'JSON',
      });
      const body = await json.json<{ last: number }>();
      expect(body.data).toEqual([{ last: Date.UTC(2026, 0, 13, 10, 0, 30) }]);
      expect(body.rows).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('applies a setting to its own statement only', async () => {
    const first = await client.query({
      query: "SELECT getSetting('max_block_size') AS v",
      format: 'JSONEachRow',
      clickhouse_settings: { max_block_size: '1234' },
    });
    expect(await first.json()).toEqual([{ v: 1234 }]);
    const second = await client.query({
      query: "SELECT getSetting('max_block_size') AS v",
      format: 'JSONEachRow',
    });
    expect(await second.json()).toEqual([{ v: 65409 }]);
  });

  it('takes a gzip-compressed insert body and gives a gzip-compressed answer', async () => {
    const zipped = createClient({
      url: bridge.url,
      username: 'finwatch',
      password: 's3cret',
      database: 'bridge_test',
      compression: { request: true, response: true },
    });
    try {
      await zipped.command({ query: 'CREATE TABLE zipped (n UInt32) ENGINE = MergeTree ORDER BY n' });
      await zipped.insert({
        table: 'zipped',
        format: 'JSONEachRow',
        values: Array.from({ length: 1000 }, (_, n) => ({ n })),
      });
      const rs = await zipped.query({ query: 'SELECT sum(n) AS s FROM zipped', format: 'JSONEachRow' });
      expect(rs.response_headers['content-encoding']).toBe('gzip');
      expect(await rs.json()).toEqual([{ s: (999 * 1000) / 2 }]);
    } finally {
      await zipped.close();
    }
  });

  it('reports an unknown table as the server does: ClickHouseError with code 60, HTTP 404', async () => {
    const err = await client
      .query({ query: 'SELECT * FROM bridge_test.nope', format: 'JSON' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ClickHouseError);
    expect((err as ClickHouseError).code).toBe('60');
    expect((err as ClickHouseError).type).toBe('UNKNOWN_TABLE');

    const raw = await fetch(`${bridge.url}/?query=${encodeURIComponent('SELECT * FROM bridge_test.nope')}`, {
      headers: { authorization: `Basic ${Buffer.from('finwatch:s3cret').toString('base64')}` },
    });
    expect(raw.status).toBe(404);
    expect(raw.headers.get('x-clickhouse-exception-code')).toBe('60');
    expect(await raw.text()).toMatch(/^Code: 60\. DB::Exception: .*\(UNKNOWN_TABLE\) \(version 26\./);
  });

  it('reports a syntax error with code 62 and a bad row in an insert with the parse error', async () => {
    const syntax = await client.command({ query: 'SELEC 1' }).catch((e) => e);
    expect(syntax).toBeInstanceOf(ClickHouseError);
    expect((syntax as ClickHouseError).type).toBe('SYNTAX_ERROR');

    const badRow = await client
      .insert({
        table: 'bridge_test.samples',
        format: 'JSONEachRow',
        values: [{ at: 'yesterday-ish', pod: 'x', cpu: 1 }],
      })
      .catch((e) => e);
    expect(badRow).toBeInstanceOf(ClickHouseError);
    expect((badRow as ClickHouseError).message).toMatch(/Cannot read DateTime.*\(at row 1\)/);
  });

  it('refuses wrong credentials with code 516 (AUTHENTICATION_FAILED)', async () => {
    const intruder = createClient({ url: bridge.url, username: 'finwatch', password: 'guess' });
    try {
      const err = await intruder.query({ query: 'SELECT 1', format: 'JSON' }).catch((e) => e);
      expect(err).toBeInstanceOf(ClickHouseError);
      expect((err as ClickHouseError).code).toBe('516');
    } finally {
      await intruder.close();
    }
  });
});
