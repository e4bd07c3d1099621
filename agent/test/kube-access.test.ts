import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';
import { loadConfig } from '../src/config.js';
import { resolveKube } from '../src/kube.js';
import { createLogger } from '../src/logger.js';
import { startFakeIngest } from './fakes/ingest-server.js';
import { startFakeKube } from './fakes/kube-server.js';
import { sampleCluster } from './fixtures.js';

const quiet = createLogger('fatal', new Writable({ write: (_c, _e, done) => done() }));

describe('Kubernetes access', () => {
  it('uses the pod service account (token and CA) over TLS inside a cluster', async () => {
    const kube = await startFakeKube(sampleCluster(), { tls: true });
    const ingest = await startFakeIngest();
    const env = {
      KUBERNETES_SERVICE_HOST: kube.host,
      KUBERNETES_SERVICE_PORT: String(kube.port),
      // Ignored in a pod: the service account wins over a stray KUBECONFIG.
      KUBECONFIG: '/nonexistent/config',
      CLUSTER_NAME: 'in-cluster',
      METRICS_API_URL: ingest.url,
      NAMESPACES_TO_WATCH: 'shop',
    };
    const agent = await Agent.create(loadConfig(env), quiet, env, kube.serviceAccountDir);
    try {
      const summary = await agent.runOnce();
      expect(summary.kubeErrors).toBe(0);
      expect(summary.posted.node).toBe(3);
      expect(ingest.violations).toEqual([]);
    } finally {
      await agent.close();
      await Promise.all([kube.close(), ingest.close()]);
    }
  });

  it('reads KUBECONFIG outside a cluster', async () => {
    const kube = await startFakeKube(sampleCluster());
    try {
      const target = await resolveKube({ KUBECONFIG: kube.kubeconfig }, '/nonexistent');
      expect(target.server.href).toBe(`${kube.url}/`);
      expect(await target.headers()).toMatchObject({ Authorization: 'Bearer fake-sa-token' });
    } finally {
      await kube.close();
    }
  });

  it('refuses to guess when there is no configuration at all', async () => {
    await expect(resolveKube({ HOME: '/nonexistent' }, '/nonexistent')).rejects.toThrow(
      /no Kubernetes configuration/,
    );
  });
});
