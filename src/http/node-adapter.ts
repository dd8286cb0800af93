/**
 * HttpAdapter over node:http, the fallback when uWebSockets.js cannot load. Same contract as the
 * uWS adapter: bodies under a size and time limit (413 / 408), the request signal aborted when the
 * client goes away, HEAD without a body, streams written with `drain` backpressure, graceful close.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpAdapter, HttpHandler, HttpObserver, HttpReply, HttpServerOptions } from './types.js';
import type { HttpRequest, ListeningServer } from './types.js';
import {
  bodyLimitLookup,
  internalErrorReply,
  isStreamBody,
  knownBodyLength,
  payloadTooLargeReply,
  releaseStream,
  requestTimeoutReply,
} from './reply.js';

interface NodeServer {
  readonly handler: HttpHandler;
  readonly options: HttpServerOptions;
  /** The body limit of a path (TESSERA_MAX_BODY_BYTES, or a route's own). */
  readonly bodyLimit: (path: string) => number;
  readonly observer: HttpObserver | undefined;
  closing: boolean;
}

const EMPTY_BODY = Buffer.alloc(0);
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** One request/response pair: the HttpRequest handlers see, plus the adapter's own state. */
class NodeExchange implements HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, string> = Object.create(null) as Record<string, string>;
  body: Buffer = EMPTY_BODY;
  readonly remoteAddress: string;
  params: Readonly<Record<string, string>> = NO_PARAMS;
  route: string | undefined = undefined;
  readonly startedAt = performance.now();
  aborted = false;
  done = false;
  controller: AbortController | undefined = undefined;
  chunks: Buffer[] = [];
  received = 0;
  limit = 0;
  timer: NodeJS.Timeout | undefined = undefined;
  writable: (() => void) | undefined = undefined;

  constructor(readonly req: IncomingMessage, readonly res: ServerResponse, readonly server: NodeServer) {
    this.method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    this.path = mark === -1 ? url : url.slice(0, mark);
    this.query = mark === -1 ? '' : url.slice(mark + 1);
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = (raw[i] as string).toLowerCase(); // i + 1 < length
      const previous = this.headers[name];
      this.headers[name] = previous === undefined ? (raw[i + 1] as string) : `${previous}, ${raw[i + 1] as string}`;
    }
    this.remoteAddress = req.socket.remoteAddress ?? '';
  }

  /** Created on first use: most handlers never look at it. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }
}

function onRequest(server: NodeServer, req: IncomingMessage, res: ServerResponse): void {
  const ex = new NodeExchange(req, res, server);
  res.once('close', () => onClose(ex));
  const length = ex.headers['content-length'];
  if ((length === undefined || length === '0') && ex.headers['transfer-encoding'] === undefined) return dispatch(ex);
  ex.limit = server.bodyLimit(ex.path);
  if (length !== undefined && Number(length) > ex.limit) return writeReply(ex, payloadTooLargeReply, true);
  ex.timer = setTimeout(onBodyTimeout, server.options.bodyTimeoutMs, ex);
  req.on('data', (chunk: Buffer) => onChunk(ex, chunk));
  req.once('end', () => onEnd(ex));
  req.on('error', noop); // a reset mid-body surfaces as the response's close
}

function noop(): void {}

function onChunk(ex: NodeExchange, chunk: Buffer): void {
  if (ex.done) return;
  ex.received += chunk.byteLength;
  if (ex.received > ex.limit) {
    clearTimeout(ex.timer);
    return writeReply(ex, payloadTooLargeReply, true);
  }
  ex.chunks.push(chunk); // node hands out fresh buffers: no copy needed
}

function onEnd(ex: NodeExchange): void {
  if (ex.done || ex.aborted) return;
  clearTimeout(ex.timer);
  const chunks = ex.chunks;
  if (chunks.length !== 0) ex.body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, ex.received);
  ex.chunks = [];
  dispatch(ex);
}

function onBodyTimeout(ex: NodeExchange): void {
  if (!ex.done && !ex.aborted) writeReply(ex, requestTimeoutReply, true);
}

/** `close` fires after a finished response too; only an unfinished one counts as aborted. */
function onClose(ex: NodeExchange): void {
  if (ex.done) return;
  ex.aborted = true;
  clearTimeout(ex.timer);
  ex.controller?.abort();
  ex.writable?.();
}

function dispatch(ex: NodeExchange): void {
  let result: Promise<HttpReply> | HttpReply;
  try {
    result = ex.server.handler(ex);
  } catch (error) {
    return fail(ex, error);
  }
  if (result instanceof Promise) {
    result.then(
      (reply) => respond(ex, reply),
      (error: unknown) => fail(ex, error),
    );
  } else {
    respond(ex, result);
  }
}

function fail(ex: NodeExchange, error: unknown): void {
  ex.server.observer?.onError?.(error, ex);
  if (!ex.done && !ex.aborted) writeReply(ex, internalErrorReply, false);
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
  if (headers !== undefined) {
    for (const name in headers) {
      if (name !== 'content-length' && name !== 'transfer-encoding') res.setHeader(name, headers[name] as string | string[]);
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
async function closeServer(server: NodeServer, http: Server, graceMs: number): Promise<void> {
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

function listen(handler: HttpHandler, options: HttpServerOptions, observer?: HttpObserver): Promise<ListeningServer> {
  const server: NodeServer = { handler, options, bodyLimit: bodyLimitLookup(options), observer, closing: false };
  const http = createServer((req, res) => onRequest(server, req, res));
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      const port = (http.address() as AddressInfo).port; // a TCP listener always has an AddressInfo
      resolve({ port, close: (graceMs = 0) => closeServer(server, http, graceMs) });
    });
  });
}

export const nodeAdapter: HttpAdapter = { name: 'node', listen };
