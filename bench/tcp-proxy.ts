/**
 * A TCP proxy between a node and its PostgreSQL, on 127.0.0.1: it forwards and counts round trips
 * (`turns`: bench/pg-concurrent-reads.ts), and the tests use it to break the link: `cut()` resets
 * every open connection and refuses new ones (the database gone, as the node sees it),
 * `blackhole()` keeps connections open but passes nothing (a network partition: no reset ever
 * arrives), `restore()` forwards again. The tests take it through test/e2e/tcp-proxy.fixture.ts.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** The target URL with host and port replaced by the proxy's. */
  url(target: string): string;
  cut(): void;
  blackhole(): void;
  restore(): void;
  /** Connections accepted so far (refused ones included). */
  readonly accepted: number;
  /**
   * Round trips so far: the times a client sent after the server's last answer on its connection
   * (or first), so messages a client sends before it waits count once.
   */
  readonly turns: number;
  close(): Promise<void>;
}

type Mode = 'forward' | 'refuse' | 'blackhole';

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: Mode = 'forward';
  let accepted = 0;
  let turns = 0;
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    accepted += 1;
    track(client);
    if (mode === 'refuse') return void client.resetAndDestroy();
    if (mode === 'blackhole') return; // accepted, never answered
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    // No Nagle delay on either side: a reply forwarded in pieces would wait for an ACK (up to 40 ms).
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    let answered = true;
    client.on('data', () => {
      if (answered) turns += 1;
      answered = false;
    });
    upstream.on('data', () => {
      answered = true;
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('close', end);
    upstream.once('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const resetAll = () => {
    for (const socket of open) socket.resetAndDestroy();
  };
  return {
    port,
    url(target) {
      const url = new URL(target);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    cut() {
      mode = 'refuse';
      resetAll();
    },
    blackhole() {
      mode = 'blackhole';
      for (const socket of open) {
        socket.pause(); // nothing more passes either way
        socket.unpipe();
      }
    },
    restore() {
      if (mode === 'blackhole') resetAll(); // a partition that heals finds the old connections dead
      mode = 'forward';
    },
    get accepted() {
      return accepted;
    },
    get turns() {
      return turns;
    },
    async close() {
      resetAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
