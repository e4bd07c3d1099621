/** What the simulator saw: every request, and how many cost queries ran at once. */
import type { SimEndpoint } from './faults.js';

export interface SimRequest {
  method: string;
  path: string;
  url: string;
  endpoint: SimEndpoint;
  status: number;
  at: number;
  durationMs: number;
  /** The ClientType request header (cost queries are counted per client type). */
  clientType?: string;
}

export interface SimStats {
  concurrentCostQueries: number;
  maxConcurrentCostQueries: number;
  requests: SimRequest[];
  /** Requests per endpoint. */
  counts(): Record<SimEndpoint, number>;
  reset(): void;
}

export function createStats(): SimStats {
  return {
    concurrentCostQueries: 0,
    maxConcurrentCostQueries: 0,
    requests: [],
    counts() {
      const c = { token: 0, metadata: 0, subscription: 0, graph: 0, cost: 0, prices: 0, admin: 0, other: 0 };
      for (const r of this.requests) c[r.endpoint]++;
      return c;
    },
    reset() {
      this.requests = [];
      this.maxConcurrentCostQueries = this.concurrentCostQueries;
    },
  };
}
