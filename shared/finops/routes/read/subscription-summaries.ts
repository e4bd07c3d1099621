import { z } from 'zod';
import { ok } from '../../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../../http/route.js';
import { SubscriptionSummary } from '../../contract/schemas.js';
import { subscriptionSummaries } from '../../queries/runs.js';

export const subscriptionSummaryRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'finops-subscription-summaries',
    service: 'finops',
    method: 'GET',
    path: 'Subscription',
    auth: 'user',
    openapi: {
      summary: 'Distinct subscriptions of the stored runs, named after their newest run',
      description: 'Sorted by subscriptionName, then subscriptionId. subscriptionName is never null.',
      tags: ['Subscription'],
      responses: { 200: { description: 'SubscriptionSummary[]', schema: z.array(SubscriptionSummary) } },
    },
    async handler({ services }) {
      return ok(await subscriptionSummaries(services.prisma));
    },
  }),
];
