import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestHost } from '../support/host.js';

export interface NodeState {
  isReady?: boolean | null;
  hasMemoryPressure?: boolean | null;
  hasDiskPressure?: boolean | null;
  hasPidPressure?: boolean | null;
}

export const HEALTHY: NodeState = {
  isReady: true,
  hasMemoryPressure: false,
  hasDiskPressure: false,
  hasPidPressure: false,
};

/** A node record as the agent posts it. */
export function nodeData(cluster: string, nodeName: string, state: NodeState = HEALTHY, extra: object = {}) {
  return {
    clusterName: cluster,
    nodeName,
    clusterEnvironment: 'PROD',
    cpuUsageCores: 0.5,
    cpuCapacityCores: 4,
    memoryUsageBytes: 4e9,
    memoryCapacityBytes: 16e9,
    kubernetesVersion: 'v1.30.5',
    cloudProvider: 'AKS',
    isReady: null,
    hasMemoryPressure: null,
    hasDiskPressure: null,
    hasPidPressure: null,
    ...state,
    architecture: 'amd64',
    operatingSystem: 'linux',
    region: 'eastus',
    instanceType: 'Standard_D4s_v5',
    ...extra,
  };
}

/** Settings of a host the tests post to without an ingest key. */
export const ANONYMOUS_INGEST = { Metrics__AllowAnonymousIngest: 'true' };

/** Posts node records (collected at the given instants) as one batch, as the agent does; 200 expected. */
export async function sendNodes(
  host: TestHost,
  cluster: string,
  records: Array<{ at: Date; data: ReturnType<typeof nodeData> }>,
  batchId: string = randomUUID(),
): Promise<{ duplicate: boolean }> {
  const res = await fetch(`${host.url}/metrics/api/ingest/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      batchId,
      clusterName: cluster,
      records: records.map((r) => ({ kind: 'node', collectedAt: r.at.toISOString(), data: r.data })),
    }),
  });
  const body = (await res.json()) as { duplicate: boolean };
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** The original agent's one-object node post (collected when the server receives it). */
export async function postNode(host: TestHost, data: ReturnType<typeof nodeData>) {
  const res = await fetch(`${host.url}/metrics/api/metrics/node`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(data),
  });
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
}

/** Three hours before the test run started, on the hour: tokens minted now stay valid at every at(). */
const BASE = (() => {
  const d = new Date();
  d.setUTCHours(d.getUTCHours() - 3, 0, 0, 0);
  return d.getTime();
})();
export const at = (minute: number) => new Date(BASE + minute * 60_000);
/** at(minute) as the alert routes answer it: UTC without a zone suffix. */
export const wall = (minute: number) => at(minute).toISOString().replace('Z', '');

/** A webhook receiver on loopback recording every delivery body. */
export async function startReceiver() {
  const received: Array<Record<string, any>> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      received.push(JSON.parse(raw));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
