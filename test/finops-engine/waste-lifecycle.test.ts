import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ZodType } from 'zod';
import { type AzureSimulator, startAzureSimulator } from '../../dev/azure-sim/index.js';
import { wasteRoutes } from '../../shared/finops/routes/waste.js';
import { createUser, ensureAuth, mintToken, type TestUser } from '../finops-api/support.js';
import { auditRecordsOf } from '../support/audit.js';
import { startTestHost, type TestHost } from '../support/host.js';
import { apiClient, isProblem } from '../support/http.js';
import { type Api, SUB_A, simSettings } from './support.js';

interface Finding {
  resourceId: string;
  resourceName: string;
  code: string;
  status: string;
  ageDays: number;
  firstSeenAt: string;
  estimatedMonthlySaving: number;
  suppression: { kind: string; by: string; reason: string; at: string; until: string | null } | null;
}

const DAY = 86_400_000;

// Time moves by vi.setSystemTime (Date only; timers stay real), so the host, the engine and the
// simulator in this process all see the same simulated clock across runs.
describe('waste lifecycle through HTTP: age thresholds over runs, snoozes, dismissals, exclusions, changes', () => {
  let sim: AzureSimulator;
  let host: TestHost;
  let api: Api;
  let admin: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  const start = Date.now();
  const runs: number[] = [];
  const as = (u: TestUser) => ({ token: mintToken({ ...u, username: u.email }) });

  async function analyse(): Promise<number> {
    const res = await api.post('/finops/api/Analysis/start', { ...as(member), json: SUB_A });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    runs.push(res.body.analysisRunId);
    return res.body.analysisRunId;
  }
  const findings = async (run: number): Promise<Finding[]> => {
    const res = await api.get(`/finops/api/Waste/analysis/${run}/findings`, as(member));
    expect(res.status).toBe(200);
    return res.body;
  };
  const finding = (list: Finding[], name: string, code: string) =>
    list.find((f) => f.resourceName === name && f.code === code)!;
  const summary = async (run: number) =>
    (await api.get(`/finops/api/Waste/analysis/${run}/summary`, as(member))).body;
  const rule = (s: { byRule: Array<{ code: string; findings: number }> }, code: string) =>
    s.byRule.find((r) => r.code === code);

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    sim = await startAzureSimulator({ resourcesPerSubscription: 12, wasteCatalogue: true });
    host = await startTestHost({ queueWorker: false, settings: simSettings(sim) });
    api = apiClient(host.url);
    admin = await createUser(host.services.prisma, true);
    member = await createUser(host.services.prisma, false, { subscriptions: [SUB_A] });
    outsider = await createUser(host.services.prisma, false);
    await ensureAuth(host, member);
    const ddos = sim.subscription(SUB_A).resources.find((r) => r.name === 'ddos-cat-idle')!;
    ddos.tags['finwatch-ignore'] = 'true';
  }, 60_000);
  afterAll(async () => {
    vi.useRealTimers();
    await host?.close();
    await sim?.close();
  });

  it('lists a newly seen deallocated VM as "watch" and an unattached disk detached 45 days ago as waste', async () => {
    const run = await analyse();
    const list = await findings(run);
    expect(finding(list, 'vm-cat-deallocated', 'VmDeallocated')).toMatchObject({
      status: 'watch',
      ageDays: 0,
    });
    expect(finding(list, 'disk-cat-unattached', 'UnattachedDisk')).toMatchObject({
      status: 'active',
      ageDays: 45,
    });
    const s = await summary(run);
    // Every deallocated VM is new to finwatch here, so none counts yet.
    expect(rule(s, 'VmDeallocated')).toBeUndefined();
    const watched = list.filter((f) => f.status === 'watch').map((f) => f.resourceName);
    expect(watched).toContain('vm-cat-deallocated');
    expect(watched).not.toContain('disk-cat-unattached');
    expect(s.leftOut.watch.findings).toBe(watched.length);
    expect(rule(s, 'UnattachedDisk')).toMatchObject({
      findings: 1,
      estimatedMonthlySaving: finding(list, 'disk-cat-unattached', 'UnattachedDisk').estimatedMonthlySaving,
    });
    // The dashboard's optimization opportunities carry the same totals.
    const dash = await api.get(
      `/finops/api/Dashboard/optimization-opportunities?subscriptionId=${SUB_A}`,
      as(member),
    );
    expect(dash.status).toBe(200);
    expect(dash.body.waste).toEqual(s);
  });

  it('turns the deallocated VM into waste once it has been seen for 30 days, keeping its first-seen time', async () => {
    const first = finding(await findings(runs[0]!), 'vm-cat-deallocated', 'VmDeallocated');
    vi.setSystemTime(start + 20 * DAY);
    const mid = finding(await findings(await analyse()), 'vm-cat-deallocated', 'VmDeallocated');
    expect(mid).toMatchObject({ status: 'watch', ageDays: 20, firstSeenAt: first.firstSeenAt });
    // Between the runs a stopped VM is deallocated by its owner: that finding is resolved.
    const stopped = sim.subscription(SUB_A).resources.find((r) => r.name === 'vm-cat-stopped')!;
    (
      stopped.properties.extended as { instanceView: { powerState: { code: string } } }
    ).instanceView.powerState.code = 'PowerState/running';
    vi.setSystemTime(start + 31 * DAY);
    const run = await analyse();
    const later = finding(await findings(run), 'vm-cat-deallocated', 'VmDeallocated');
    expect(later).toMatchObject({ status: 'active', ageDays: 31, firstSeenAt: first.firstSeenAt });
    expect(rule(await summary(run), 'VmDeallocated')).toBeDefined();
  });

  it('answers what is new and what was resolved since the previous run', async () => {
    const res = await api.get(`/finops/api/Waste/subscriptions/${SUB_A}/changes`, as(member));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ analysisRunId: runs[2], previousAnalysisRunId: runs[1] });
    // Snapshots 5 days old at the start crossed the 30-day snapshot rule between the runs.
    const fresh = res.body.new as Finding[];
    expect(new Set(fresh.map((f) => f.code))).toEqual(new Set(['OldSnapshot']));
    expect(fresh.map((f) => f.resourceName)).toContain('snap-cat-recent');
    expect(res.body.resolved.map((f: Finding) => `${f.resourceName} ${f.code}`)).toEqual([
      'vm-cat-stopped VmStoppedNotDeallocated',
    ]);
  });

  it('drops a snoozed finding out of the totals until the snooze expires, and keeps who and when', async () => {
    const run = runs[2]!;
    const disk = finding(await findings(run), 'disk-cat-unattached', 'UnattachedDisk');
    const before = await summary(run);
    const until = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const path = `/finops/api/Waste/subscriptions/${SUB_A}/suppressions`;
    const body = {
      resourceId: disk.resourceId,
      code: 'UnattachedDisk',
      action: 'snooze',
      reason: 'migration next week',
      expiresAt: until,
    };
    expect(isProblem(await api.post(path, { ...as(outsider), json: body }), 403)).toBe(true);
    const res = await api.post(path, { ...as(member), json: body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'snoozed',
      createdBy: member.email,
      reason: 'migration next week',
      inForce: true,
    });
    expect(isProblem(await api.post(path, { ...as(member), json: body }), 409)).toBe(true);

    const snoozed = await summary(run);
    expect(rule(snoozed, 'UnattachedDisk')?.findings ?? 0).toBe(rule(before, 'UnattachedDisk')!.findings - 1);
    expect(snoozed.leftOut.snoozed.findings).toBe(1);
    expect(snoozed.totals.estimatedMonthlySaving).toBeCloseTo(
      before.totals.estimatedMonthlySaving - disk.estimatedMonthlySaving,
      2,
    );
    expect(finding(await findings(run), 'disk-cat-unattached', 'UnattachedDisk')).toMatchObject({
      status: 'snoozed',
      suppression: { kind: 'snoozed', by: member.email, reason: 'migration next week', until },
    });

    vi.setSystemTime(Date.now() + 3 * 3_600_000);
    const after = await summary(run);
    expect(after.totals).toEqual(before.totals);
    expect(after.leftOut.snoozed.findings).toBe(0);
    const list = await api.get(path, as(member));
    expect(list.body).toEqual([
      expect.objectContaining({ id: res.body.id, createdBy: member.email, inForce: false }),
    ]);
  });

  it('dismisses a finding until revoked; the revocation is kept with who and when', async () => {
    const run = runs[2]!;
    const agw = finding(await findings(run), 'agw-cat-empty', 'AppGatewayWithoutBackends');
    const path = `/finops/api/Waste/subscriptions/${SUB_A}/suppressions`;
    const res = await api.post(path, {
      ...as(member),
      json: { resourceId: agw.resourceId, code: agw.code, action: 'dismiss', reason: 'standby for DR' },
    });
    expect(res.status).toBe(201);
    expect(res.body.expiresAt).toBeNull();
    expect(rule(await summary(run), 'AppGatewayWithoutBackends')).toBeUndefined();
    const revoked = await api.delete(`${path}/${res.body.id}`, as(member));
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ revokedBy: member.email, inForce: false });
    expect(revoked.body.revokedAt).not.toBeNull();
    expect(rule(await summary(run), 'AppGatewayWithoutBackends')).toMatchObject({ findings: 1 });
    // Both decisions are in the audit trail, with who made them.
    const made = await auditRecordsOf(host.services.prisma, 'waste.suppressed', res.body.id);
    expect(made.map((r) => [r.actorEmail, (r.details as { reason?: string }).reason])).toEqual([
      [member.email, 'standby for DR'],
    ]);
    const undone = await auditRecordsOf(host.services.prisma, 'waste.suppressionRevoked', res.body.id);
    expect(undone.map((r) => r.actorEmail)).toEqual([member.email]);
  });

  it('refuses bad decisions with problem+json: no reason, snooze without or with a past expiry, unknown finding', async () => {
    const path = `/finops/api/Waste/subscriptions/${SUB_A}/suppressions`;
    const disk = finding(await findings(runs[2]!), 'disk-cat-unattached', 'UnattachedDisk');
    const base = { resourceId: disk.resourceId, code: 'UnattachedDisk', action: 'snooze' };
    expect(
      isProblem(
        await api.post(path, {
          ...as(member),
          json: { ...base, reason: ' ', expiresAt: new Date(Date.now() + DAY).toISOString() },
        }),
        400,
      ),
    ).toBe(true);
    expect(isProblem(await api.post(path, { ...as(member), json: { ...base, reason: 'r' } }), 400)).toBe(
      true,
    );
    expect(
      isProblem(
        await api.post(path, {
          ...as(member),
          json: { ...base, reason: 'r', expiresAt: new Date(Date.now() - DAY).toISOString() },
        }),
        422,
      ),
    ).toBe(true);
    expect(
      isProblem(
        await api.post(path, {
          ...as(member),
          json: {
            ...base,
            code: 'OldSnapshot',
            reason: 'r',
            expiresAt: new Date(Date.now() + DAY).toISOString(),
          },
        }),
        404,
      ),
    ).toBe(true);
    expect(
      isProblem(
        await api.post(`/finops/api/Waste/subscriptions/not-a-guid/suppressions`, {
          ...as(member),
          json: base,
        }),
        400,
      ),
    ).toBe(true);
  });

  it('lets an administrator exclude by tag or resource group; other users may not', async () => {
    const run = runs[2]!;
    const path = `/finops/api/Waste/subscriptions/${SUB_A}/exclusions`;
    const byTag = { tagName: 'finwatch-ignore', tagValue: 'true', reason: 'kept on purpose' };
    expect(isProblem(await api.post(path, { ...as(member), json: byTag }), 403)).toBe(true);
    expect(rule(await summary(run), 'DdosPlanWithoutVnet')).toMatchObject({ findings: 1 });
    const tag = await api.post(path, { ...as(admin), json: byTag });
    expect(tag.status).toBe(201);
    const group = await api.post(path, {
      ...as(admin),
      json: { resourceGroup: 'RG-WASTE-EMPTY', reason: 'landing zone' },
    });
    expect(group.status).toBe(201);
    expect(isProblem(await api.post(path, { ...as(admin), json: { reason: 'neither' } }), 400)).toBe(true);
    const s = await summary(run);
    expect(rule(s, 'DdosPlanWithoutVnet')).toBeUndefined();
    expect(rule(s, 'EmptyResourceGroup')).toBeUndefined();
    expect(s.leftOut.excluded.findings).toBe(2);
    const excluded = (await findings(run)).filter((f) => f.status === 'excluded');
    expect(excluded.map((f) => f.suppression?.by)).toEqual([admin.email, admin.email]);
    await api.delete(`${path}/${tag.body.id}`, as(admin));
    expect(rule(await summary(run), 'DdosPlanWithoutVnet')).toMatchObject({ findings: 1 });
    const excludedBy = await auditRecordsOf(host.services.prisma, 'waste.excluded', group.body.id);
    expect(
      excludedBy.map((r) => [r.actorEmail, (r.details as { resourceGroup?: string }).resourceGroup]),
    ).toEqual([[admin.email, 'RG-WASTE-EMPTY']]);
    const revokedBy = await auditRecordsOf(host.services.prisma, 'waste.exclusionRevoked', tag.body.id);
    expect(revokedBy.map((r) => r.actorEmail)).toEqual([admin.email]);
  });

  it('answers every waste route with its declared schema, and 401 without a token', async () => {
    const paths: Record<string, string> = {
      'finops-waste-summary': `Waste/analysis/${runs[2]}/summary`,
      'finops-waste-findings': `Waste/analysis/${runs[2]}/findings`,
      'finops-waste-changes': `Waste/subscriptions/${SUB_A}/changes`,
      'finops-waste-suppressions-list': `Waste/subscriptions/${SUB_A}/suppressions`,
      'finops-waste-exclusions-list': `Waste/subscriptions/${SUB_A}/exclusions`,
    };
    for (const route of wasteRoutes) {
      const anonymous = await api.call(
        route.method,
        `/finops/api/${route.path.replace(/\{(\w+)\}/g, '1')}`,
        {},
      );
      expect(isProblem(anonymous, 401), route.name).toBe(true);
      const path = paths[route.name];
      if (!path) continue;
      const res = await api.get(`/finops/api/${path}`, as(member));
      expect(res.status, route.name).toBe(200);
      const schema = route.openapi?.responses?.[200]?.schema as ZodType;
      const parsed = schema.safeParse(res.body);
      expect(parsed.success, `${route.name}: ${parsed.error?.message}`).toBe(true);
    }
    expect(Object.keys(paths).every((n) => wasteRoutes.some((r) => r.name === n))).toBe(true);
  });
});
