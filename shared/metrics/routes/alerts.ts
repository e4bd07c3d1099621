/**
 * MetricsAlert and MetricsNotification: node status and silence alerts, and
 * which notification channels receive a cluster's alerts. Every route is scoped to the clusters the
 * caller may see (administrators: all; others: the clusters assigned to them).
 */
import { z } from 'zod';
import { int32, intText } from '../../http/fields.js';
import { pagedHeaders, pageOf, pagingQuery } from '../../http/paging.js';
import { badRequest, HttpError } from '../../http/problem.js';
import { emptyOk, ok } from '../../http/respond.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { clusterAccess } from '../access.js';
import {
  addClusterNotification,
  listAlerts,
  listClusterNotifications,
  removeClusterNotification,
} from '../alerts/queries.js';

const alertTags = ['MetricsAlert'];
const notificationTags = ['MetricsNotification'];

const MetricsAlertOut = z.object({
  id: z.number().int(),
  nodeName: z.string().describe("the node; '' for an alert about a whole cluster"),
  clusterName: z.string().describe('lower case'),
  timeStamp: z.string().describe('UTC, ISO 8601 without a zone suffix (as the original answered)'),
  status: z.boolean().describe('true: healthy, or reporting again'),
  message: z.string().nullable(),
  kind: z
    .enum(['node', 'nodeSilence', 'clusterSilence'])
    .describe('node: its conditions changed; nodeSilence / clusterSilence: stopped or resumed reporting'),
});

const daysQuery = intText(1, 3650).optional().describe('alerts of the last n days (default 30)');
const name = (what: string) => z.string().trim().min(1, 'must not be empty').max(256).describe(what);

const ALERT_NOTE =
  'Newest first. Unpaged answers hold at most 100,000 alerts; page and pageSize page through them, X-Total-Count says how many matched.';

async function alertList(
  services: Parameters<RouteDefinition['handler']>[0]['services'],
  caller: { userId: string; isAdmin: boolean },
  q: {
    clusterName?: string | undefined;
    nodeName?: string | undefined;
    days?: number | undefined;
    page?: number;
    pageSize?: number;
  },
) {
  const { visible, clusterName } = await clusterAccess(services, caller, q.clusterName);
  const p = pageOf(q);
  const since = new Date(Date.now() - (q.days ?? 30) * 86_400_000);
  const { rows, total } = await listAlerts(
    services.prisma,
    { clusters: visible, clusterName, nodeName: q.nodeName, since },
    p.skip,
    p.pageSize,
  );
  return ok(rows, pagedHeaders(total, p));
}

const notificationBody = z.object({
  // A missing key binds to "" as in the original, so both give its 400 text.
  clusterName: z
    .string()
    .max(256)
    .default('')
    .refine((s) => s.trim() !== '', 'ClusterName is required'),
  notificationId: int32()
    .default(0)
    .refine((n) => n > 0, 'NotificationId must be greater than 0')
    .describe('a notification channel id (finops/api/NotificationChannels)'),
});

export const metricsAlertRoutes: RouteDefinition[] = [
  defineRoute({
    name: 'metrics-alerts',
    service: 'metrics',
    method: 'GET',
    path: 'MetricsAlert/metricsAlerts',
    auth: 'user',
    input: {
      query: pagingQuery.extend({
        clusterName: name('only this cluster (any case)').optional(),
        nodeName: name('only this node (exact)').optional(),
        days: daysQuery,
      }),
    },
    openapi: {
      summary: 'Node status and silence alerts of the clusters the caller may see',
      description: ALERT_NOTE,
      tags: alertTags,
      responses: {
        200: { description: 'MetricsAlert[]', schema: z.array(MetricsAlertOut) },
        403: { description: 'the named cluster is not assigned to the caller' },
      },
    },
    handler: ({ services, caller, input: { query } }) => alertList(services, caller, query),
  }),
  defineRoute({
    name: 'metrics-alerts-cluster',
    service: 'metrics',
    method: 'GET',
    path: 'MetricsAlert/metricsAlerts/cluster/{clusterName}',
    auth: 'user',
    input: {
      params: z.object({ clusterName: name('the cluster (any case)') }),
      query: pagingQuery.extend({ days: daysQuery }),
    },
    openapi: {
      summary: "A cluster's alerts",
      description: ALERT_NOTE,
      tags: alertTags,
      responses: {
        200: { description: 'MetricsAlert[]', schema: z.array(MetricsAlertOut) },
        403: { description: 'the cluster is not assigned to the caller' },
      },
    },
    handler: ({ services, caller, input: { params, query } }) =>
      alertList(services, caller, { ...query, clusterName: params.clusterName }),
  }),
  defineRoute({
    name: 'metrics-alerts-cluster-node',
    service: 'metrics',
    method: 'GET',
    path: 'MetricsAlert/metricsAlerts/cluster/{clusterName}/node/{nodeName}',
    auth: 'user',
    input: {
      params: z.object({ clusterName: name('the cluster (any case)'), nodeName: name('the node (exact)') }),
      query: pagingQuery.extend({ days: daysQuery }),
    },
    openapi: {
      summary: "A node's alerts",
      description: ALERT_NOTE,
      tags: alertTags,
      responses: {
        200: { description: 'MetricsAlert[]', schema: z.array(MetricsAlertOut) },
        403: { description: 'the cluster is not assigned to the caller' },
      },
    },
    handler: ({ services, caller, input: { params, query } }) =>
      alertList(services, caller, { ...query, clusterName: params.clusterName, nodeName: params.nodeName }),
  }),
  defineRoute({
    name: 'metrics-cluster-notifications',
    service: 'metrics',
    method: 'GET',
    path: 'MetricsNotification/clusterNotifications/{clusterName}',
    auth: 'user',
    input: { params: z.object({ clusterName: name('the cluster (any case)') }) },
    openapi: {
      summary: "The notification channels a cluster's alerts go to",
      tags: notificationTags,
      responses: {
        200: {
          description: 'MetricsNotification[] (at most one per channel)',
          schema: z.array(z.object({ clusterName: z.string(), notificationId: z.number().int() })),
        },
        403: { description: 'the cluster is not assigned to the caller' },
      },
    },
    async handler({ services, caller, input: { params } }) {
      const cluster = (await clusterAccess(services, caller, params.clusterName)).clusterName;
      return ok(await listClusterNotifications(services.prisma, cluster));
    },
  }),
  defineRoute({
    name: 'metrics-cluster-notification-add',
    service: 'metrics',
    method: 'POST',
    path: 'MetricsNotification/addMetricsNotification',
    auth: 'user',
    input: { body: notificationBody },
    openapi: {
      summary: "Sends a cluster's alerts to a notification channel",
      tags: notificationTags,
      responses: {
        200: { description: 'mapped (empty body)' },
        400: {
          description:
            "'ClusterName is required', 'NotificationId must be greater than 0', or 'Notification already exists for this cluster'",
        },
        403: { description: 'the cluster is not assigned to the caller' },
        422: { description: 'no notification channel has that id' },
      },
    },
    async handler({ services, caller, input: { body } }) {
      const cluster = (await clusterAccess(services, caller, body.clusterName)).clusterName;
      const outcome = await addClusterNotification(services.prisma, cluster, body.notificationId);
      if (outcome === 'exists') {
        throw badRequest('Notification already exists for this cluster', {
          notificationId: ['is already mapped to this cluster'],
        });
      }
      if (outcome === 'noChannel') {
        const detail = `Notification channel ${body.notificationId} does not exist.`;
        throw new HttpError(422, detail, { errors: { notificationId: [detail] } });
      }
      return emptyOk();
    },
  }),
  defineRoute({
    name: 'metrics-cluster-notification-remove',
    service: 'metrics',
    method: 'POST',
    path: 'MetricsNotification/removeMetricsNotification',
    auth: 'user',
    input: { body: notificationBody },
    openapi: {
      summary:
        "Stops sending a cluster's alerts to a channel (200 also when it was not mapped, as the original)",
      tags: notificationTags,
      responses: {
        200: { description: 'removed or not mapped (empty body)' },
        400: { description: "'ClusterName is required' or 'NotificationId must be greater than 0'" },
        403: { description: 'the cluster is not assigned to the caller' },
      },
    },
    async handler({ services, caller, input: { body } }) {
      const cluster = (await clusterAccess(services, caller, body.clusterName)).clusterName;
      await removeClusterNotification(services.prisma, cluster, body.notificationId);
      return emptyOk();
    },
  }),
];
