import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HttpRequest } from '@azure/functions';
import { expect } from 'vitest';
import type { AzureSimulator } from '../../dev/azure-sim/index.js';
import type { AppServices } from '../../shared/app/services.js';
import type { Caller } from '../../shared/auth/caller.js';
import type { Settings } from '../../shared/config/index.js';
import { unauthorized } from '../../shared/http/problem.js';
import {
  sharingWith,
  startTestHost,
  type TestHost,
  type TestHostOptions,
  testSettings,
} from '../support/host.js';
import { apiClient } from '../support/http.js';
import { STUB_ADMIN, STUB_USER } from '../support/users.js';

export const SIM_CERT_FILE = fileURLToPath(new URL('../../dev/azure-sim/tls/sim-cert.pem', import.meta.url));
export const USER = 'user-token';
export const ADMIN = 'admin-token';

/** Tokens for these tests: the auth module is another issue's, so the hosts here resolve two fixed callers. */
export function stubAuth(services: AppServices): void {
  services.auth.authenticate = async (request: HttpRequest): Promise<Caller> => {
    const token = (request.headers.get('authorization') ?? '').replace(/^Bearer\s+/i, '');
    if (token !== USER && token !== ADMIN) throw unauthorized();
    const who = token === ADMIN ? STUB_ADMIN : STUB_USER;
    return {
      userId: who.id,
      email: who.email,
      username: who.username,
      isAdmin: who.isAdmin,
      tokenKind: 'local',
      claims: {},
      token,
    };
  };
}

/** Settings that point the engine at the simulator, with no pauses and a 1 s heartbeat. */
export function simSettings(sim: AzureSimulator, extra: Settings = {}): Settings {
  return {
    Cloud__TenantId: '00000000-0000-0000-0000-0000000000aa',
    Cloud__ClientId: 'finwatch-test',
    Cloud__ClientSecret: 'simulator-secret',
    Cloud__ArmEndpoint: sim.url,
    Cloud__AuthorityHost: sim.url,
    Cloud__CaFile: SIM_CERT_FILE,
    CostQuery__PaceScale: '0',
    AnalysisJobs__HeartbeatSeconds: '1',
    ...extra,
  };
}

export async function startAnalysisHost(
  sim: AzureSimulator,
  options: TestHostOptions & { extra?: Settings } = {},
): Promise<TestHost> {
  const { extra, settings, ...rest } = options;
  const host = await startTestHost({ ...rest, settings: { ...simSettings(sim, extra), ...settings } });
  stubAuth(host.services);
  return host;
}

/**
 * Two instances of the app on one PostgreSQL database and one queue, both draining it every 50 ms:
 * what two scaled-out Function App instances share.
 */
export async function startTwoAnalysisHosts(sim: AzureSimulator): Promise<[TestHost, TestHost]> {
  const worker = { pollMs: 50 };
  const a = await startAnalysisHost(sim, { database: 'postgres', queueWorker: worker });
  try {
    return [a, await startAnalysisHost(sim, sharingWith(a, { queueWorker: worker }))];
  } catch (err) {
    await a.close();
    throw err;
  }
}

export type Api = ReturnType<typeof apiClient>;

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls GET jobs/{id} until its status is one of `statuses`. */
export async function waitForJob(api: Api, jobId: string, statuses: string[], timeoutMs = 20_000) {
  const res = await waitFor(
    `job ${jobId} to be ${statuses.join('|')}`,
    () => api.get(`/finops/api/Analysis/jobs/${jobId}`, { token: USER }),
    (r) => r.status === 200 && statuses.includes(r.body.status),
    timeoutMs,
  );
  return res.body;
}

export const SUB_A = '0b5c6a1e-1111-4a2b-8c3d-000000000001';
export const SUB_B = '0b5c6a1e-1111-4a2b-8c3d-000000000002';
export const SUB_C = '0b5c6a1e-1111-4a2b-8c3d-000000000003';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A local host in its own process (child-host.ts), to be killed with SIGKILL; `env` adds variables. */
export function startChildHost(
  settings: Record<string, string>,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/finops-engine/child-host.ts'], {
    cwd: root,
    env: { ...process.env, ...env, FINWATCH_CHILD_SETTINGS: JSON.stringify(settings) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve({ child, url: out.split('\n')[0]!.trim() });
    });
    child.once('exit', (code) => reject(new Error(`child host exited (${code})`)));
  });
}

/**
 * An async analysis started in a child host beside `survivor` (same database and queue), killed
 * with SIGKILL while it queries costs (slowed by the simulator, whose switches are reset after).
 */
export async function killChildHostMidJob(
  sim: AzureSimulator,
  survivor: TestHost,
  env: Record<string, string> = {},
): Promise<{ jobId: string; killedAt: number }> {
  const settings = {
    ...testSettings(simSettings(sim)),
    ConnectionStrings__SqlConnectionString: survivor.settings.ConnectionStrings__SqlConnectionString!,
    AnalysisQueue__Name: survivor.settings.AnalysisQueue__Name!,
  } as Record<string, string>;
  const { child, url } = await startChildHost(settings, env);
  try {
    sim.faults.slow(2_000, 'cost');
    const res = await apiClient(url).post('/finops/api/Analysis/start-async', { token: USER, json: SUB_B });
    expect(res.status).toBe(202);
    const jobId = res.body.jobId as string;
    await waitFor(
      'the job to query costs in the child host',
      () => survivor.services.prisma.analysisJob.findUniqueOrThrow({ where: { id: jobId } }),
      (j) => j.status === 'running' && (j.phase ?? '').startsWith('cost'),
      30_000,
    );
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    return { jobId, killedAt: Date.now() };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    sim.faults.reset();
  }
}
