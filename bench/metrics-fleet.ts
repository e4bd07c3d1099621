/**
 * The metrics benches' simulated container: one pod sample as the agent posts it, the same for
 * container i every time, so every bench that writes the simulated fleet writes the same rows.
 */
export interface FleetShape {
  namespaces: number;
  nodes: number;
}

/** Container i's sample: two containers a pod, spread over the fleet's namespaces and nodes. */
export function podSample(i: number, cluster: string, fleet: FleetShape) {
  return {
    clusterName: cluster,
    namespace: `ns-${i % fleet.namespaces}`,
    pod: `app-${Math.floor(i / 2)}-7d9f-abcde`,
    container: i % 2 ? 'sidecar' : 'app',
    cpuUsageCores: ((i * 7919) % 1000) / 4000,
    cpuLimitCores: 0.5,
    memoryUsageBytes: 100_000_000 + ((i * 104729) % 50_000_000),
    memoryLimitBytes: 536870912,
    nodeName: `node-${i % fleet.nodes}`,
    podState: 'Running',
    restartCount: i % 3,
    podAge: 86_400 + i,
  };
}
