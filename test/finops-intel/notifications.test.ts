import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffSeconds, deliverDue } from '../../shared/notify/outbox.js';
import { createUser, type TestUser } from '../finops-api/support.js';
import { auditRecordsOf } from '../support/audit.js';
import { TEST_PG_URL } from '../support/databases.js';
import { sharingWith, startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { exportLines, focusCsv, type SeriesSpec } from './export-fixture.js';

const SUB = '5e1eb5b0-1313-4a13-9d13-000000000023';
const SECRET = 'webhook-signing-secret-0123456789';

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: { key: string; event: string; deliveryId: number | string };
}

/** A webhook receiver on loopback that records every delivery. */
async function startReceiver() {
  const received: Received[] = [];
  const state = { failNext: 0 };
  const server = http.createServer((req, res) => {
    if (state.failNext > 0) {
      state.failNext--;
      req.resume();
      res.writeHead(500).end();
      return;
    }
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    set failNext(n: number) {
      state.failNext = n;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const specs: SeriesSpec[] = [
  {
    resourceGroup: 'rg-web',
    service: 'Virtual Machines',
    resource: 'vm-1',
    level: 300,
    factors: { '2026-10-14': 4 },
  },
  { resourceGroup: 'rg-data', service: 'SQL Database', resource: 'sql-1', level: 120 },
  {
    resourceGroup: 'rg-new',
    service: 'Azure Cosmos DB',
    resource: 'cosmos-1',
    level: 80,
    from: '2026-10-05',
  },
];
const csv = () => focusCsv(exportLines(SUB, '2026-06-01', 142, specs));

const waitFor = async <T>(what: string, get: () => Promise<T>, done: (v: T) => boolean, ms = 30_000) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

describe('notification channels (administrators)', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: TestUser;
  let user: TestUser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    host = await startTestHost({ queueWorker: false, notifier: false });
    api = apiClient(host.url);
    admin = await createUser(host.services.prisma, true);
    user = await createUser(host.services.prisma, false);
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('creates, lists without target or secret, test-sends signed, and deletes a webhook channel', async () => {
    const created = await api.post('/finops/api/NotificationChannels', {
      token: admin.token,
      json: {
        name: 'ops hook',
        kind: 'webhook',
        target: `${receiver.url}?token=abc`,
        secret: SECRET,
        minImpact: 50,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'ops hook', kind: 'webhook', hasSecret: true, minImpact: 50 });
    expect(created.text).not.toContain('token=abc');
    expect(created.text).not.toContain(SECRET);
    const list = await api.get('/finops/api/NotificationChannels', { token: admin.token });
    expect(list.body).toHaveLength(1);
    expect(list.text).not.toContain(SECRET);
    expect(list.body[0].targetHint).toBe(`${new URL(receiver.url).origin}/***`);

    const sent = await api.post(`/finops/api/NotificationChannels/${created.body.id}/test`, {
      token: admin.token,
    });
    expect(sent.body).toEqual({ delivered: true, error: null });
    const got = receiver.received.at(-1)!;
    expect(got.headers['x-finwatch-signature']).toBe(
      `sha256=${createHmac('sha256', SECRET).update(got.raw).digest('hex')}`,
    );
    expect(got.body.event).toBe('test');

    expect(
      (await api.delete(`/finops/api/NotificationChannels/${created.body.id}`, { token: admin.token }))
        .status,
    ).toBe(204);
    expect(
      (await api.delete(`/finops/api/NotificationChannels/${created.body.id}`, { token: admin.token }))
        .status,
    ).toBe(404);
    // Created and deleted once each in the audit trail, by the admin, with no target or secret.
    const prisma = host.services.prisma;
    const made = await auditRecordsOf(prisma, 'notificationChannel.created', created.body.id);
    expect(made.map((r) => [r.actorEmail, (r.details as { kind?: string }).kind])).toEqual([
      [admin.email, 'webhook'],
    ]);
    expect(JSON.stringify(made.map((r) => r.details))).not.toContain('token=abc');
    expect(JSON.stringify(made.map((r) => r.details))).not.toContain(SECRET);
    const gone = await auditRecordsOf(prisma, 'notificationChannel.deleted', created.body.id);
    expect(gone.map((r) => r.actorEmail)).toEqual([admin.email]);
  });

  it('refuses non-administrators, a webhook without a secret and an email channel without an address', async () => {
    expect(isProblem(await api.get('/finops/api/NotificationChannels', { token: user.token }), 403)).toBe(
      true,
    );
    const noSecret = await api.post('/finops/api/NotificationChannels', {
      token: admin.token,
      json: { name: 'x', kind: 'webhook', target: receiver.url },
    });
    expect(isProblem(noSecret, 400)).toBe(true);
    const badMail = await api.post('/finops/api/NotificationChannels', {
      token: admin.token,
      json: { name: 'x', kind: 'email', target: 'not-an-address' },
    });
    expect(isProblem(badMail, 400)).toBe(true);
  });

  it('sends an email channel through the app mailer', async () => {
    const created = await api.post('/finops/api/NotificationChannels', {
      token: admin.token,
      json: { name: 'finance', kind: 'email', target: 'finance@example.test' },
    });
    expect(created.body.targetHint).toBe('f***@example.test');
    await api.post(`/finops/api/NotificationChannels/${created.body.id}/test`, { token: admin.token });
    expect(host.services.auth.mailer.outbox.at(-1)).toMatchObject({
      to: 'finance@example.test',
      subject: '[finwatch] finwatch test message',
    });
  });

  it('retries a failed delivery later and resends a claim whose instance died mid-send', async () => {
    const prisma = host.services.prisma;
    const deps = {
      prisma,
      mailer: host.services.auth.mailer,
      log: host.services.log,
      maxAttempts: 3,
      allowPrivateTargets: true,
    };
    const channel = await prisma.notificationChannel.create({
      data: { name: 'flaky', kind: 'webhook', target: `${receiver.url}?fail=1`, secret: SECRET },
    });
    const payload = { key: 'k', type: 'anomaly', subscriptionId: SUB, title: 't', text: 't', data: {} };
    const failing = await prisma.notificationDelivery.create({
      data: { channelId: channel.id, eventKey: 'retry-me', eventType: 'anomaly', payload },
    });
    receiver.failNext = 1;
    expect(await deliverDue(deps)).toBe(0);
    const after = await prisma.notificationDelivery.findUniqueOrThrow({ where: { id: failing.id } });
    expect(after).toMatchObject({ status: 'pending', attempts: 1, lastError: 'the webhook answered 500' });
    expect(after.nextAttemptAt.getTime() - Date.now()).toBeGreaterThan(5_000);
    // Not due yet: nothing is sent; once due, it is.
    expect(await deliverDue(deps)).toBe(0);
    await prisma.notificationDelivery.update({
      where: { id: failing.id },
      data: { nextAttemptAt: new Date() },
    });
    expect(await deliverDue(deps)).toBe(1);

    // A row an instance claimed and never finished (it crashed): claimable once the claim expires.
    const orphan = await prisma.notificationDelivery.create({
      data: {
        channelId: channel.id,
        eventKey: 'orphan',
        eventType: 'anomaly',
        payload,
        status: 'sending',
        attempts: 1,
        claimedUntil: new Date(Date.now() + 60_000),
      },
    });
    expect(await deliverDue(deps)).toBe(0);
    await prisma.notificationDelivery.update({
      where: { id: orphan.id },
      data: { claimedUntil: new Date(Date.now() - 1) },
    });
    expect(await deliverDue(deps)).toBe(1);
    expect(await prisma.notificationDelivery.findUniqueOrThrow({ where: { id: orphan.id } })).toMatchObject({
      status: 'sent',
      attempts: 2,
    });
  });

  it('queues a failed analysis for the channels of its subscription only', async () => {
    const prisma = host.services.prisma;
    const mine = await prisma.notificationChannel.create({
      data: { name: 'mine', kind: 'email', target: 'a@example.test', subscriptionId: SUB },
    });
    const other = await prisma.notificationChannel.create({
      data: {
        name: 'other',
        kind: 'email',
        target: 'b@example.test',
        subscriptionId: '5e1eb5b0-1313-4a13-9d13-0000000000aa',
      },
    });
    const job = await prisma.analysisJob.create({ data: { subscriptionId: SUB } });
    await host.services.finops.engine.jobs.fail(job.id, 'Error: Cost Management refused', 'HTTP 403');
    const rows = await prisma.notificationDelivery.findMany({
      where: { channelId: { in: [mine.id, other.id] } },
    });
    expect(rows.map((r) => [r.channelId, r.eventKey, r.eventType])).toEqual([
      [mine.id, `analysisFailed:${job.id}`, 'analysisFailed'],
    ]);
    expect(rows[0]!.payload).toMatchObject({
      text: `Analysis failed: ${SUB}: Error: Cost Management refused`,
    });
  });

  it('backs off from 10 s, doubling, up to an hour', () => {
    expect([1, 2, 3, 4, 10, 20].map(backoffSeconds)).toEqual([10, 20, 40, 80, 3600, 3600]);
  });
});

// Two instances of the app on one PostgreSQL database: both poll the outbox every second.
describe.runIf(TEST_PG_URL)('notifications from two hosts on one PostgreSQL database', () => {
  let a: TestHost;
  let b: TestHost;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: TestUser;

  beforeAll(async () => {
    receiver = await startReceiver();
    const settings = { Notifications__PollSeconds: '1' };
    a = await startTestHost({ database: 'postgres', queueWorker: false, settings });
    b = await startTestHost(sharingWith(a, { queueWorker: false, settings }));
    admin = await createUser(a.services.prisma, true);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receiver?.close();
  });

  it('delivers each event exactly once across two imports on two hosts', { timeout: 90_000 }, async () => {
    const apiA = apiClient(a.url);
    const channel = await apiA.post('/finops/api/NotificationChannels', {
      token: admin.token,
      json: { name: 'hook', kind: 'webhook', target: receiver.url, secret: SECRET },
    });
    expect(channel.status).toBe(201);
    await apiA.post('/finops/api/Subscriptions', {
      token: admin.token,
      json: { subscriptionId: SUB, description: 'team', budget: 9000, infraSupportCost: 0 },
    });
    for (const url of [a.url, b.url]) {
      const res = await fetch(`${url}/finops/api/CostImports?subscriptionId=${SUB}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'text/csv' },
        body: csv(),
      });
      expect(res.status).toBe(200);
    }
    const prisma = a.services.prisma;
    const rows = await waitFor(
      'every delivery sent',
      () => prisma.notificationDelivery.findMany({ orderBy: { id: 'asc' } }),
      (r) => r.length > 0 && r.every((d) => d.status === 'sent'),
    );
    // Two more polling rounds of both hosts: nothing is sent again.
    await new Promise((r) => setTimeout(r, 2500));
    const keys = receiver.received.map((r) => r.body.key).sort();
    expect(keys).toEqual(rows.map((r) => r.eventKey).sort());
    expect(keys).toEqual([
      'anomaly:1',
      'anomaly:2',
      'anomaly:3',
      'anomaly:4',
      'anomaly:5',
      `budget:${SUB}:2026-10:100`,
      `budget:${SUB}:2026-10:80`,
      `forecast:${SUB}:2026-10:overBudget`,
    ]);
    for (const r of receiver.received) {
      expect(r.headers['x-finwatch-signature']).toBe(
        `sha256=${createHmac('sha256', SECRET).update(r.raw).digest('hex')}`,
      );
    }
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
  });
});
