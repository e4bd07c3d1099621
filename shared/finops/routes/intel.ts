import { z } from 'zod';
import { withAudit } from '../../audit/record.js';
import { parseJsonText, validate } from '../../http/body.js';
import { dayText, subscriptionId } from '../../http/fields.js';
import { pagedHeaders, pageOf, pagingQuery } from '../../http/paging.js';
import { HttpError, notFound } from '../../http/problem.js';
import { ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { acknowledgeAnomaly, anomalySubscription, listAnomalies } from '../intel/anomaly-query.js';
import { AcknowledgeBody, Anomaly, Forecast } from '../intel/contract.js';
import { subscriptionForecast } from '../intel/forecast-query.js';
import { assertSubscriptionAccess } from '../waste/access.js';
import { idParams, PAGED_HEADERS_NOTE, UNPAGED_NOTE } from './read/common.js';

export const intelRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-anomalies',
    service: 'finops',
    method: 'GET',
    path: 'Anomalies',
    auth: 'user',
    openapi: {
      summary: 'Cost anomalies found on the stored daily history, newest date first ([] when none)',
      description: `Filters: subscriptionId, from and to (yyyy-MM-dd, inclusive, on the anomaly's date), status (open | acknowledged). ${UNPAGED_NOTE} ${PAGED_HEADERS_NOTE}`,
      tags: ['Anomalies'],
      responses: { 200: { description: 'Anomaly[]', schema: z.array(Anomaly) } },
    },
    input: {
      query: pagingQuery.extend({
        subscriptionId: subscriptionId().optional(),
        from: dayText().optional().describe("the anomaly's date, from (yyyy-MM-dd, inclusive)"),
        to: dayText().optional().describe("the anomaly's date, to (yyyy-MM-dd, inclusive)"),
        status: z.enum(['open', 'acknowledged']).optional(),
      }),
    },
    async handler({ services, input: { query } }) {
      const p = pageOf(query);
      const { rows, total } = await listAnomalies(
        services.prisma,
        { subscriptionId: query.subscriptionId, from: query.from, to: query.to, status: query.status },
        p.skip,
        p.pageSize,
      );
      return ok(rows, pagedHeaders(total, p));
    },
  }),
  defineRoute({
    name: 'finops-anomaly-acknowledge',
    service: 'finops',
    method: 'POST',
    path: 'Anomalies/{id}/acknowledge',
    auth: 'user',
    openapi: {
      summary:
        'Acknowledges an anomaly, with an optional note (the body may be empty); administrators and users the subscription is assigned to',
      tags: ['Anomalies'],
      body: AcknowledgeBody,
      responses: {
        200: { description: 'the anomaly', schema: Anomaly },
        404: { description: 'no such anomaly' },
      },
    },
    input: { params: idParams },
    async handler({ services, input, request, caller }) {
      const id = input.params.id;
      // The body is optional, so it is read here rather than through input.body (which requires one).
      const raw = await request.text();
      const type = (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
      if (raw.trim() && type && type !== 'application/json' && !type.endsWith('+json')) {
        throw new HttpError(415, `The content type ${type} is not supported; send application/json.`);
      }
      const body = raw.trim() ? validate(AcknowledgeBody, parseJsonText(raw), 'request body') : {};
      const subscriptionId = await anomalySubscription(services.prisma, id);
      if (!subscriptionId) throw notFound(`Anomaly ${id} not found.`);
      // A decision about a subscription's cost, like dismissing a waste flag: its users and admins.
      await assertSubscriptionAccess(services.prisma, caller, subscriptionId);
      const out = await withAudit(
        services.prisma,
        (tx) => acknowledgeAnomaly(tx, id, caller.email || caller.userId, body.note),
        (done) =>
          done && {
            actor: caller,
            action: 'anomaly.acknowledged',
            target: { type: 'anomaly', id },
            details: { subscriptionId, ...(body.note ? { note: body.note } : {}) },
            request,
          },
      );
      if (!out) throw notFound(`Anomaly ${id} not found.`);
      return ok(out);
    },
  }),
  defineRoute({
    name: 'finops-forecast',
    service: 'finops',
    method: 'GET',
    path: 'Forecast/{subscriptionId}',
    auth: 'user',
    openapi: {
      summary:
        "Month-end forecast of a subscription's cost from its newest run's daily history, with a 90 % interval and the budget status",
      description:
        'budgetStatus: noBudget (no budget set), overBudget (forecast or actual ≥ budget), atRisk (forecast ≥ 80 % of budget), onTrack. ' +
        'The month is the one in progress after the last complete stored day (asOf).',
      tags: ['Forecast'],
      responses: {
        200: { description: 'forecast', schema: Forecast },
        404: { description: 'no run for this subscription' },
      },
    },
    input: { params: z.object({ subscriptionId: subscriptionId() }) },
    async handler({ services, input }) {
      const sub = input.params.subscriptionId;
      const f = await subscriptionForecast(services.prisma, sub);
      if (!f) throw notFound(`No analysis or import of subscription ${sub} is stored.`);
      return ok(f);
    },
  }),
];
