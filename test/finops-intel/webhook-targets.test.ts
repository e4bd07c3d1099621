import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliverDue } from '../../shared/notify/outbox.js';
import { allowPrivateTargets, nonPublicRange } from '../../shared/notify/target-guard.js';
import { createUser, type TestUser } from '../finops-api/support.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';

const SECRET = 'webhook-signing-secret-0123456789';
const PUBLIC = '93.184.216.34';

describe('which webhook addresses count as public', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['64:ff9b::a01:203', 'rfc6052'],
  ])('refuses %s (%s)', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each([PUBLIC, '8.8.8.8', '172.32.0.1', '100.63.255.255', '100.128.0.1', '2606:4700:4700::1111'])(
    'accepts %s',
    (address) => {
      expect(nonPublicRange(address)).toBeUndefined();
    },
  );

  it('allows private targets in Development unless the setting says otherwise, and never by default elsewhere', () => {
    const cfg = (isDevelopment: boolean, setting?: boolean) => ({
      isDevelopment,
      finops: { Notifications__AllowPrivateTargets: setting },
    });
    expect(allowPrivateTargets(cfg(false))).toBe(false);
    expect(allowPrivateTargets(cfg(true))).toBe(true);
    expect(allowPrivateTargets(cfg(true, false))).toBe(false);
    expect(allowPrivateTargets(cfg(false, true))).toBe(true);
  });
});

/** A receiver on loopback: what a refused webhook would have reached. /moved redirects to /hook. */
async function startReceiver() {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/moved') {
      req.resume();
      res.writeHead(307, { location: '/hook' }).end();
      return;
    }
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      received.push(raw);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Answers for names under .example.test, as a DNS server an attacker controls would. */
const answers = new Map<string, string>();
type LookupCallback = (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

function fakeDns() {
  const realLookup = dns.lookup.bind(dns);
  const realPromise = dns.promises.lookup.bind(dns.promises);
  vi.spyOn(dns.promises, 'lookup').mockImplementation((async (
    host: string,
    options: dns.LookupAllOptions,
  ) => {
    const a = answers.get(host);
    if (!a) return realPromise(host, options);
    return [{ address: a, family: a.includes(':') ? 6 : 4 }];
  }) as typeof dns.promises.lookup);
  vi.spyOn(dns, 'lookup').mockImplementation(((
    host: string,
    options: dns.LookupAllOptions,
    cb: LookupCallback,
  ) => {
    const a = answers.get(host);
    if (!a) return realLookup(host, options, cb as never);
    const list = [{ address: a, family: a.includes(':') ? 6 : 4 }];
    if (options.all) cb(null, list);
    else cb(null, a, list[0]!.family);
  }) as typeof dns.lookup);
}

describe('webhook targets when private targets are not allowed', () => {
  let host: TestHost;
  let api: ReturnType<typeof apiClient>;
  let admin: TestUser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    // Development (http allowed) but private targets off, as Production has them by default.
    host = await startTestHost({
      queueWorker: false,
      notifier: false,
      settings: { Notifications__AllowPrivateTargets: 'false' },
    });
    api = apiClient(host.url);
    admin = await createUser(host.services.prisma, true);
    fakeDns();
  }, 60_000);
  afterEach(() => answers.clear());
  afterAll(async () => {
    vi.restoreAllMocks();
    await host?.close();
    await receiver?.close();
  });

  const create = (target: string) =>
    api.post('/finops/api/NotificationChannels', {
      token: admin.token,
      json: { name: 'hook', kind: 'webhook', target, secret: SECRET },
    });

  it.each([
    ['http://127.0.0.1:8080/hook', 'The webhook target 127.0.0.1 is a loopback address'],
    [
      'http://169.254.169.254/metadata/instance',
      'The webhook target 169.254.169.254 is a link-local address',
    ],
    ['https://[::1]/hook', 'The webhook target ::1 is a loopback address'],
    ['https://[::ffff:10.0.0.1]/hook', 'The webhook target ::ffff:a00:1 is a private (RFC 1918) address'],
  ])('refuses to create a channel to %s with a 422 that says why', async (target, message) => {
    const res = await create(target);
    expect(isProblem(res, 422)).toBe(true);
    expect(res.body.detail).toBe(
      `${message}; only public addresses are allowed (Notifications__AllowPrivateTargets is off).`,
    );
    expect(res.body.errors).toEqual({ target: [res.body.detail] });
  });

  it('refuses a name that resolves to a private address, and one that does not resolve', async () => {
    answers.set('hooks.corp.example.test', '10.20.30.40');
    const res = await create('https://hooks.corp.example.test/hook');
    expect(isProblem(res, 422)).toBe(true);
    expect(res.body.detail).toBe(
      'The webhook target hooks.corp.example.test resolves to 10.20.30.40, a private (RFC 1918) address; only public addresses are allowed (Notifications__AllowPrivateTargets is off).',
    );
    const unknown = await create('https://no-such-host.invalid/hook');
    expect(isProblem(unknown, 422)).toBe(true);
    expect(unknown.body.detail).toMatch(/^The webhook target's host no-such-host\.invalid does not resolve/);
    expect(await host.services.prisma.notificationChannel.count()).toBe(0);
  });

  it('does not deliver to a channel whose name now resolves to loopback, and records why', async () => {
    const target = `http://rebind.example.test:${receiver.port}/hook`;
    answers.set('rebind.example.test', PUBLIC);
    const created = await create(target);
    expect(created.status).toBe(201);

    // The name now answers the address the receiver listens on (DNS rebinding).
    answers.set('rebind.example.test', '127.0.0.1');
    const refusal =
      'The webhook target rebind.example.test resolves to 127.0.0.1, a loopback address; only public addresses are allowed (Notifications__AllowPrivateTargets is off).';
    const test = await api.post(`/finops/api/NotificationChannels/${created.body.id}/test`, {
      token: admin.token,
    });
    expect(test.body).toEqual({ delivered: false, error: refusal });

    const prisma = host.services.prisma;
    const payload = { key: 'k', type: 'anomaly', subscriptionId: '', title: 't', text: 't', data: {} };
    const row = await prisma.notificationDelivery.create({
      data: { channelId: created.body.id, eventKey: 'rebound', eventType: 'anomaly', payload },
    });
    const deps = {
      prisma,
      mailer: host.services.auth.mailer,
      log: host.services.log,
      maxAttempts: 8,
      allowPrivateTargets: false,
    };
    expect(await deliverDue(deps)).toBe(0);
    // Refused for good on the first attempt: retrying would only ask the same DNS again.
    expect(await prisma.notificationDelivery.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: refusal,
    });
    expect(receiver.received).toEqual([]);

    // The control: with private targets allowed the same name reaches the receiver, so what
    // stopped it above was the check, not the fake DNS.
    await prisma.notificationDelivery.update({
      where: { id: row.id },
      data: { status: 'pending', nextAttemptAt: new Date() },
    });
    expect(await deliverDue({ ...deps, allowPrivateTargets: true })).toBe(1);
    expect(receiver.received).toHaveLength(1);
    receiver.received.length = 0;
  });

  it('does not follow a redirect: a 3xx answer is a failed delivery', async () => {
    const prisma = host.services.prisma;
    const channel = await prisma.notificationChannel.create({
      data: {
        name: 'moved',
        kind: 'webhook',
        target: `http://127.0.0.1:${receiver.port}/moved`,
        secret: SECRET,
      },
    });
    const payload = { key: 'k', type: 'anomaly', subscriptionId: '', title: 't', text: 't', data: {} };
    const row = await prisma.notificationDelivery.create({
      data: { channelId: channel.id, eventKey: 'moved', eventType: 'anomaly', payload },
    });
    const deps = {
      prisma,
      mailer: host.services.auth.mailer,
      log: host.services.log,
      maxAttempts: 8,
      // Even where private targets are allowed: a redirect could point anywhere.
      allowPrivateTargets: true,
    };
    expect(await deliverDue(deps)).toBe(0);
    expect(await prisma.notificationDelivery.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      status: 'pending',
      lastError: 'the webhook answered 307',
    });
    expect(receiver.received).toEqual([]);
  });

  it('does not deliver to a stored channel whose target is a private address literal', async () => {
    // Stored before the policy applied (or by hand): the send checks it too.
    const prisma = host.services.prisma;
    const channel = await prisma.notificationChannel.create({
      data: { name: 'old', kind: 'slack', target: `http://127.0.0.1:${receiver.port}/hook` },
    });
    const test = await api.post(`/finops/api/NotificationChannels/${channel.id}/test`, {
      token: admin.token,
    });
    expect(test.body).toEqual({
      delivered: false,
      error:
        'The webhook target 127.0.0.1 is a loopback address; only public addresses are allowed (Notifications__AllowPrivateTargets is off).',
    });
    expect(receiver.received).toEqual([]);
  });
});
