/**
 * Where the agent's CPU goes beyond the bare posting loop, in one process against the bench's servers
 * (process.cpuUsage, user + system, of each part run alone; min and median over the repetitions). Run
 * `npm run bench -w agent` first: this reads its compiled copy in dist/bench-build.
 *   node bench/split.mjs [part,part,...] [repetitions]      (from agent/; default: every part, 5)
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';

const dir = process.cwd();
const b = `${dir}/dist/bench-build`;
const { Agent } = await import(`${b}/src/agent.js`);
const { loadConfig } = await import(`${b}/src/config.js`);
const { IngestClient, encodeBody } = await import(`${b}/src/ingest.js`);
const { KubeClient, resolveKube, CACHED } = await import(`${b}/src/kube.js`);
const { createLogger } = await import(`${b}/src/logger.js`);
const { podPayloads } = await import(`${b}/src/collectors/pods.js`);
const { eventPayload } = await import(`${b}/src/collectors/events.js`);
const { parseQuantity } = await import(`${b}/src/quantities.js`);
const { samples } = await import(`${b}/bench/samples.js`);
const { encodeLogBody } = await import(`${b}/src/collectors/log-body.js`);
function serve(role) {
  const child = spawn(process.execPath, [`${b}/bench/servers.js`, role], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  return new Promise((res) => lines.once('line', (l) => res({ child, info: JSON.parse(l) })));
}
const kubeS = await serve('kube');
const sink = await serve('ingest');
try {
  const env = {
    PATH: process.env.PATH,
    KUBERNETES_SERVICE_HOST: kubeS.info.host,
    KUBERNETES_SERVICE_PORT: kubeS.info.port,
    CLUSTER_NAME: 'bench',
    METRICS_API_URL: sink.info.url,
    NAMESPACES_TO_WATCH: Array.from({ length: 10 }, (_, i) => `team-${i}`).join(','),
    COLLECT_LOGS: 'false',
    LOG_LEVEL: 'Warning',
  };
  const sa = kubeS.info.serviceAccountDir;
  const config = loadConfig(env);
  const log = createLogger('warn');
  const ns = config.namespaces;
  const cpu = (f) => async () => {
    const at = process.cpuUsage();
    await f();
    const u = process.cpuUsage(at);
    return (u.user + u.system) / 1000;
  };
  const kube = new KubeClient(await resolveKube(env, sa));
  await kube.refreshCredentials();
  // pre-fetched lists for the build-only measure
  const pods = [],
    metrics = new Map(),
    events = [];
  for (const n of ns) {
    await kube.listEach(
      `/api/v1/namespaces/${n}/pods`,
      async (p) => {
        pods.push(...p);
      },
      CACHED,
    );
    await kube.listEach(
      `/api/v1/namespaces/${n}/events`,
      async (p) => {
        events.push(...p);
      },
      CACHED,
    );
    const m = new Map();
    for (const pm of await kube.listAll(`/apis/metrics.k8s.io/v1beta1/namespaces/${n}/pods`))
      for (const c of pm.containers ?? [])
        m.set(`${pm.metadata?.name}/${c.name}`, {
          cpu: parseQuantity(c.usage?.cpu) ?? 0,
          memory: parseQuantity(c.usage?.memory) ?? 0,
        });
    metrics.set(n, m);
  }
  const podSample = podPayloads(
    pods[0],
    'bench',
    Date.now(),
    metrics.get(pods[0].metadata.namespace),
    undefined,
  )[0];
  const evSample = eventPayload(events[0], 'bench', 'team-0');
  const sample = {
    pod: podSample,
    event: evSample,
    node: samples.node,
    pvc: samples.pvc,
  };
  const counts = { pod: 6000, node: 200, pvc: 200, event: 5000 };
  const configLogs = loadConfig({ ...env, COLLECT_LOGS: 'true' });
  const logSample = samples.log;

  const measures = {
    cycleLogs: async () => {
      const a = await Agent.create(configLogs, log, env, sa);
      const s = await a.runOnce();
      await a.close();
      if (s.posted.log !== 6000) throw new Error(JSON.stringify(s));
    },
    bareLogs: async () => {
      const c = new IngestClient(
        config.metricsApiUrl,
        { concurrency: config.postConcurrency, timeoutMs: 10000 },
        log,
      );
      for (const k of ['pod', 'log', 'node', 'pvc', 'event']) {
        const n = k === 'log' ? 6000 : counts[k];
        for (let i = 0; i < n; i++) await c.send(k, k === 'log' ? logSample : sample[k]);
        await c.flush();
      }
      await c.close();
    },
    reads6000: async () => {
      let next = 0;
      const w = async () => {
        for (let i = next++; i < 6000; i = next++)
          await kube.readLog(
            `team-${i % 10}`,
            `app-${i % 2000}-7d9f8c6b5-x${i % 2000}`,
            `c${i % 3}`,
            100,
            262144,
          );
      };
      await Promise.all(Array.from({ length: 8 }, w));
    },

    // The cycle's log work alone: each of 8 workers reads a log and posts it, as collectLogs does.
    readPost6000: async () => {
      const c = new IngestClient(
        config.metricsApiUrl,
        { concurrency: config.postConcurrency, timeoutMs: 10000 },
        log,
      );
      let next = 0;
      const w = async () => {
        for (let i = next++; i < 6000; i = next++) {
          const target = {
            namespace: `team-${i % 10}`,
            pod: `app-${i % 2000}-7d9f8c6b5-x${i % 2000}`,
            container: `c${i % 3}`,
          };
          const bytes = await kube.readLog(target.namespace, target.pod, target.container, 100, 262144);
          await c.send('log', encodeLogBody('bench', target, bytes));
        }
      };
      await Promise.all(Array.from({ length: 8 }, w));
      await c.flush();
      await c.close();
    },
    // 6,000 log posts alone, as the bare loop sends them.
    posts6000: async () => {
      const c = new IngestClient(
        config.metricsApiUrl,
        { concurrency: config.postConcurrency, timeoutMs: 10000 },
        log,
      );
      for (let i = 0; i < 6000; i++) await c.send('log', logSample);
      await c.flush();
      await c.close();
    },
    cycleNoLogs: async () => {
      const a = await Agent.create(config, log, env, sa);
      const s = await a.runOnce();
      await a.close();
      if (s.posted.pod !== 6000) throw new Error(JSON.stringify(s));
    },
    bareNoLogs: async () => {
      const c = new IngestClient(
        config.metricsApiUrl,
        { concurrency: config.postConcurrency, timeoutMs: 10000 },
        log,
      );
      for (const k of Object.keys(counts)) {
        for (let i = 0; i < counts[k]; i++) await c.send(k, sample[k]);
        await c.flush();
      }
      await c.close();
    },
    listsOnly: async () => {
      const k = new KubeClient(await resolveKube(env, sa));
      await k.refreshCredentials();
      await k.listAll('/api/v1/nodes', undefined, true);
      for (const n of ns) {
        await k.listAll(`/apis/metrics.k8s.io/v1beta1/namespaces/${n}/pods`);
        await k.listEach(`/api/v1/namespaces/${n}/pods`, async () => {}, CACHED);
        await k.listEach(`/api/v1/namespaces/${n}/events`, async () => {}, CACHED);
      }
      await k.close();
    },
    listPods: async () => {
      for (const n of ns) await kube.listEach(`/api/v1/namespaces/${n}/pods`, async () => {}, CACHED);
    },
    listEvents: async () => {
      for (const n of ns) await kube.listEach(`/api/v1/namespaces/${n}/events`, async () => {}, CACHED);
    },
    listMetrics: async () => {
      for (const n of ns) await kube.listAll(`/apis/metrics.k8s.io/v1beta1/namespaces/${n}/pods`);
    },
    // The pod list's bytes alone, then with JSON.parse: how much of a list is the transfer.
    rawPods: async () => {
      let bytes = 0;
      for (const n of ns) {
        const r = await kube['request'](
          `/api/v1/namespaces/${n}/pods`,
          { ...CACHED, limit: 500 },
          'application/json',
        );
        bytes += (await r.body.arrayBuffer()).byteLength;
      }
      globalThis.podBytes = bytes;
    },
    rawPodsParse: async () => {
      for (const n of ns) {
        const r = await kube['request'](
          `/api/v1/namespaces/${n}/pods`,
          { ...CACHED, limit: 500 },
          'application/json',
        );
        JSON.parse(Buffer.from(await r.body.arrayBuffer()).toString());
      }
    },
    buildPods: async () => {
      const now = Date.now();
      for (const p of pods)
        for (const x of podPayloads(p, 'bench', now, metrics.get(p.metadata.namespace), undefined))
          encodeBody(x);
    },
    encodePodSample: async () => {
      for (let i = 0; i < 6000; i++) encodeBody(sample.pod);
    },
    buildEvents: async () => {
      for (const e of events) encodeBody(eventPayload(e, 'bench', e.metadata.namespace));
    },
    encodeEventSample: async () => {
      for (let i = 0; i < 5000; i++) encodeBody(sample.event);
    },
    summaries20: async () => {
      for (let i = 0; i < 200; i += 10) await kube.getJson(`/api/v1/nodes/node-${i}/proxy/stats/summary`);
    },
    summaries200: async () => {
      for (let i = 0; i < 200; i++) await kube.getJson(`/api/v1/nodes/node-${i}/proxy/stats/summary`);
    },
  };
  const only = process.argv[2] ? process.argv[2].split(',') : undefined;
  const res = {};
  const reps = Number(process.argv[3] ?? 5);
  for (let r = 0; r < reps; r++)
    for (const [name, f] of Object.entries(measures)) {
      if (only && !only.includes(name)) continue;
      const ms = Math.round(await cpu(f)());
      res[name] = [...(res[name] ?? []), ms];
    }
  const med = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s[s.length >> 1];
  };
  if (globalThis.podBytes) console.log(`pod list bytes ${globalThis.podBytes}`);
  console.log(`load ${loadavg()[0].toFixed(1)}`);
  for (const [k, v] of Object.entries(res))
    console.log(`${k.padEnd(18)} min ${Math.min(...v)} med ${med(v)} ms  [${v.join(' ')}]`);
  await kube.close();
} finally {
  kubeS.child.kill();
  sink.child.kill();
}
