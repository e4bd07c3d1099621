import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { costCluster, sampleCluster } from './fixtures.js';
import { type Harness, harness } from './helpers.js';

const deployDir = fileURLToPath(new URL('../deploy/', import.meta.url));

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** Rendered the way `kubectl apply -k` renders it (kubectl's built-in kustomize). */
function render(variant: string): K8sObject[] {
  const text = execFileSync('kubectl', ['kustomize', deployDir + variant], { encoding: 'utf8' });
  return parseAllDocuments(text).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as K8sObject;
  });
}

const VARIANTS = {
  default: '.',
  withoutPvc: 'overlays/without-pvc-metrics',
  namespaced: 'overlays/namespaced',
};
const rendered = Object.fromEntries(Object.entries(VARIANTS).map(([k, v]) => [k, render(v)])) as Record<
  keyof typeof VARIANTS,
  K8sObject[]
>;

/** Permissions as "group resource verb" (or "url verb"), cluster-wide or per namespace. */
function grants(objects: K8sObject[], kinds: string[]): Set<string> {
  const out = new Set<string>();
  for (const o of objects.filter((x) => kinds.includes(x.kind))) {
    const where = o.kind === 'Role' ? ` in ${o.metadata.namespace}` : '';
    for (const rule of o['rules'] as Rule[]) {
      for (const verb of rule.verbs) {
        for (const url of rule.nonResourceURLs ?? []) out.add(`${url} ${verb}`);
        for (const group of rule.apiGroups ?? []) {
          for (const resource of rule.resources ?? [])
            out.add(`${group || 'core'} ${resource} ${verb}${where}`);
        }
      }
    }
  }
  return out;
}

/** The RBAC check the API server makes for each GET the agent sent. */
function permissionFor(path: string): string {
  const rules: Array<[RegExp, string]> = [
    [/^\/version$/, '/version get'],
    [/^\/api\/v1\/nodes$/, 'core nodes list'],
    [/^\/api\/v1\/nodes\/[^/]+\/proxy\/.*$/, 'core nodes/proxy get'],
    [/^\/api\/v1\/pods$/, 'core pods list'],
    [/^\/api\/v1\/namespaces\/[^/]+\/pods$/, 'core pods list'],
    [/^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/log$/, 'core pods/log get'],
    [/^\/api\/v1\/namespaces\/[^/]+\/events$/, 'core events list'],
    [/^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/[^/]+\/pods$/, 'metrics.k8s.io pods list'],
    [/^\/apis\/metrics\.k8s\.io\/v1beta1\/nodes$/, 'metrics.k8s.io nodes list'],
    [/^\/apis\/apps\/v1\/namespaces\/[^/]+\/replicasets$/, 'apps replicasets list'],
    [/^\/apis\/batch\/v1\/namespaces\/[^/]+\/jobs$/, 'batch jobs list'],
    [/^\/api\/v1\/persistentvolumes$/, 'core persistentvolumes list'],
  ];
  const found = rules.find(([re]) => re.test(path));
  if (!found) throw new Error(`unmapped request ${path}`);
  return found[1];
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('deploy manifests', () => {
  it('grants exactly the permissions the agent uses, no more (default: logs and PVC metrics on)', async () => {
    const used = new Set<string>();
    // Every call the agent can make: logs on, PVC stats, and a metrics.k8s.io outage for the estimate's
    // cluster-wide pod list.
    for (const podMetrics of ['working', 'absent'] as const) {
      const cluster = sampleCluster();
      if (podMetrics === 'absent') cluster.podMetrics = 'absent';
      // A pod with a claim: only its node's stats summary is read through nodes/proxy.
      const db = cluster.pods.find((p) => p.metadata?.name === 'db-0');
      if (db?.spec)
        db.spec.volumes = [{ name: 'pgdata', persistentVolumeClaim: { claimName: 'pgdata-db-0' } }];
      h = await harness(cluster, { COLLECT_LOGS: 'true' });
      await h.agent.runOnce();
      for (const r of h.kube.requests) used.add(permissionFor(r.path));
      await h.close();
      h = undefined;
    }
    // Batches: the reads behind the cost-allocation fields (ReplicaSets, Jobs, PersistentVolumes).
    h = await harness(costCluster(), { COLLECT_LOGS: 'true', INGEST_MODE: 'batch' }, { batch: true });
    const summary = await h.agent.runOnce();
    expect(summary.kubeErrors).toBe(0);
    for (const r of h.kube.requests) used.add(permissionFor(r.path));
    expect(grants(rendered.default, ['ClusterRole'])).toEqual(used);
  });

  it('drops nodes/proxy and turns PVC collection off together (overlays/without-pvc-metrics)', () => {
    const perms = grants(rendered.withoutPvc, ['ClusterRole']);
    expect(perms.has('core nodes/proxy get')).toBe(false);
    expect(env(rendered.withoutPvc)['COLLECT_PVC_METRICS']).toBe('false');
    expect(env(rendered.default)['COLLECT_PVC_METRICS']).toBe('true');
    expect(grants(rendered.default, ['ClusterRole']).has('core nodes/proxy get')).toBe(true);
  });

  it('reads pods, logs and events only through namespace Roles in the namespaced variant', () => {
    const cluster = grants(rendered.namespaced, ['ClusterRole']);
    expect([...cluster].filter((p) => /pods|events/.test(p))).toEqual([]);
    expect(grants(rendered.namespaced, ['Role'])).toEqual(
      new Set([
        'core pods list in default',
        'core events list in default',
        'core pods/log get in default',
        'metrics.k8s.io pods list in default',
        'apps replicasets list in default',
        'batch jobs list in default',
      ]),
    );
    const binding = rendered.namespaced.find((o) => o.kind === 'RoleBinding');
    expect(binding?.['subjects']).toEqual([
      { kind: 'ServiceAccount', name: 'finwatch-agent', namespace: 'finwatch-agent' },
    ]);
  });

  it('binds every role to the agent service account', () => {
    for (const objects of Object.values(rendered)) {
      for (const binding of objects.filter((o) => o.kind.endsWith('Binding'))) {
        expect(binding['subjects']).toEqual([
          { kind: 'ServiceAccount', name: 'finwatch-agent', namespace: 'finwatch-agent' },
        ]);
        const ref = binding['roleRef'] as { kind: string; name: string };
        expect(ref.kind).toBe(binding.kind.replace('Binding', ''));
        const role = objects.find((o) => o.kind === ref.kind && o.metadata.name === ref.name);
        expect(role?.['rules']).toBeDefined();
      }
    }
  });

  it('labels the namespace to enforce the restricted Pod Security Standard', () => {
    const ns = rendered.default.find((o) => o.kind === 'Namespace');
    expect(ns?.metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/warn': 'restricted',
      'pod-security.kubernetes.io/audit': 'restricted',
    });
  });

  describe('Deployment', () => {
    const deployment = rendered.default.find((o) => o.kind === 'Deployment') as K8sObject & {
      spec: {
        replicas: number;
        strategy: { type: string };
        template: {
          spec: {
            serviceAccountName: string;
            nodeSelector: Record<string, string>;
            securityContext: Record<string, unknown>;
            containers: Array<{
              env: Array<{ name: string; value: string }>;
              resources: { requests: Record<string, string>; limits: Record<string, string> };
              livenessProbe: { httpGet: { path: string } };
              readinessProbe: { httpGet: { path: string } };
              ports: Array<{ containerPort: number }>;
              securityContext: Record<string, unknown>;
            }>;
          };
        };
      };
    };
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    if (!container) throw new Error('no container');

    it('sets every setting of the original agent as env, as strings', () => {
      const names = container.env.map((e) => e.name);
      for (const setting of ORIGINAL_SETTINGS) expect(names).toContain(setting);
      expect(container.env.every((e) => typeof e.value === 'string' || e.name === 'INGEST_KEY')).toBe(true);
      expect(container.env.find((e) => e.name === 'METRICS_API_URL')?.value).toMatch(/\/metrics$/);
    });

    it('takes INGEST_KEY from an optional Secret, so the pod starts without one', () => {
      for (const objects of Object.values(rendered)) {
        const agent = (objects.find((o) => o.kind === 'Deployment') as typeof deployment).spec.template.spec
          .containers[0] as unknown as { env: Array<{ name: string; valueFrom?: unknown }> };
        expect(agent.env.find((e) => e.name === 'INGEST_KEY')?.valueFrom).toEqual({
          secretKeyRef: { name: 'finwatch-agent-ingest', key: 'ingest-key', optional: true },
        });
        const secret = objects.find((o) => o.kind === 'Secret');
        expect(secret?.metadata).toMatchObject({
          name: 'finwatch-agent-ingest',
          namespace: 'finwatch-agent',
        });
        // Shipped empty: no key is written in the repository.
        expect(secret?.['stringData']).toEqual({ 'ingest-key': '' });
      }
    });

    it('runs one non-root replica on a Linux node with a read-only root filesystem', () => {
      expect(deployment.spec.replicas).toBe(1);
      expect(deployment.spec.strategy.type).toBe('Recreate');
      expect(pod.serviceAccountName).toBe('finwatch-agent');
      expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(container.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
    });

    it('requests the measured 96Mi of memory, with limits and health probes on the health port', () => {
      expect(container.resources.requests).toEqual({ cpu: '50m', memory: '96Mi' });
      expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'memory']);
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      expect(container.ports[0]?.containerPort).toBe(8080);
    });
  });
});

function env(objects: K8sObject[]): Record<string, string> {
  const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
    spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; value: string }> }> } } };
  };
  return Object.fromEntries(
    (deployment.spec.template.spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]),
  );
}

/** Every setting the original agent read; finwatch's additions come on top. */
const ORIGINAL_SETTINGS = [
  'CLUSTER_NAME',
  'METRICS_API_URL',
  'NAMESPACES_TO_WATCH',
  'METRICS_COLLECTION_INTERVAL_SECONDS',
  'COLLECT_LOGS',
  'LOG_TAIL_LINES',
  'CLUSTER_ENVIRONMENT',
  'LOG_LEVEL',
  'SENTRY_DSN',
  'ENVIRONMENT',
];
