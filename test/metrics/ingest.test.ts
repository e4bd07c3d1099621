import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProblem } from '../support/http.js';
import {
  batch,
  eventData,
  logData,
  type MetricsHost,
  makeKey,
  nodeData,
  podData,
  postGzip,
  pvcData,
  startMetricsHost,
} from './support.js';

/** Rows stored for a cluster in every table an ingest writes: the proof that a refusal stored nothing. */
async function storedFor(m: MetricsHost, cluster: string) {
  const [counts] = await m.host.services.prisma.$queryRawUnsafe<
    Array<{ pods: number; nodes: number; pvcs: number; logs: number; events: number; batches: number }>
  >(
    `SELECT
       (SELECT count(*)::int FROM metrics.pod_raw r JOIN "MetricsPodSeries" s ON s.id = r.series_id WHERE s."clusterName" = $1) AS pods,
       (SELECT count(*)::int FROM metrics.node_raw r JOIN "MetricsNodeSeries" s ON s.id = r.series_id WHERE s."clusterName" = $1) AS nodes,
       (SELECT count(*)::int FROM metrics.pvc_raw r JOIN "MetricsPvcSeries" s ON s.id = r.series_id WHERE s."clusterName" = $1) AS pvcs,
       (SELECT count(*)::int FROM "MetricsPodLogs" WHERE "clusterName" = $1) AS logs,
       (SELECT count(*)::int FROM "MetricsEvents" WHERE "clusterName" = $1) AS events,
       (SELECT count(*)::int FROM "MetricsIngestBatches" WHERE "clusterName" = $1) AS batches`,
    cluster,
  );
  return counts!;
}

describe('metrics ingest with keys', () => {
  let m: MetricsHost;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    m = await startMetricsHost();
    key = (await makeKey(m, 'Prod-AKS')).key;
    otherKey = (await makeKey(m, 'staging')).key;
  });
  afterAll(async () => {
    await m?.close();
  });

  it('stores each one-object post of the original agent (PascalCase, its binding rules) and answers {"success":true}', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const posts: Array<[string, unknown]> = [
      ['/metrics/api/metrics/pod', podData('PROD-aks')],
      ['/metrics/api/Metrics/node', nodeData('prod-aks')],
      ['/metrics/api/metrics/pvc', pvcData('prod-aks')],
      ['/metrics/api/metrics/pod/log', logData('prod-aks')],
      ['/metrics/api/events', eventData('prod-aks')],
    ];
    for (const [path, body] of posts) {
      const res = await m.api.post(path, { json: body, headers: auth });
      expect(res.status, path).toBe(200);
      expect(res.body).toEqual({ success: true });
    }
    expect(await storedFor(m, 'prod-aks')).toEqual({
      pods: 1,
      nodes: 1,
      pvcs: 1,
      logs: 1,
      events: 1,
      batches: 0,
    });
  });

  it("takes the key's cluster when the post names none, numbers sent as strings, omitted fields as the original defaults them", async () => {
    const res = await m.api.post('/metrics/api/metrics/pod', {
      json: { namespace: 'web', pod: 'p', container: 'c', cpuUsageCores: '0.5' },
      headers: { authorization: `Bearer ${otherKey}` },
    });
    expect(res.status).toBe(200);
    expect((await storedFor(m, 'staging')).pods).toBe(1);
  });

  it('refuses, and stores nothing for, a post without a key, with an unknown key, or for another cluster', async () => {
    const before = await storedFor(m, 'prod-aks');
    const none = await m.api.post('/metrics/api/metrics/pod', { json: podData('prod-aks') });
    expect(isProblem(none, 401)).toBe(true);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const unknown = await m.api.post('/metrics/api/metrics/pod', {
      json: podData('prod-aks'),
      headers: { authorization: 'Bearer fwik_not-a-key' },
    });
    expect(isProblem(unknown, 401)).toBe(true);
    // A user's sign-in token is not an ingest key.
    const userToken = await m.api.post('/metrics/api/metrics/node', {
      json: nodeData('prod-aks'),
      token: m.admin.token,
    });
    expect(isProblem(userToken, 401)).toBe(true);
    const wrong = await m.api.post('/metrics/api/metrics/pod', {
      json: podData('prod-aks'),
      headers: { authorization: `Bearer ${otherKey}` },
    });
    expect(isProblem(wrong, 403)).toBe(true);
    expect(await storedFor(m, 'prod-aks')).toEqual(before);
  });

  it('refuses malformed and careless one-object posts with 400/415 naming the field, storing nothing', async () => {
    const before = await storedFor(m, 'prod-aks');
    const auth = { authorization: `Bearer ${key}` };
    const cases: Array<[unknown, string]> = [
      [podData('prod-aks', 0, { cpuUsageCores: null }), 'cpuUsageCores'],
      [podData('prod-aks', 0, { restartCount: 1.5 }), 'restartCount'],
      [podData('prod-aks', 0, { restartCount: -1 }), 'restartCount'],
      [podData('prod-aks', 0, { namespace: null }), 'namespace'],
      [podData('prod-aks', 0, { memoryUsageBytes: 'lots' }), 'memoryUsageBytes'],
      [pvcData('prod-aks', { usedBytes: -5 }), 'usedBytes'],
      [eventData('prod-aks', { lastTimestamp: 'yesterday' }), 'lastTimestamp'],
      [nodeData('prod-aks', 'n', { isReady: 'yes' }), 'isReady'],
    ];
    const paths = ['pod', 'pod', 'pod', 'pod', 'pod'].map((p) => `/metrics/api/metrics/${p}`);
    paths.push('/metrics/api/metrics/pvc', '/metrics/api/events', '/metrics/api/metrics/node');
    for (const [i, [body, field]] of cases.entries()) {
      const res = await m.api.post(paths[i]!, { json: body, headers: auth });
      expect(isProblem(res, 400), `${field}: ${res.text}`).toBe(true);
      expect(Object.keys(res.body.errors ?? {}), field).toContain(field);
    }
    expect(
      isProblem(await m.api.post('/metrics/api/metrics/pod', { raw: '{"pod":', headers: auth }), 400),
    ).toBe(true);
    expect(
      isProblem(
        await m.api.post('/metrics/api/metrics/pod', { json: [podData('prod-aks')], headers: auth }),
        400,
      ),
    ).toBe(true);
    const xml = await m.api.post('/metrics/api/metrics/pod', {
      raw: '<pod/>',
      headers: { ...auth, 'content-type': 'application/xml' },
    });
    expect(isProblem(xml, 415)).toBe(true);
    expect(await storedFor(m, 'prod-aks')).toEqual(before);
  });

  it('stores a batch once: a retry of its batchId answers duplicate and stores nothing again', async () => {
    const body = batch('prod-aks', [
      { kind: 'pod', data: podData('prod-aks', 7) },
      { kind: 'pod', data: podData('', 8) },
      { kind: 'node', data: nodeData('PROD-AKS', 'node-b') },
      { kind: 'pvc', data: pvcData('prod-aks', { pod: 'db-1' }) },
      { kind: 'podLog', data: logData('prod-aks', { pod: 'api-7' }) },
      { kind: 'event', data: eventData('prod-aks', { eventUid: 'uid-7' }) },
    ]);
    const before = await storedFor(m, 'prod-aks');
    const first = await postGzip(m.host.url, body, key);
    expect(first).toEqual({
      status: 200,
      body: { success: true, batchId: body.batchId, records: 6, duplicate: false },
    });
    const after = await storedFor(m, 'prod-aks');
    expect(after).toEqual({
      pods: before.pods + 2,
      nodes: before.nodes + 1,
      pvcs: before.pvcs + 1,
      logs: before.logs + 1,
      events: before.events + 1,
      batches: before.batches + 1,
    });
    const retry = await postGzip(m.host.url, body, key);
    expect(retry).toEqual({
      status: 200,
      body: { success: true, batchId: body.batchId, records: 6, duplicate: true },
    });
    expect(await storedFor(m, 'prod-aks')).toEqual(after);
    // Uncompressed JSON is accepted too.
    const plain = await m.api.post('/metrics/api/ingest/batch', {
      json: batch('prod-aks', [{ kind: 'pod', data: podData('prod-aks', 9) }]),
      headers: { authorization: `Bearer ${key}` },
    });
    expect(plain.status).toBe(200);
    expect(plain.body.duplicate).toBe(false);
  });

  it('refuses a whole batch with 422 naming each bad record, and stores none of it', async () => {
    const before = await storedFor(m, 'prod-aks');
    const body = batch('prod-aks', [
      { kind: 'pod', data: podData('prod-aks', 20) },
      { kind: 'pod', data: podData('prod-aks', 21, { cpuUsageCores: 'x' }) },
      { kind: 'node', data: nodeData('staging') },
      {
        kind: 'pvc',
        collectedAt: new Date(Date.now() - 40 * 86_400_000).toISOString(),
        data: pvcData('prod-aks'),
      },
    ]);
    const res = await m.api.post('/metrics/api/ingest/batch', {
      json: body,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(isProblem(res, 422)).toBe(true);
    expect(Object.keys(res.body.errors).sort()).toEqual([
      'records[1].data.cpuUsageCores',
      'records[2].data.clusterName',
      'records[3].collectedAt',
    ]);
    expect(res.body.detail).toContain('records[1].data.cpuUsageCores');
    expect(await storedFor(m, 'prod-aks')).toEqual(before);
    // The batch id was not used up: once fixed, the same id stores.
    body.records = body.records.slice(0, 1);
    const fixed = await m.api.post('/metrics/api/ingest/batch', {
      json: body,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(fixed.body).toMatchObject({ duplicate: false, records: 1 });
  });

  it('names every record of a run that shares a refused time or cluster, and a record spelled otherwise after ones spelled as the schema', async () => {
    const before = await storedFor(m, 'prod-aks');
    // The finwatch agent's spelling (camelCase), in the order the original's fields come.
    const camel = (o: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(o).map(([k, v]) => [k[0]!.toLowerCase() + k.slice(1), v]));
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    const now = new Date().toISOString();
    const pod = (i: number, extra: Record<string, unknown> = {}) => camel(podData('prod-aks', 40 + i, extra));
    const body = batch('prod-aks', [
      { kind: 'pod', collectedAt: old, data: pod(0) },
      { kind: 'pod', collectedAt: old, data: pod(1) },
      { kind: 'pod', collectedAt: now, data: pod(2, { ClusterName: 'staging' }) },
      { kind: 'pod', collectedAt: now, data: pod(3, { ClusterName: 'staging' }) },
      { kind: 'pod', collectedAt: now, data: pod(4) },
      {
        kind: 'pod',
        collectedAt: now,
        // The same keys in the same order, one spelled as the original agent spells it.
        data: Object.fromEntries(
          Object.entries(pod(5)).map(([k, v]) => (k === 'cpuUsageCores' ? ['CpuUsageCores', 'x'] : [k, v])),
        ),
      },
      { kind: 'pod', collectedAt: now, data: pod(6, { CpuUsageCores: -1 }) },
      { kind: 'pod', collectedAt: now, data: pod(7, { ClusterName: ' PROD-AKS ' }) },
      { kind: 'pod', collectedAt: old, data: pod(8) },
    ]);
    const res = await postGzip(m.host.url, body, key);
    expect(res.status).toBe(422);
    const errors = (res.body as { errors: Record<string, string[]> }).errors;
    expect(errors).toEqual({
      'records[0].collectedAt': [expect.stringMatching(/^is older than the \d+ days raw samples are kept$/)],
      'records[1].collectedAt': [expect.stringMatching(/^is older than/)],
      'records[2].data.clusterName': ["must be the batch's clusterName (prod-aks)"],
      'records[3].data.clusterName': ["must be the batch's clusterName (prod-aks)"],
      'records[5].data.cpuUsageCores': ['must be a number'],
      'records[6].data.cpuUsageCores': ['must not be negative'],
      'records[8].collectedAt': [expect.stringMatching(/^is older than/)],
    });
    expect(await storedFor(m, 'prod-aks')).toEqual(before);
  });

  it('stores names outside ASCII as sent, gzip or not', async () => {
    const names = ['api-ü-ñ', 'api-日本', 'api-😀'];
    const body = batch(
      'prod-aks',
      names.map((pod) => ({ kind: 'pod', data: podData('prod-aks', 0, { Pod: pod }) })),
    );
    expect((await postGzip(m.host.url, body, key)).status).toBe(200);
    const plain = await m.api.post('/metrics/api/ingest/batch', {
      json: batch('prod-aks', [{ kind: 'pod', data: podData('prod-aks', 0, { Pod: 'api-plain-é' }) }]),
      headers: { authorization: `Bearer ${key}` },
    });
    expect(plain.status).toBe(200);
    const stored = await m.host.services.prisma.metricsPodSeries.findMany({
      where: { clusterName: 'prod-aks', pod: { in: [...names, 'api-plain-é'] } },
      select: { pod: true },
    });
    expect(stored.map((s) => s.pod).sort()).toEqual([...names, 'api-plain-é'].sort());
  });

  it('answers 400 for a malformed envelope, 415 for another type or encoding, 401/403 for keys, all storing nothing', async () => {
    const before = await storedFor(m, 'prod-aks');
    const auth = { authorization: `Bearer ${key}` };
    const good = batch('prod-aks', [{ kind: 'pod', data: podData('prod-aks', 30) }]);
    const post = (init: { body: string; headers: Record<string, string> }) =>
      fetch(`${m.host.url}/metrics/api/ingest/batch`, { method: 'POST', ...init });
    expect(
      (await m.api.post('/metrics/api/ingest/batch', { json: { ...good, batchId: 'nope' }, headers: auth }))
        .status,
    ).toBe(400);
    expect(
      (
        await m.api.post('/metrics/api/ingest/batch', {
          json: { ...good, records: [{ kind: 'pods', collectedAt: good.records[0]!.collectedAt, data: {} }] },
          headers: auth,
        })
      ).status,
    ).toBe(400);
    expect(
      (await m.api.post('/metrics/api/ingest/batch', { raw: '{"batchId":', headers: auth })).status,
    ).toBe(400);
    const text = await post({
      body: JSON.stringify(good),
      headers: { ...auth, 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    const br = await post({
      body: JSON.stringify(good),
      headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'br' },
    });
    expect(br.status).toBe(415);
    const notGzip = await post({
      body: 'plain',
      headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(notGzip.status).toBe(400);
    expect((await postGzip(m.host.url, good)).status).toBe(401);
    expect((await postGzip(m.host.url, good, 'fwik_unknown')).status).toBe(401);
    expect((await postGzip(m.host.url, good, otherKey)).status).toBe(403);
    expect(await storedFor(m, 'prod-aks')).toEqual(before);
  });

  it('lists and revokes keys (administrators only); a revoked key is refused at once', async () => {
    const made = await makeKey(m, 'retired');
    const list = await m.api.get('/metrics/api/IngestKeys', { token: m.admin.token });
    expect(list.status).toBe(200);
    const shown = list.body.find((k: { id: number }) => k.id === made.id);
    expect(shown).toMatchObject({ clusterName: 'retired', revokedAt: null });
    expect(JSON.stringify(list.body)).not.toContain(made.key);
    // Paged by the one rule: the true count in X-Total-Count, a page of one is the newest key.
    const total = await m.host.services.prisma.metricsIngestKey.count();
    expect(list.headers.get('x-total-count')).toBe(String(total));
    const first = await m.api.get('/metrics/api/IngestKeys?pageSize=1', { token: m.admin.token });
    expect(first.body.map((k: { id: number }) => k.id)).toEqual([made.id]);
    expect(first.headers.get('x-total-count')).toBe(String(total));
    const stored = await m.host.services.prisma.metricsIngestKey.findUnique({ where: { id: made.id } });
    expect(stored?.keyHash).not.toContain(made.key);
    expect((await m.api.get('/metrics/api/IngestKeys', { token: m.user.token })).status).toBe(403);
    expect(
      (await m.api.post('/metrics/api/IngestKeys', { token: m.user.token, json: { clusterName: 'x' } }))
        .status,
    ).toBe(403);
    expect((await m.api.delete(`/metrics/api/IngestKeys/${made.id}`, { token: m.user.token })).status).toBe(
      403,
    );
    const ok = await m.api.post('/metrics/api/metrics/node', {
      json: nodeData('retired'),
      headers: { authorization: `Bearer ${made.key}` },
    });
    expect(ok.status).toBe(200);
    const revoked = await m.api.delete(`/metrics/api/IngestKeys/${made.id}`, { token: m.admin.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    const refused = await m.api.post('/metrics/api/metrics/node', {
      json: nodeData('retired'),
      headers: { authorization: `Bearer ${made.key}` },
    });
    expect(refused.status).toBe(401);
    expect((await m.api.delete('/metrics/api/IngestKeys/999999', { token: m.admin.token })).status).toBe(404);
    const audit = await m.host.services.prisma.auditRecord.findMany({
      where: {
        action: { in: ['metricsIngestKey.created', 'metricsIngestKey.revoked'] },
        targetId: String(made.id),
      },
    });
    expect(audit.map((a) => a.action).sort()).toEqual([
      'metricsIngestKey.created',
      'metricsIngestKey.revoked',
    ]);
  });
});

describe('metrics ingest limits and anonymous mode', () => {
  let m: MetricsHost;
  beforeAll(async () => {
    m = await startMetricsHost({ Metrics__AllowAnonymousIngest: 'true', Metrics__MaxBatchBytes: '65536' });
  });
  afterAll(async () => {
    await m?.close();
  });

  it('accepts keyless posts only when anonymous ingest is on, and still refuses an unknown key', async () => {
    const res = await m.api.post('/metrics/api/metrics/pod', { json: podData('anon') });
    expect(res.status).toBe(200);
    const b = await postGzip(m.host.url, batch('anon', [{ kind: 'node', data: nodeData('anon') }]));
    expect(b.status).toBe(200);
    expect((await postGzip(m.host.url, batch('anon', []), 'fwik_unknown')).status).toBe(401);
    const blank = await m.api.post('/metrics/api/metrics/pod', { json: podData('') });
    expect(isProblem(blank, 400)).toBe(true);
  });

  it('answers 413 past Metrics__MaxBatchBytes, compressed or not, and stops a gzip bomb at the bound', async () => {
    const big = batch(
      'anon',
      Array.from({ length: 400 }, (_, i) => ({ kind: 'pod', data: podData('anon', i) })),
    );
    expect(JSON.stringify(big).length).toBeGreaterThan(65536);
    expect((await postGzip(m.host.url, big)).status).toBe(413);
    const plain = await m.api.post('/metrics/api/ingest/batch', { json: big });
    expect(plain.status).toBe(413);
    // 64 MiB of zeros compress to ~64 KB: inflating stops at the bound.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    const res = await fetch(`${m.host.url}/metrics/api/ingest/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(res.status).toBe(413);
    const pods = await m.host.services.prisma.metricsPodSeries.count({
      where: { pod: { startsWith: 'api-3' } },
    });
    expect(pods).toBe(0);
  });
});
