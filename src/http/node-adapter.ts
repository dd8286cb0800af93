/**
 * HttpAdapter over node:http, the fallback when uWebSockets.js cannot load. Same contract as the
 * uWS adapter: bodies under a size and time limit (413 / 408), the request signal aborted when the
 * client goes away, HEAD without a body, streams written with `drain` backpressure, graceful close;
 * node:https when the options carry a certificate.
 */
import { createServer, STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createLifecycle, Exchange, type ServerCore } from './exchange.js';
import type { HttpAdapter, HttpHandler, HttpObserver, HttpReply, HttpServerOptions, ListeningServer } from './types.js';
import { toTraceparent } from './trace-context.js';
import { bodyLimitLookup, headersTooLargeReply, internalErrorReply, isStreamBody, knownBodyLength, malformedRequestReply, rawReply, releaseStream, requestTimeoutReply } from './reply.js';

class NodeExchange extends Exchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly remoteAddress: string;

  constructor(readonly req: IncomingMessage, readonly res: ServerResponse, server: ServerCore) {
    super(server);
    this.method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    this.path = mark === -1 ? url : url.slice(0, mark);
    this.query = mark === -1 ? '' : url.slice(mark + 1);
    const raw = req.rawHeaders;
    let bytes = 0;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const value = raw[i + 1] as string; // i + 1 < length
      const name = (raw[i] as string).toLowerCase();
      bytes += name.length + value.length + 4;
      const previous = this.headers[name];
      this.headers[name] = previous === undefined ? value : `${previous}, ${value}`;
    }
    this.headerCount = raw.length >> 1;
    this.headerBytes = bytes;
    this.remoteAddress = req.socket.remoteAddress ?? '';
  }
}

const lifecycle = createLifecycle<NodeExchange>({ writeReply, respond });

function onRequest(server: ServerCore, req: IncomingMessage, res: ServerResponse): void {
  const ex = new NodeExchange(req, res, server);
  if (lifecycle.answerNow(ex)) return; // answered from memory: written and done
  res.once('close', () => onClose(ex));
  if (!lifecycle.startBody(ex)) return;
  req.on('data', (chunk: Buffer) => onChunk(ex, chunk));
  req.once('end', () => onEnd(ex));
  req.on('error', noop); // a reset mid-body surfaces as the response's close
}

function noop(): void {}

function onChunk(ex: NodeExchange, chunk: Buffer): void {
  if (ex.done || !lifecycle.admitChunk(ex, chunk.byteLength)) return;
  (ex.chunks ??= []).push(chunk); // node hands out fresh buffers: no copy needed
}

function onEnd(ex: NodeExchange): void {
  if (ex.done || ex.aborted) return;
  lifecycle.endBody(ex);
}

/** `close` fires after a finished response too; only an unfinished one counts as aborted. */
function onClose(ex: NodeExchange): void {
  if (ex.done) return;
  ex.aborted = true;
  clearTimeout(ex.timer);
  ex.controller?.abort();
  ex.writable?.();
}

function respond(ex: NodeExchange, reply: HttpReply): void {
  if (ex.aborted || ex.done) return;
  const body = reply.body;
  if (body !== undefined && isStreamBody(body) && ex.method !== 'HEAD') {
    void streamReply(ex, reply, body);
    return;
  }
  try {
    writeReply(ex, reply, false);
  } catch (error) {
    // node rejects bad header values (CR/LF/NUL) and statuses: answer 500 if nothing went out yet.
    ex.server.observer?.onError?.(error, ex);
    if (ex.res.headersSent) ex.res.destroy();
    else writeReply(ex, internalErrorReply, false, true);
  }
}

/** Status and headers; `length` becomes content-length (node would pick chunked otherwise). */
function writeHead(ex: NodeExchange, reply: HttpReply, length: number | undefined, close: boolean): void {
  const res = ex.res;
  const headers = reply.headers;
  res.setHeader('x-request-id', ex.requestId);
  const worker = ex.server.options.worker;
  if (worker !== undefined) res.setHeader('x-tessera-worker', worker);
  const trace = ex.trace;
  if (trace !== undefined) res.setHeader('traceparent', toTraceparent(trace));
  if (headers !== undefined) {
    for (const name in headers) {
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'x-request-id' && name !== 'traceparent') res.setHeader(name, headers[name] as string | string[]);
    }
  }
  if (length !== undefined) res.setHeader('content-length', length);
  if (close || ex.server.closing) res.setHeader('connection', 'close');
  res.writeHead(reply.status);
}

function writeReply(ex: NodeExchange, reply: HttpReply, closeConnection: boolean, resetHeaders = false): void {
  ex.done = true;
  if (resetHeaders) for (const name of ex.res.getHeaderNames()) ex.res.removeHeader(name);
  const status = reply.status;
  const bodiless = status === 204 || status === 304 || status < 200;
  writeHead(ex, reply, bodiless ? undefined : knownBodyLength(reply), closeConnection);
  if (ex.method === 'HEAD' || bodiless) ex.res.end();
  else ex.res.end(reply.body as string | Uint8Array | undefined); // streams never reach here
  complete(ex, status);
}

function complete(ex: NodeExchange, status: number): void {
  ex.done = true;
  ex.server.observer?.onResponse?.(ex, status, (performance.now() - ex.startedAt) / 1000);
}

function waitDrain(ex: NodeExchange): Promise<void> {
  return new Promise((resolve) => {
    ex.writable = resolve;
    ex.res.once('drain', () => {
      ex.writable = undefined;
      resolve();
    });
  });
}

/** Streams an async-iterable body; waits for `drain` whenever node's buffer is full. */
async function streamReply(ex: NodeExchange, reply: HttpReply, body: AsyncIterable<Uint8Array>): Promise<void> {
  const iterator = body[Symbol.asyncIterator]();
  let first = true;
  try {
    for (;;) {
      const next = await iterator.next();
      if (ex.aborted || next.done === true) break;
      if (first) writeHead(ex, reply, undefined, false);
      first = false;
      if (!ex.res.write(next.value)) await waitDrain(ex);
      if (ex.aborted) break;
    }
  } catch (error) {
    ex.server.observer?.onError?.(error, ex);
    if (ex.aborted) return;
    if (first) return writeReply(ex, internalErrorReply, false, true);
    ex.done = true;
    ex.res.destroy(); // headers are out: cutting the connection is the only honest signal
    return;
  }
  if (ex.aborted) return releaseStream(iterator);
  if (first) return writeReply(ex, { status: reply.status, headers: reply.headers }, false);
  ex.done = true;
  ex.res.end();
  complete(ex, reply.status);
}

/**
 * Stops accepting and closes idle keep-alive sockets; replies from now on carry
 * `connection: close`, so busy sockets close after their reply. Past the grace, cut the rest.
 */
async function closeServer(server: ServerCore, http: Server, graceMs: number): Promise<void> {
  if (server.closing) return;
  server.closing = true;
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
  await Promise.race([closed, grace]);
  clearTimeout(timer);
  http.closeAllConnections();
  await closed;
}

/** Room for the request line beside the header fields in node's own header size limit. */
const REQUEST_LINE_BYTES = 16 * 1024;

/**
 * What node's parser refuses before a request exists gets the same answers as the exchange's
 * own checks: 431 past maxHeaderSize, 408 past headersTimeout, 400 for the rest.
 */
function onClientError(server: ServerCore, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const reply = error.code === 'HPE_HEADER_OVERFLOW' ? server.headersTooLarge : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? requestTimeoutReply : malformedRequestReply;
  socket.end(rawReply(reply, STATUS_CODES[reply.status] ?? 'Error'));
}

function listen(handler: HttpHandler, options: HttpServerOptions, observer?: HttpObserver): Promise<ListeningServer> {
  const server: ServerCore = { handler, options, bodyLimit: bodyLimitLookup(options), observer, headersTooLarge: headersTooLargeReply(options), fair: options.fair, immediate: options.immediate, closing: false };
  options.fair?.attach(lifecycle.fairListener);
  const onHttp = (req: IncomingMessage, res: ServerResponse) => onRequest(server, req, res);
  const tls = options.tls;
  const serverOptions = { maxHeaderSize: options.maxHeaderBytes + REQUEST_LINE_BYTES };
  const http: Server = tls === undefined ? createServer(serverOptions, onHttp) : createHttpsServer({ ...serverOptions, cert: tls.cert, key: tls.key }, onHttp);
  http.maxHeadersCount = options.maxHeaderCount + 1; // node drops fields past this; one more tells us the limit was crossed
  http.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => onClientError(server, error, socket));
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen({ port: options.port, host: options.host, ...(options.reusePort === true ? { reusePort: true } : {}) }, () => {
      http.off('error', reject);
      const port = (http.address() as AddressInfo).port; // a TCP listener always has an AddressInfo
      resolve({ port, close: (graceMs = 0) => closeServer(server, http, graceMs) });
    });
  });
}

export const nodeAdapter: HttpAdapter = { name: 'node', listen };
