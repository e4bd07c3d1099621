/** The simulator's own routes under /_sim/: its stats, and switching faults on and off over HTTP. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultState, SimEndpoint } from './faults.js';
import { parseJson, sendJson } from './http-io.js';
import type { SimStats } from './sim-stats.js';

export function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  body: string,
  state: { stats: SimStats; faults: FaultState },
) {
  const { stats, faults } = state;
  const action = url.pathname.replace(/^\/_sim\/?/, '');
  const args = (parseJson(body) ?? {}) as Record<string, unknown>;
  if (req.method === 'GET' && action === 'stats') {
    return sendJson(res, 200, {
      concurrentCostQueries: stats.concurrentCostQueries,
      maxConcurrentCostQueries: stats.maxConcurrentCostQueries,
      counts: stats.counts(),
      requests: stats.requests.slice(-500),
    });
  }
  if (req.method === 'POST') {
    switch (action) {
      case 'faults/throttle':
        faults.throttle(args);
        return sendJson(res, 204, undefined);
      case 'faults/fail':
        faults.fail(args as unknown as Parameters<FaultState['fail']>[0]);
        return sendJson(res, 204, undefined);
      case 'faults/slow':
        faults.slow(Number(args['ms'] ?? 0), (args['endpoint'] as SimEndpoint | undefined) ?? 'cost');
        return sendJson(res, 204, undefined);
      case 'faults/graph-quota':
        faults.graphQuotaExhausted(args as unknown as Parameters<FaultState['graphQuotaExhausted']>[0]);
        return sendJson(res, 204, undefined);
      case 'faults/reset':
        faults.reset();
        stats.reset();
        return sendJson(res, 204, undefined);
    }
  }
  return sendJson(res, 404, {
    error: { code: 'NotFound', message: `Unknown admin route ${url.pathname}` },
  });
}
