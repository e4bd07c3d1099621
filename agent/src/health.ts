import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Liveness fails only when a cycle is stuck (running far longer than any sane cycle), so Kubernetes
 * restarts a wedged agent but not a merely slow one. Readiness: the first cycle has finished.
 */
export class HealthState {
  private cycleStartedAt: number | undefined;
  completedCycles = 0;
  stopping = false;
  /** Shown in the /healthz body: the ingest mode, the batches buffered and dropped. */
  ingest: (() => object) | undefined;

  constructor(private readonly stuckAfterMs: number) {}

  cycleStarted(): void {
    this.cycleStartedAt = Date.now();
  }

  cycleEnded(): void {
    this.cycleStartedAt = undefined;
    this.completedCycles++;
  }

  get live(): boolean {
    return this.cycleStartedAt === undefined || Date.now() - this.cycleStartedAt < this.stuckAfterMs;
  }

  get ready(): boolean {
    return !this.stopping && this.completedCycles > 0;
  }
}

export async function startHealthServer(state: HealthState, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    const ok = path === '/healthz' ? state.live : path === '/readyz' ? state.ready : undefined;
    if (ok === undefined) {
      res.writeHead(404).end();
      return;
    }
    if (path === '/healthz') {
      // Probes read the status code only; the body tells an operator what delivery looks like.
      const body = {
        status: ok ? 'ok' : 'stuck',
        completedCycles: state.completedCycles,
        ingest: state.ingest?.(),
      };
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
      return;
    }
    res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok\n' : 'not ok\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  return server;
}

export function boundPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}
