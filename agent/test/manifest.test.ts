import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const deployDir = fileURLToPath(new URL('../deploy/', import.meta.url));

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [key: string]: unknown;
}

function load(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(deployDir + file, 'utf8')).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as K8sObject;
  });
}

const files = readdirSync(deployDir).filter((f) => f.endsWith('.yaml'));
const objects = files.filter((f) => f !== 'kustomization.yaml').flatMap(load);
const byKind = (kind: string): K8sObject => {
  const found = objects.find((o) => o.kind === kind);
  if (!found) throw new Error(`no ${kind}`);
  return found;
};

/** Every setting of the spec's tables; finwatch's additions come on top. */
const SPEC_SETTINGS = [
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

describe('deploy manifests', () => {
  it('parses every object with apiVersion, kind and name', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'Deployment',
      'Namespace',
      'ServiceAccount',
    ]);
    for (const o of objects) {
      expect(o.apiVersion).toBeTruthy();
      expect(o.metadata.name).toBe('finwatch-agent');
    }
  });

  it('lists every manifest in the kustomization', () => {
    const [kustomization] = load('kustomization.yaml');
    expect(new Set(kustomization?.['resources'] as string[])).toEqual(
      new Set(files.filter((f) => f !== 'kustomization.yaml')),
    );
  });

  it('grants exactly read access to pods, nodes, namespaces, events, pod logs, metrics and /version', () => {
    expect(byKind('ClusterRole')['rules']).toEqual([
      { apiGroups: [''], resources: ['pods', 'nodes', 'namespaces', 'events'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list'] },
      { nonResourceURLs: ['/version'], verbs: ['get'] },
    ]);
  });

  it('binds the role to the agent service account', () => {
    const binding = byKind('ClusterRoleBinding');
    expect(binding['roleRef']).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'finwatch-agent',
    });
    expect(binding['subjects']).toEqual([
      { kind: 'ServiceAccount', name: 'finwatch-agent', namespace: 'finwatch-agent' },
    ]);
  });

  describe('Deployment', () => {
    const deployment = byKind('Deployment') as K8sObject & {
      spec: {
        replicas: number;
        strategy: { type: string };
        template: {
          spec: {
            serviceAccountName: string;
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

    it('sets every setting of the spec as env, as strings', () => {
      const names = container.env.map((e) => e.name);
      for (const setting of SPEC_SETTINGS) expect(names).toContain(setting);
      expect(container.env.every((e) => typeof e.value === 'string')).toBe(true);
      expect(container.env.find((e) => e.name === 'METRICS_API_URL')?.value).toMatch(/\/metrics$/);
    });

    it('runs one non-root replica with a read-only root filesystem', () => {
      expect(deployment.spec.replicas).toBe(1);
      expect(deployment.spec.strategy.type).toBe('Recreate');
      expect(pod.serviceAccountName).toBe('finwatch-agent');
      expect(pod.securityContext['runAsNonRoot']).toBe(true);
      expect(container.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
      });
    });

    it('has requests, limits and health probes on the health port', () => {
      expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'memory']);
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      expect(container.ports[0]?.containerPort).toBe(8080);
    });
  });
});
