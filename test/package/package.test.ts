import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PackageResult } from '../../scripts/package.js';
import { routes } from '../../shared/app/routes.js';
import { fullPath } from '../../shared/http/route.js';
import { sharedPackage } from '../support/shared-package.js';
import { type CoreBinding, REPO_ROOT, runStub, type StubRequest, type StubResult } from './stub.js';

/** Entry names of a zip file, from its central directory (no extraction library needed). */
function zipEntries(file: string): string[] {
  const buf = readFileSync(file);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip file');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory');
    const nameLength = buf.readUInt16LE(at + 28);
    const extra = buf.readUInt16LE(at + 30);
    const comment = buf.readUInt16LE(at + 32);
    names.push(buf.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extra + comment;
  }
  return names;
}

const trigger = (fn: StubResult['functions'][number]): CoreBinding | undefined =>
  Object.values(fn.bindings).find((b) => b.direction === 'in' && /trigger$/i.test(b.type));

const appVersion = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

// A token-protected GET without parameters per service: answered 401 by the bundle's auth module.
const protectedRoute = (service: 'auth' | 'finops') => {
  const route = routes.find(
    (r) => r.service === service && r.auth !== 'none' && r.method === 'GET' && !r.path.includes('{'),
  );
  if (!route) throw new Error(`no protected GET route without parameters in ${service}`);
  return route;
};

// Every HTTP request reaches its service's catch-all function; the router inside picks the route.
const call = (url: string, headers?: Record<string, string>): StubRequest => {
  const service = new URL(url).pathname.split('/')[1]!;
  return { function: `${service}-api`, url, headers, params: { path: url.split('/api/')[1] ?? '' } };
};

const requests: StubRequest[] = [
  call('http://localhost/auth/api/Version'),
  call('http://localhost/finops/api/Version', { accept: 'application/json' }),
  ...(['auth', 'finops'] as const).map((service) =>
    call(`http://localhost/${fullPath(protectedRoute(service))}`),
  ),
  call('http://localhost/finops/api/NoSuchThing'),
  call('http://localhost/finops/api/swagger/assets/swagger-ui.css'),
  call('http://localhost/metrics/api/Version'),
];

describe('deployment package (npm run package)', () => {
  let pkg: PackageResult;
  let loaded: StubResult;

  beforeAll(async () => {
    // Built outside the repository (in the run's temporary folder), so nothing can resolve from
    // the repository's node_modules.
    pkg = await sharedPackage();
    loaded = await runStub(pkg.bundle, { requests, cwd: pkg.dir });
  }, 120_000);

  it('loads under the Functions worker stand-in and selects the @azure/functions programming model', () => {
    expect(loaded.importError).toBeUndefined();
    expect(loaded.programmingModel?.name).toBe('@azure/functions');
  });

  it('registers one anonymous catch-all HTTP function per service, for every method, and the console, and nothing else over HTTP', () => {
    const http = loaded.functions.filter((f) => trigger(f)?.type === 'httpTrigger');
    expect(http.map((f) => f.name)).toEqual(['auth-api', 'finops-api', 'metrics-api', 'console']);
    expect(trigger(http[3]!)).toMatchObject({
      route: 'console/{*path}',
      authLevel: 'anonymous',
      methods: ['GET', 'HEAD'],
    });
    for (const fn of http.slice(0, 3)) {
      const service = fn.name.replace(/-api$/, '');
      expect(trigger(fn)).toMatchObject({
        route: `${service}/api/{*path}`,
        authLevel: 'anonymous',
        methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'],
      });
      expect(Object.values(fn.bindings).some((b) => b.direction === 'out' && b.type === 'http')).toBe(true);
    }
  });

  it('registers the analysis-jobs queue trigger, the weekly timer, the job sweeper, the notification outbox, the metrics housekeeping and the silence check', () => {
    const queue = loaded.functions.filter((f) => trigger(f)?.type === 'queueTrigger');
    expect(queue).toHaveLength(1);
    expect(trigger(queue[0]!)).toMatchObject({
      queueName: 'analysis-jobs',
      connection: 'AzureWebJobsStorage',
    });
    const timers = new Map(
      loaded.functions.filter((f) => trigger(f)?.type === 'timerTrigger').map((f) => [f.name, trigger(f)]),
    );
    expect([...timers.keys()].sort()).toEqual([
      'analysis-job-sweeper',
      'metrics-housekeeping',
      'metrics-silence',
      'notification-outbox',
      'weekly-analysis',
    ]);
    // Nodes and clusters that stopped reporting, checked at second 30 of every minute.
    expect(timers.get('metrics-silence')).toMatchObject({ schedule: '30 * * * * *' });
    // Metrics partitions made ahead and dropped past retention, hourly.
    expect(timers.get('metrics-housekeeping')).toMatchObject({
      schedule: '0 7 * * * *',
      runOnStartup: false,
    });
    expect(timers.get('weekly-analysis')).toMatchObject({ schedule: '0 0 2 * * 0', runOnStartup: false });
    expect(timers.get('analysis-job-sweeper')).toMatchObject({ schedule: '0 */1 * * * *' });
    // Notifications__PollSeconds (15 by default) divides a minute: every 15 seconds.
    expect(timers.get('notification-outbox')).toMatchObject({
      schedule: '*/15 * * * * *',
      runOnStartup: false,
    });
  });

  it('answers through the bundled handlers: the Version of each service, 401 without a token, 404 and the docs assets', () => {
    const [authVersion, finopsVersion, authProtected, finopsProtected, unknown, css, metricsVersion] =
      loaded.responses;
    expect(loaded.responses.filter((r) => r.error)).toEqual([]);
    expect(authVersion).toMatchObject({ status: 200, body: appVersion });
    expect(finopsVersion).toMatchObject({ status: 200, body: JSON.stringify(appVersion) });
    expect(metricsVersion).toMatchObject({ status: 200, body: appVersion });
    for (const res of [authProtected, finopsProtected]) {
      expect(res?.status).toBe(401);
      expect(res?.headers?.['content-type']).toMatch(/application\/problem\+json/);
    }
    expect(unknown?.status).toBe(404);
    expect(css).toMatchObject({ status: 200 });
    expect(css?.body?.length).toBeGreaterThan(10_000);
  });

  it('zips host.json, a minimal package.json, the bundle, its wasm assets, the migrations and argon2 for linux-x64', () => {
    const entries = zipEntries(pkg.zip);
    expect(entries).toEqual(expect.arrayContaining(['host.json', 'package.json', 'dist/index.mjs']));
    expect(entries).toEqual(
      expect.arrayContaining([
        'prisma/schema.prisma',
        'dist/pglite.wasm',
        'dist/pglite.data',
        'dist/initdb.wasm',
        'pg_trgm.tar.gz',
        'node_modules/@prisma/schema-engine-wasm/schema_engine_bg.wasm',
        'node_modules/argon2/prebuilds/linux-x64/argon2.glibc.node',
      ]),
    );
    const migrations = entries.filter((e) => /^prisma\/migrations\/[^/]+\/migration\.sql$/.test(e));
    expect(migrations.length).toBeGreaterThan(0);
    expect(entries).toEqual(expect.arrayContaining(['prisma/migrations/migration_lock.toml']));
    // Nothing but the runtime externals in node_modules: no @azure/functions, no Prisma client.
    const modules = new Set(
      entries
        .filter((e) => e.startsWith('node_modules/'))
        .map((e) =>
          e
            .split('/')
            .slice(1, e.split('/')[1]!.startsWith('@') ? 3 : 2)
            .join('/'),
        ),
    );
    expect([...modules].sort()).toEqual(
      ['@phc/format', '@prisma/schema-engine-wasm', 'argon2', 'node-gyp-build', 'swagger-ui-dist'].sort(),
    );
    expect(entries).toEqual(pkg.files);

    const manifest = JSON.parse(readFileSync(path.join(pkg.dir, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      name: 'finwatch',
      version: appVersion,
      type: 'module',
      main: 'dist/index.mjs',
    });
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@prisma/schema-engine-wasm', 'argon2']);
    expect(readFileSync(path.join(pkg.dir, 'host.json'), 'utf8')).toBe(
      readFileSync(path.join(REPO_ROOT, 'host.json'), 'utf8'),
    );
  });
});
