import { createServer, type Server, Socket } from 'node:net';

/**
 * A loopback TCP proxy that can freeze: while paused it accepts connections and reads what either
 * side sends but forwards nothing, as a PostgreSQL server stopped with SIGSTOP (or a network that
 * drops packets) looks to a client. Resuming delivers what was held, in order.
 */
export interface FreezableProxy {
  /** The proxy's address, e.g. 127.0.0.1:40123. */
  readonly host: string;
  readonly port: number;
  pause(): void;
  resume(): void;
  /** Rewrites a postgres:// URL so that it goes through the proxy. */
  route(url: string): string;
  close(): Promise<void>;
}

interface Pipe {
  held: Array<() => void>;
}

export async function startFreezableProxy(target: { host: string; port: number }): Promise<FreezableProxy> {
  let paused = false;
  const pipes = new Set<Pipe>();
  const sockets = new Set<Socket>();
  const forward = (pipe: Pipe, from: Socket, to: Socket) => {
    from.on('data', (chunk) => {
      const send = () => to.write(chunk);
      if (paused) pipe.held.push(send);
      else send();
    });
    from.on('end', () => {
      const end = () => to.end();
      if (paused) pipe.held.push(end);
      else end();
    });
    from.on('error', () => to.destroy());
    from.on('close', () => {
      to.destroy();
      pipes.delete(pipe);
    });
  };
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(target.port, target.host);
    const pipe: Pipe = { held: [] };
    pipes.add(pipe);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    forward(pipe, client, upstream);
    forward(pipe, upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  return {
    host: '127.0.0.1',
    port: address.port,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const pipe of pipes) for (const send of pipe.held.splice(0)) send();
    },
    route(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(address.port);
      return u.toString();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
