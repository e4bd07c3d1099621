// Routing on the real Functions host, reproduced over the packaged bundle's own registrations:
// each request goes to the function the host would pick (test/support/functions-host-routing.ts),
// is answered by the bundle's handler under the worker stand-in, and must get the same status and
// body shape as the local host gives for the same request on the same data.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageResult } from '../../scripts/package.js';
import { routes } from '../../shared/app/routes.js';
import { fullPath } from '../../shared/http/route.js';
import { PASSWORD, passwordHash } from '../auth/helpers.js';
import {
  type HostRegistration,
  type HostRouting,
  routeLikeFunctionsHost,
} from '../support/functions-host-routing.js';
import { startTestHost, testSettings } from '../support/host.js';
import { sharedPackage } from '../support/shared-package.js';
import { webClientCalls } from './fixtures/web-client-calls.js';
import { runStub, type StubRequest, type StubResult } from './stub.js';

interface Call {
  label: string;
  method: string;
  /** Path and query. */
  target: string;
  body?: string;
}

interface Answer {
  status: number;
  shape: unknown;
}

// Realistic values for every path parameter of the route table; ids of seeded rows come later.
const PARAMS: Record<string, string> = {
  groupId: '7',
  groupMonitorId: '7',
  userName: 'bob',
  jobId: '5b0f8a52-3c0e-4a8e-9d71-2f7a7f5f1c11',
  id: '1',
  subscriptionId: '11111111-1111-4111-8111-111111111111',
  analysisRunId: '1',
  resourceType: 'microsoft.compute%2Fdisks',
  resourceGroup: 'rg-web-prod',
  costType: 'ResourceGroup',
  count: '10',
  file: 'swagger-ui.css',
};

// Minimal valid bodies, so writes reach their handlers' logic rather than stopping at validation.
const BODIES: Record<string, unknown> = {
  'auth-login': { username: '{adminEmail}', password: '{password}' },
  'finops-subscriptions-upsert': { subscriptionId: '{subscriptionId}', description: 'Production' },
  'auth-user-clusters-replace': { userId: '{userId}', clusters: ['aks-prod'] },
  'auth-user-subscriptions-replace': { userId: '{userId}', subscriptions: ['{subscriptionId}'] },
  'auth-monitor-group-replace': [{ userId: '{userId}', groupMonitorId: 7 }],
};

function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (all, name: string) => values[name] ?? all);
}

function fillBody(body: unknown, values: Record<string, string>): string | undefined {
  if (body === undefined) return undefined;
  return JSON.stringify(body, (_k, v: unknown) => (typeof v === 'string' ? fill(v, values) : v));
}

/** Every route of the table with realistic values, then the web client's calls; deletes last. */
function callsFor(values: Record<string, string>): Call[] {
  const all: Call[] = [
    ...routes.map((r) => ({
      label: `${r.method} ${fullPath(r)}`,
      method: r.method,
      target: fill(`/${fullPath(r)}`, values),
      body: fillBody(BODIES[r.name], values),
    })),
    ...webClientCalls.map((c) => ({
      label: `web client: ${c.method} ${c.path}`,
      method: c.method,
      target: fill(c.path, values),
      body: fillBody(c.body, values),
    })),
  ];
  // Deletes come late, and what ends the caller's own sessions (signing out everywhere, deleting
  // itself) last, so every other call runs authenticated.
  const endsCaller = (c: Call) => /\/(delete|signOutEverywhere)$/i.test(c.target);
  const rank = (c: Call) => (endsCaller(c) ? 2 : c.method === 'DELETE' ? 1 : 0);
  return all.sort((a, b) => rank(a) - rank(b));
}

/** Types and member names, not values; problem bodies keep their status, title and detail. */
function shapeOf(contentType: string | null, text: string): unknown {
  const media = (contentType ?? '').split(';')[0]!.trim();
  if (!/json/.test(media)) return { media, length: text.length };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.length ? [walk(v[0])] : [];
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, walk((v as Record<string, unknown>)[k])]),
      );
    }
    return v === null ? 'null' : typeof v;
  };
  const parsed = text ? (JSON.parse(text) as unknown) : undefined;
  if (media === 'application/problem+json') {
    const p = parsed as Record<string, unknown>;
    return { media, status: p.status, title: p.title, detail: p.detail, members: walk(p) };
  }
  return { media, json: walk(parsed) };
}

const httpRegistrations = (loaded: StubResult): HostRegistration[] =>
  loaded.functions.flatMap((f) => {
    const trigger = Object.values(f.bindings).find((b) => b.type === 'httpTrigger');
    return trigger
      ? [{ name: f.name, methods: trigger.methods as string[], route: trigger.route as string }]
      : [];
  });

describe('routing on the Functions host, over the packaged bundle', () => {
  let work: string;
  let pkg: PackageResult;
  let calls: Call[];
  const local = new Map<string, Answer>();
  const bundled = new Map<string, Answer & { routing: HostRouting }>();

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'finwatch-host-routing-'));
    pkg = await sharedPackage();

    // One seeded database, copied for each side, so both start from the same rows.
    const seedDir = path.join(work, 'seed');
    const settings = testSettings({ DATA_DIR: seedDir });
    const seed = await startTestHost({ settings, queueWorker: false });
    const hash = await passwordHash();
    const admin = await seed.services.auth.users.create({
      email: 'alice@example.com',
      username: 'alice',
      isAdmin: true,
      passwordHash: hash,
    });
    const bob = await seed.services.auth.users.create({
      email: 'bob@example.com',
      username: 'bob',
      isAdmin: false,
      passwordHash: hash,
    });
    const token = seed.services.auth.issueToken(admin);
    await seed.close();
    for (const side of ['local', 'bundle']) cpSync(seedDir, path.join(work, side), { recursive: true });

    const values = {
      ...PARAMS,
      userId: bob.id,
      email: bob.email,
      userEmail: bob.email,
      adminEmail: admin.email,
      password: PASSWORD,
    };
    calls = callsFor(values);
    const headers = (c: Call): Record<string, string> => ({
      authorization: `Bearer ${token}`,
      'user-agent': 'finwatch-routing-test',
      ...(c.body !== undefined ? { 'content-type': 'application/json' } : {}),
    });

    const host = await startTestHost({
      settings: { ...settings, DATA_DIR: path.join(work, 'local') },
      queueWorker: false,
    });
    try {
      for (const c of calls) {
        const res = await fetch(`${host.url}${c.target}`, {
          method: c.method,
          headers: headers(c),
          body: c.body,
        });
        const text = await res.text();
        local.set(c.label, { status: res.status, shape: shapeOf(res.headers.get('content-type'), text) });
      }
    } finally {
      await host.close();
    }

    const env = Object.fromEntries(
      Object.entries({ ...settings, DATA_DIR: path.join(work, 'bundle') }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    );
    const registered = httpRegistrations(await runStub(pkg.bundle, { cwd: pkg.dir, env }));
    const routings = calls.map((c) =>
      routeLikeFunctionsHost(registered, c.method, new URL(c.target, 'http://localhost').pathname),
    );
    const requests: StubRequest[] = calls.flatMap((c, i) => {
      const routing = routings[i]!;
      if (routing.kind !== 'function') return [];
      return [
        {
          function: routing.name,
          url: `http://localhost${c.target}`,
          method: c.method,
          // Azure's front end appends the client's address, as the local host does from its socket.
          headers: { ...headers(c), 'x-forwarded-for': '127.0.0.1' },
          params: routing.params,
          body: c.body,
        },
      ];
    });
    const answered = await runStub(pkg.bundle, { cwd: pkg.dir, env, requests });
    let next = 0;
    calls.forEach((c, i) => {
      const routing = routings[i]!;
      if (routing.kind !== 'function') {
        // The host's own 404: no function, an empty body.
        bundled.set(c.label, { routing, status: 404, shape: shapeOf(null, '') });
        return;
      }
      const res = answered.responses[next++]!;
      bundled.set(c.label, {
        routing,
        status: res.status ?? 0,
        shape: res.error
          ? { error: res.error }
          : shapeOf(res.headers?.['content-type'] ?? null, res.body ?? ''),
      });
    });
  }, 300_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('covers every route of the table and every web client call, authenticated as an administrator', () => {
    expect(calls).toHaveLength(routes.length + webClientCalls.length);
    // The seeded data is real: the administrator sees both users.
    expect(local.get('web client: GET /auth/api/user/getAll')).toMatchObject({ status: 200 });
  });

  it('answers the web client main FinOps call, AnalysisRuns/latest-per-subscription, with the run list, not the by-id route', () => {
    const label = 'web client: GET /finops/api/AnalysisRuns/latest-per-subscription';
    expect(local.get(label)).toEqual({ status: 200, shape: { media: 'application/json', json: [] } });
    expect(bundled.get(label)).toMatchObject({ status: 200, shape: { media: 'application/json', json: [] } });
  });

  it('gives every request the status and body shape of the local host', () => {
    const differences = calls
      .map((c) => ({ call: c.label, local: local.get(c.label), bundle: bundled.get(c.label) }))
      .filter(
        (d) =>
          JSON.stringify([d.local?.status, d.local?.shape]) !==
          JSON.stringify([d.bundle?.status, d.bundle?.shape]),
      )
      .map((d) => ({
        call: d.call,
        local: d.local?.status,
        bundle: d.bundle?.status,
        hostPicked: d.bundle?.routing.kind === 'function' ? d.bundle.routing.name : 'host 404',
        ...(d.local?.status === d.bundle?.status
          ? { localShape: d.local?.shape, bundleShape: d.bundle?.shape }
          : {}),
      }));
    expect(differences).toEqual([]);
  });
});
