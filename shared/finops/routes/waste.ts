/**
 * Waste you can act on (docs/waste-rules.md): totals per rule and resource group, the findings of a
 * run with the decisions in force, what changed since the previous run, and the decisions
 * themselves (dismiss or snooze a finding; exclude by tag or resource group).
 */
import { z } from 'zod';
import type { PrismaClient } from '../../db/client.js';
import { idText, subscriptionId, text } from '../../http/fields.js';
import { conflict, HttpError, notFound } from '../../http/problem.js';
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
import { changesSincePreviousRun, latestRuns, runRef } from '../waste/changes.js';
import {
  createExclusion,
  createSuppression,
  listExclusions,
  listSuppressions,
  revokeExclusion,
  revokeSuppression,
  suppressionInForce,
} from '../waste/decision-store.js';
import { runItems, runSummary } from '../waste/items.js';
import {
  PAGED_HEADERS_NOTE,
  pagedHeaders,
  pageOf,
  pagingQuery,
  runIdParams,
  UNPAGED_NOTE,
} from './read/common.js';

const tags = ['Waste'];
const STATUSES = ['active', 'watch', 'dismissed', 'snoozed', 'excluded'] as const;
const subParams = z.object({ subscriptionId: subscriptionId() });
const decisionParams = subParams.extend({ id: idText() });

const SuppressionBody = z
  .object({
    resourceId: text(2000),
    code: text(100),
    action: z.enum(['dismiss', 'snooze']),
    reason: text(1000),
    expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .refine((b) => b.action !== 'snooze' || b.expiresAt, {
    message: 'A snooze needs expiresAt.',
    path: ['expiresAt'],
  });

const ExclusionBody = z
  .object({
    tagName: text(512).optional(),
    tagValue: z.string().max(256).nullable().optional(),
    resourceGroup: text(90).optional(),
    reason: text(1000),
  })
  .refine((b) => (b.tagName === undefined) !== (b.resourceGroup === undefined), {
    message: 'Give either tagName or resourceGroup.',
    path: ['tagName'],
  });

const decisionOut = <T extends { createdAt: Date; expiresAt?: Date | null; revokedAt: Date | null }>(
  row: T,
  now: Date,
) => ({
  ...row,
  inForce:
    row.revokedAt === null && (row.expiresAt === undefined || row.expiresAt === null || row.expiresAt > now),
});

/** The list of a subscription's dismissals and snoozes, or of its exclusions: one shape, paged. */
function decisionListRoute<Row extends { createdAt: Date; expiresAt?: Date | null; revokedAt: Date | null }>(
  kind: 'suppressions' | 'exclusions',
  summary: string,
  schema: z.ZodType,
  list: (
    prisma: PrismaClient,
    subscriptionId: string,
    skip: number,
    take: number,
  ) => Promise<{ rows: Row[]; total: number }>,
): RouteDefinition {
  return defineRoute({
    name: `finops-waste-${kind}-list`,
    service: 'finops',
    method: 'GET',
    path: `Waste/subscriptions/{subscriptionId}/${kind}`,
    auth: 'user',
    openapi: {
      summary,
      description: `${UNPAGED_NOTE} ${PAGED_HEADERS_NOTE}`,
      tags,
      responses: { 200: { description: kind, schema: z.array(schema) } },
    },
    input: { params: subParams, query: pagingQuery },
    async handler({ services, input }) {
      const p = pageOf(input.query);
      const { rows, total } = await list(services.prisma, input.params.subscriptionId, p.skip, p.pageSize);
      const now = new Date();
      return ok(
        rows.map((r) => decisionOut(r, now)),
        pagedHeaders(total, p),
      );
    },
  });
}

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
      responses: { 200: { description: 'summary', schema: WasteSummary } },
    },
    input: { params: runIdParams },
    async handler({ services, input }) {
      // The summary the opportunities answer keeps per run and decisions in force.
      const summary = await runSummary(services.prisma, input.params.analysisRunId);
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
    },
    input: { params: runIdParams, query: z.object({ status: z.enum(STATUSES).optional() }) },
    async handler({ services, input }) {
      const run = await runRef(services.prisma, input.params.analysisRunId);
      if (!run) throw notFound('Analysis run not found');
      const { status } = input.query;
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
    },
    input: { params: subParams },
    async handler({ services, input }) {
      const c = await changesSincePreviousRun(services.prisma, input.params.subscriptionId, new Date());
      if (!c) throw notFound('No analysis runs found');
      return ok(c);
    },
  }),
  decisionListRoute(
    'suppressions',
    'Every dismissal and snooze of the subscription, revoked and expired ones included',
    WasteSuppressionRow,
    listSuppressions,
  ),
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
    },
    input: { params: subParams, body: SuppressionBody },
    async handler({ services, input, caller, request }) {
      const sub = input.params.subscriptionId;
      await assertSubscriptionAccess(services.prisma, caller, sub);
      const b = input.body;
      const now = new Date();
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
      const existing = await suppressionInForce(
        services.prisma,
        { subscriptionId: sub, resourceId, code: b.code },
        now,
      );
      if (existing)
        throw conflict(
          `This finding is already ${existing.kind} (suppression ${existing.id}); revoke it first.`,
        );
      const row = await createSuppression(
        services.prisma,
        {
          subscriptionId: sub,
          resourceId,
          code: b.code,
          kind: b.action === 'snooze' ? 'snoozed' : 'dismissed',
          reason: b.reason,
          expiresAt,
          createdBy: caller.email || caller.userId,
          createdAt: now,
        },
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
    input: { params: decisionParams },
    async handler({ services, input, caller, request }) {
      const { subscriptionId: sub, id } = input.params;
      await assertSubscriptionAccess(services.prisma, caller, sub);
      const row = await revokeSuppression(
        services.prisma,
        { id, subscriptionId: sub },
        caller.email || caller.userId,
        (r) => ({
          actor: caller,
          action: 'waste.suppressionRevoked',
          target: { type: 'wasteSuppression', id },
          details: { subscriptionId: sub, resourceId: r.resourceId, code: r.code },
          request,
        }),
      );
      if (!row) throw notFound('Suppression not found');
      return ok(decisionOut(row, new Date()));
    },
  }),
  decisionListRoute(
    'exclusions',
    'Every exclusion of the subscription, revoked ones included',
    WasteExclusionRow,
    listExclusions,
  ),
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
    },
    input: { params: subParams, body: ExclusionBody },
    async handler({ services, input, caller, request }) {
      const sub = input.params.subscriptionId;
      const b = input.body;
      const row = await createExclusion(
        services.prisma,
        {
          subscriptionId: sub,
          kind: b.tagName !== undefined ? 'tag' : 'resourceGroup',
          tagName: b.tagName ?? null,
          tagValue: b.tagName !== undefined ? (b.tagValue ?? null) : null,
          resourceGroup: b.resourceGroup ?? null,
          reason: b.reason,
          createdBy: caller.email || caller.userId,
        },
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
    input: { params: decisionParams },
    async handler({ services, input, caller, request }) {
      const { subscriptionId: sub, id } = input.params;
      const row = await revokeExclusion(
        services.prisma,
        { id, subscriptionId: sub },
        caller.email || caller.userId,
        () => ({
          actor: caller,
          action: 'waste.exclusionRevoked',
          target: { type: 'wasteExclusion', id },
          details: { subscriptionId: sub },
          request,
        }),
      );
      if (!row) throw notFound('Exclusion not found');
      return ok(decisionOut(row, new Date()));
    },
  }),
];
