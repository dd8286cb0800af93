/**
 * The two "limit" servers the benchmark compares Tessera against: the smallest useful uWS and
 * node:http servers answering every GET with the same small JSON body. Run as a child process
 * (`node dist/bench/hello-servers.js uws|node`) so its CPU time can be read from /proc; prints
 * one JSON line `{"msg":"listening","port":N}` on stdout once it accepts connections, and stops
 * on SIGTERM/SIGINT.
 */
import { createServer } from 'node:http';
import uWS from '@trufflesuite/uws-js-unofficial';
import type { us_listen_socket, us_socket } from '@trufflesuite/uws-js-unofficial';

const HOST = '127.0.0.1';
const BODY = Buffer.from(JSON.stringify({ hello: 'world', service: 'bench' }));
const BODY_LENGTH = String(BODY.length);

function announce(engine: string, port: number): void {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', engine, port })}\n`);
}

function startUws(): void {
  if (typeof (uWS as { getParts?: unknown }).getParts !== 'function') {
    // The package silently falls back to a pure-JS implementation; that would not be a limit.
    process.stderr.write('hello-servers: the uWebSockets.js native binary did not load\n');
    process.exit(1);
  }
  let listening: us_listen_socket | undefined;
  const app = uWS.App().get('/*', (res) => {
    res.cork(() => {
      res.writeHeader('content-type', 'application/json').end(BODY);
    });
  });
  app.listen(HOST, 0, (socket) => {
    if (socket === false) {
      process.stderr.write('hello-servers: uWS cannot listen\n');
      process.exit(1);
    }
    listening = socket;
    announce('uws', uWS.us_socket_local_port(socket as us_socket));
  });
  const stop = (): void => {
    if (listening !== undefined) uWS.us_listen_socket_close(listening);
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

function startNode(): void {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY_LENGTH });
    res.end(BODY);
  });
  server.listen(0, HOST, () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('unexpected server address');
    announce('node', address.port);
  });
  const stop = (): void => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

const engine = process.argv[2];
if (engine === 'uws') startUws();
else if (engine === 'node') startNode();
else {
  process.stderr.write('usage: node dist/bench/hello-servers.js uws|node\n');
  process.exitCode = 2;
}
