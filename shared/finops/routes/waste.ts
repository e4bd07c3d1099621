/**
 * Waste you can act on (docs/waste-rules.md): totals per rule and resource group, the findings of a
 * run with the decisions in force, what changed since the previous run, and the decisions
 * themselves (dismiss or snooze a finding; exclude by tag or resource group).
 */
import { z } from 'zod';
import { withAudit } from '../../audit/record.js';
import { badRequest, conflict, HttpError, notFound } from '../../http/problem.js';
import { json, ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import {
  Problem,
  WasteChanges,
  WasteExclusionRow,
  WasteFinding,
  WasteSummary,
  WasteSuppressionRow,
} from '../contract/schemas.js';
import { assertSubscriptionAccess } from '../waste/access.js';
import { changesSincePreviousRun, latestRuns } from '../waste/changes.js';
import { runItems, runSummary } from '../waste/items.js';
import { idParam, runIdParams } from './read/common.js';

const tags = ['Waste'];
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const STATUSES = ['active', 'watch', 'dismissed', 'snoozed', 'excluded'] as const;
const subParams = z.object({ subscriptionId: z.string().regex(GUID) });

function subscriptionParam(params: Record<string, string>): string {
  const id = (params.subscriptionId ?? '').trim();
  if (!GUID.test(id)) {
    throw badRequest("The path parameter 'subscriptionId' must be a GUID.", {
      subscriptionId: [`The value '${id.slice(0, 100)}' is not a GUID.`],
    });
  }
  return id.toLowerCase();
}

async function runRef(prisma: Parameters<typeof latestRuns>[0], runId: number) {
  const run = await prisma.analysisRun.findUnique({
    where: { id: runId },
    select: { id: true, subscriptionId: true, runDate: true, currency: true },
  });
  if (!run) throw notFound('Analysis run not found');
  return run;
}

const SuppressionBody = z.object({
  resourceId: z.string().trim().min(1).max(2000),
  code: z.string().trim().min(1).max(100),
  action: z.enum(['dismiss', 'snooze']),
  reason: z.string().trim().min(1, 'A reason is required.').max(1000),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
});

const ExclusionBody = z.object({
  tagName: z.string().trim().min(1).max(512).optional(),
  tagValue: z.string().max(256).nullable().optional(),
  resourceGroup: z.string().trim().min(1).max(90).optional(),
  reason: z.string().trim().min(1, 'A reason is required.').max(1000),
});

const decisionOut = <T extends { createdAt: Date; expiresAt?: Date | null; revokedAt: Date | null }>(
  row: T,
  now: Date,
) => ({
  ...row,
  inForce:
    row.revokedAt === null && (row.expiresAt === undefined || row.expiresAt === null || row.expiresAt > now),
});

export const wasteRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-waste-summary',
    service: 'finops',
    method: 'GET',
    path: 'Waste/analysis/{analysisRunId}/summary',
    auth: 'user',
    openapi: {
      summary: 'Totals of the active findings of a run per rule and per resource group, and what is left out',
      tags,
      params: runIdParams,
      responses: { 200: { description: 'summary', schema: WasteSummary } },
    },
    async handler({ services, params }) {
      // The summary the opportunities answer keeps per run and decisions in force.
      const summary = await runSummary(services.prisma, idParam(params, 'analysisRunId'));
      if (!summary) throw notFound('Analysis run not found');
      return ok(summary);
    },
  }),
  defineRoute({
    name: 'finops-waste-findings',
    service: 'finops',
    method: 'GET',
    path: 'Waste/analysis/{analysisRunId}/findings',
    auth: 'user',
    openapi: {
      summary: 'One row per resource and finding, with its status now (optionally only one status)',
      tags,
      responses: {
        200: { description: 'findings', schema: z.array(WasteFinding) },
        404: { description: 'No such run', schema: Problem },
      },
      params: runIdParams,
      query: z.object({ status: z.enum(STATUSES).optional() }),
    },
    async handler({ services, params, query }) {
      const run = await runRef(services.prisma, idParam(params, 'analysisRunId'));
      const status = query.get('status')?.trim();
      if (status && !(STATUSES as readonly string[]).includes(status)) {
        throw badRequest(`status must be one of ${STATUSES.join(', ')}.`, {
          status: [`'${status}' is not valid.`],
        });
      }
      const items = await runItems(services.prisma, run, new Date());
      return ok(status ? items.filter((i) => i.status === status) : items);
    },
  }),
  defineRoute({
    name: 'finops-waste-changes',
    service: 'finops',
    method: 'GET',
    path: 'Waste/subscriptions/{subscriptionId}/changes',
    auth: 'user',
    openapi: {
      summary: 'Findings new since the previous run of the subscription, and findings resolved since',
      tags,
      responses: {
        200: { description: 'changes', schema: WasteChanges },
        404: { description: 'No runs', schema: Problem },
      },
      params: subParams,
    },
    async handler({ services, params }) {
      const c = await changesSincePreviousRun(services.prisma, subscriptionParam(params), new Date());
      if (!c) throw notFound('No analysis runs found');
      return ok(c);
    },
  }),
  defineRoute({
    name: 'finops-waste-suppressions-list',
    service: 'finops',
    method: 'GET',
    path: 'Waste/subscriptions/{subscriptionId}/suppressions',
    auth: 'user',
    openapi: {
      summary: 'Every dismissal and snooze of the subscription, revoked and expired ones included',
      tags,
      responses: { 200: { description: 'suppressions', schema: z.array(WasteSuppressionRow) } },
      params: subParams,
    },
    async handler({ services, params }) {
      const rows = await services.prisma.wasteSuppression.findMany({
        where: { subscriptionId: subscriptionParam(params) },
        orderBy: { id: 'asc' },
      });
      const now = new Date();
      return ok(rows.map((r) => decisionOut(r, now)));
    },
  }),
  defineRoute({
    name: 'finops-waste-suppressions-create',
    service: 'finops',
    method: 'POST',
    path: 'Waste/subscriptions/{subscriptionId}/suppressions',
    auth: 'user',
    openapi: {
      summary: 'Dismiss (optionally until expiresAt) or snooze (until expiresAt) one finding of a resource',
      description:
        'Needs access to the subscription (an administrator, or a user it is assigned to). The finding must be in the latest run.',
      tags,
      responses: {
        201: { description: 'The stored suppression', schema: WasteSuppressionRow },
        400: { description: 'Validation problem', schema: Problem },
        403: { description: 'No access to the subscription', schema: Problem },
        404: { description: 'No such finding in the latest run', schema: Problem },
        409: { description: 'A decision on this finding is in force', schema: Problem },
        422: { description: 'expiresAt is not in the future', schema: Problem },
      },
      params: subParams,
      body: SuppressionBody,
    },
    async handler({ services, params, caller, body, request }) {
      const sub = subscriptionParam(params);
      await assertSubscriptionAccess(services.prisma, caller, sub);
      const b = await body(SuppressionBody);
      const now = new Date();
      if (b.action === 'snooze' && !b.expiresAt) {
        throw badRequest('A snooze needs expiresAt.', { expiresAt: ['A snooze needs an expiry date.'] });
      }
      const expiresAt = b.expiresAt ? new Date(b.expiresAt) : null;
      if (expiresAt && expiresAt <= now) throw new HttpError(422, 'expiresAt must be in the future.');
      const [latest] = await latestRuns(services.prisma, sub, 1);
      const found = latest
        ? (await runItems(services.prisma, latest, now)).some(
            (i) => i.resourceId.toLowerCase() === b.resourceId.toLowerCase() && i.code === b.code,
          )
        : false;
      if (!found) throw notFound('The latest run of this subscription has no such finding.');
      const resourceId = b.resourceId.toLowerCase();
      const existing = await services.prisma.wasteSuppression.findFirst({
        where: {
          subscriptionId: sub,
          resourceId,
          code: b.code,
          revokedAt: null,
          OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
        },
      });
      if (existing)
        throw conflict(
          `This finding is already ${existing.kind} (suppression ${existing.id}); revoke it first.`,
        );
      const row = await withAudit(
        services.prisma,
        (tx) =>
          tx.wasteSuppression.create({
            data: {
              subscriptionId: sub,
              resourceId,
              code: b.code,
              kind: b.action === 'snooze' ? 'snoozed' : 'dismissed',
              reason: b.reason,
              expiresAt,
              createdBy: caller.email || caller.userId,
              createdAt: now,
            },
          }),
        (created) => ({
          actor: caller,
          action: 'waste.suppressed',
          target: { type: 'wasteSuppression', id: created.id },
          details: {
            subscriptionId: sub,
            resourceId,
            code: b.code,
            kind: created.kind,
            reason: b.reason,
            expiresAt: expiresAt?.toISOString() ?? null,
          },
          request,
        }),
      );
      return json(201, decisionOut(row, now));
    },
  }),
  defineRoute({
    name: 'finops-waste-suppressions-revoke',
    service: 'finops',
    method: 'DELETE',
    path: 'Waste/subscriptions/{subscriptionId}/suppressions/{id}',
    auth: 'user',
    openapi: {
      summary: 'Revoke a dismissal or snooze (the row is kept, with who revoked it and when)',
      tags,
      responses: {
        200: { description: 'The revoked suppression', schema: WasteSuppressionRow },
        404: { description: 'Not found', schema: Problem },
      },
    },
    async handler({ services, params, caller, request }) {
      const sub = subscriptionParam(params);
      await assertSubscriptionAccess(services.prisma, caller, sub);
      const id = idParam(params, 'id');
      const row = await services.prisma.wasteSuppression.findFirst({ where: { id, subscriptionId: sub } });
      if (!row) throw notFound('Suppression not found');
      if (row.revokedAt) return ok(decisionOut(row, new Date()));
      const done = await withAudit(
        services.prisma,
        (tx) =>
          tx.wasteSuppression.update({
            where: { id },
            data: { revokedAt: new Date(), revokedBy: caller.email || caller.userId },
          }),
        () => ({
          actor: caller,
          action: 'waste.suppressionRevoked',
          target: { type: 'wasteSuppression', id },
          details: { subscriptionId: sub, resourceId: row.resourceId, code: row.code },
          request,
        }),
      );
      return ok(decisionOut(done, new Date()));
    },
  }),
  defineRoute({
    name: 'finops-waste-exclusions-list',
    service: 'finops',
    method: 'GET',
    path: 'Waste/subscriptions/{subscriptionId}/exclusions',
    auth: 'user',
    openapi: {
      summary: 'Every exclusion of the subscription, revoked ones included',
      tags,
      responses: { 200: { description: 'exclusions', schema: z.array(WasteExclusionRow) } },
      params: subParams,
    },
    async handler({ services, params }) {
      const rows = await services.prisma.wasteExclusion.findMany({
        where: { subscriptionId: subscriptionParam(params) },
        orderBy: { id: 'asc' },
      });
      const now = new Date();
      return ok(rows.map((r) => decisionOut(r, now)));
    },
  }),
  defineRoute({
    name: 'finops-waste-exclusions-create',
    service: 'finops',
    method: 'POST',
    path: 'Waste/subscriptions/{subscriptionId}/exclusions',
    auth: 'admin',
    openapi: {
      summary:
        'Exclude resources from waste by tag (tagName, optional tagValue) or by resourceGroup (administrators)',
      tags,
      responses: {
        201: { description: 'The stored exclusion', schema: WasteExclusionRow },
        400: { description: 'Validation problem', schema: Problem },
      },
      params: subParams,
      body: ExclusionBody,
    },
    async handler({ services, params, caller, body, request }) {
      const sub = subscriptionParam(params);
      const b = await body(ExclusionBody);
      if ((b.tagName === undefined) === (b.resourceGroup === undefined)) {
        throw badRequest('Give either tagName or resourceGroup.', {
          tagName: ['Give either tagName or resourceGroup.'],
        });
      }
      const row = await withAudit(
        services.prisma,
        (tx) =>
          tx.wasteExclusion.create({
            data: {
              subscriptionId: sub,
              kind: b.tagName !== undefined ? 'tag' : 'resourceGroup',
              tagName: b.tagName ?? null,
              tagValue: b.tagName !== undefined ? (b.tagValue ?? null) : null,
              resourceGroup: b.resourceGroup ?? null,
              reason: b.reason,
              createdBy: caller.email || caller.userId,
            },
          }),
        (created) => ({
          actor: caller,
          action: 'waste.excluded',
          target: { type: 'wasteExclusion', id: created.id },
          details: {
            subscriptionId: sub,
            kind: created.kind,
            tagName: created.tagName,
            tagValue: created.tagValue,
            resourceGroup: created.resourceGroup,
            reason: b.reason,
          },
          request,
        }),
      );
      return json(201, decisionOut(row, new Date()));
    },
  }),
  defineRoute({
    name: 'finops-waste-exclusions-revoke',
    service: 'finops',
    method: 'DELETE',
    path: 'Waste/subscriptions/{subscriptionId}/exclusions/{id}',
    auth: 'admin',
    openapi: {
      summary: 'Revoke an exclusion (the row is kept, with who revoked it and when)',
      tags,
      responses: {
        200: { description: 'The revoked exclusion', schema: WasteExclusionRow },
        404: { description: 'Not found', schema: Problem },
      },
    },
    async handler({ services, params, caller, request }) {
      const sub = subscriptionParam(params);
      const id = idParam(params, 'id');
      const row = await services.prisma.wasteExclusion.findFirst({ where: { id, subscriptionId: sub } });
      if (!row) throw notFound('Exclusion not found');
      if (row.revokedAt) return ok(decisionOut(row, new Date()));
      const done = await withAudit(
        services.prisma,
        (tx) =>
          tx.wasteExclusion.update({
            where: { id },
            data: { revokedAt: new Date(), revokedBy: caller.email || caller.userId },
          }),
        () => ({
          actor: caller,
          action: 'waste.exclusionRevoked',
          target: { type: 'wasteExclusion', id },
          details: { subscriptionId: sub },
          request,
        }),
      );
      return ok(decisionOut(done, new Date()));
    },
  }),
];
