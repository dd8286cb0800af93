/**
 * HttpAdapter over uWebSockets.js. Enforces the uWS lifetime rules (style guide §7): request data
 * copied before any await, onAborted attached first, body chunks copied under a size and time
 * limit (413 / 408), every write corked and skipped once aborted, streams written with
 * backpressure. Built over a native module that uws-loader.ts found (never a package's pure-JS
 * fallback). HTTPS through SSLApp when the options carry a certificate.
 */
import type {
  HttpRequest as UwsRequest,
  HttpResponse as UwsResponse,
  TemplatedApp,
  us_listen_socket,
  us_socket,
} from '@trufflesuite/uws-js-unofficial';
import { STATUS_CODES } from 'node:http';
import { createLifecycle, Exchange, type ServerCore } from './exchange.js';
import type { HttpAdapter, HttpHandler, HttpObserver, HttpReply, HttpServerOptions, ListeningServer } from './types.js';
import type { UwsNative } from './uws-loader.js';
import { toTraceparent } from './trace-context.js';
import { assertSafeHeaders, bodyLimitLookup, headersTooLargeReply, internalErrorReply, hasSharedHeaders, isStreamBody, knownBodyLength, releaseStream } from './reply.js';

/**
 * The requests in flight, as a list threaded through the exchanges themselves. Not a Set: with
 * a long-lived Set whose members came and went, every exchange survived scavenges and was
 * promoted until the next full GC (measured; likely because a Set's replaced hash tables point
 * at their successors, so one promoted table keeps the later ones and what they held:
 * bench/README.md "What survives a scavenge"). An exchange taken off the list points nowhere.
 */
interface InflightList {
  head: UwsExchange | undefined;
  tail: UwsExchange | undefined;
  size: number;
}

interface UwsServer extends ServerCore {
  readonly inflight: InflightList;
  onIdle: (() => void) | undefined;
  /** The close under way (every socket closed when it resolves). */
  closed: Promise<void> | undefined;
}

class UwsExchange extends Exchange<UwsServer> {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  watchingWritable = false;
  /** Neighbours on the server's in-flight list (InflightList); `listed` while on it. */
  inflightPrev: UwsExchange | undefined = undefined;
  inflightNext: UwsExchange | undefined = undefined;
  listed = false;
  private remote: string | undefined = undefined;

  constructor(readonly res: UwsResponse, req: UwsRequest, server: UwsServer) {
    super(server);
    this.method = req.getCaseSensitiveMethod();
    this.path = req.getUrl();
    this.query = (req.getQuery() as string | undefined) ?? '';
    headerTarget = this.headers;
    headerCount = 0;
    headerBytes = 0;
    req.forEach(collectHeader);
    this.headerCount = headerCount;
    this.headerBytes = headerBytes;
  }

  /**
   * The peer address, read from uWS on first use (most requests never look at it). uWS forgets
   * the response once it is answered or aborted: a first read after that gets ''.
   */
  get remoteAddress(): string {
    if (this.remote === undefined) this.remote = this.done || this.aborted ? '' : Buffer.from(this.res.getRemoteAddressAsText()).toString('latin1');
    return this.remote;
  }

  /** The client-origin step replaces it with the forwarded client's address. */
  set remoteAddress(address: string) {
    this.remote = address;
  }
}

// forEach runs synchronously, so module-level slots avoid a closure per request.
let headerTarget: Record<string, string> = {};
let headerCount = 0;
let headerBytes = 0;
function collectHeader(name: string, value: string): void {
  headerCount += 1;
  headerBytes += name.length + value.length + 4;
  const previous = headerTarget[name];
  headerTarget[name] = previous === undefined ? value : `${previous}, ${value}`;
}

function onRequest(server: UwsServer, res: UwsResponse, req: UwsRequest): void {
  const ex = new UwsExchange(res, req, server);
  // Answered before this returns: uWS needs no onAborted, and the request was never in flight.
  if (lifecycle.answerNow(ex)) return;
  // uWS calls its handlers without a receiver, so one closure must carry the exchange: a single
  // one serves both events (onAborted calls it with no argument, onData always with a chunk).
  const events = (chunk?: ArrayBuffer, isLast?: boolean): void => {
    if (chunk === undefined) onAborted(ex);
    else onChunk(ex, chunk, isLast === true);
  };
  res.onAborted(events);
  addInflight(server.inflight, ex);
  if (lifecycle.startBody(ex)) res.onData(events);
}

function onChunk(ex: UwsExchange, chunk: ArrayBuffer, isLast: boolean): void {
  const size = chunk.byteLength;
  if (ex.done || !lifecycle.admitChunk(ex, size)) return;
  // The ArrayBuffer is detached when this callback returns: copy it. A body that comes whole (a
  // token request's) is the body at once, without a list of chunks.
  if (size !== 0) {
    const copy = Buffer.from(new Uint8Array(chunk));
    if (isLast && ex.chunks === undefined) ex.body = copy;
    else (ex.chunks ??= []).push(copy);
  }
  if (isLast) lifecycle.endBody(ex);
}

function onAborted(ex: UwsExchange): void {
  ex.aborted = true;
  clearTimeout(ex.timer);
  ex.controller?.abort();
  ex.writable?.();
  settle(ex);
}

function addInflight(list: InflightList, ex: UwsExchange): void {
  ex.listed = true;
  ex.inflightPrev = list.tail;
  if (list.tail === undefined) list.head = ex;
  else list.tail.inflightNext = ex;
  list.tail = ex;
  list.size += 1;
}

function removeInflight(list: InflightList, ex: UwsExchange): void {
  const { inflightPrev: prev, inflightNext: next } = ex;
  if (prev === undefined) list.head = next;
  else prev.inflightNext = next;
  if (next === undefined) list.tail = prev;
  else next.inflightPrev = prev;
  ex.inflightPrev = undefined;
  ex.inflightNext = undefined;
  ex.listed = false;
  list.size -= 1;
}

/** Takes the exchange off the in-flight list; wakes a pending close() when it was the last. */
function settle(ex: UwsExchange): void {
  const server = ex.server;
  if (!ex.listed) return;
  removeInflight(server.inflight, ex);
  if (server.closing && server.inflight.size === 0) server.onIdle?.();
}

function respond(ex: UwsExchange, reply: HttpReply): void {
  if (ex.aborted || ex.done) return;
  try {
    if (hasSharedHeaders(reply.headers)) headerBlockOf(reply.headers); // checked once, when encoded
    else assertSafeHeaders(reply.headers);
  } catch (error) {
    return lifecycle.fail(ex, error);
  }
  const body = reply.body;
  if (body !== undefined && isStreamBody(body) && ex.method !== 'HEAD') {
    void streamReply(ex, reply, body);
    return;
  }
  writeReply(ex, reply, false);
}

const lifecycle = createLifecycle<UwsExchange>({ writeReply, respond });

const statusLines: string[] = [];
/** uWS wants the whole status line ("404 Not Found"); built once per status code. */
function statusLine(status: number): string {
  return (statusLines[status] ??= `${status} ${STATUS_CODES[status] ?? 'Status'}`);
}

// cork() runs its callback synchronously: module-level slots avoid a closure per response.
let corkEx: UwsExchange | undefined;
let corkReply: HttpReply = internalErrorReply;
let corkClose = false;
let corkChunk: Uint8Array | undefined;
let corkFirst = false;
let corkOk = true;

function writeHead(ex: UwsExchange, reply: HttpReply): void {
  const res = ex.res;
  res.writeStatus(statusLine(reply.status));
  res.writeHeader('x-request-id', ex.requestId);
  const worker = ex.server.options.worker;
  if (worker !== undefined) res.writeHeader('x-tessera-worker', worker);
  const trace = ex.trace;
  if (trace !== undefined) res.writeHeader('traceparent', toTraceparent(trace));
  const headers = reply.headers;
  if (headers === undefined) return;
  if (hasSharedHeaders(headers)) {
    const block = headerBlockOf(headers);
    if (block !== undefined) res.writeHeader(block.name, block.rest);
    return;
  }
  for (const name in headers) {
    if (!ownHeader(name)) continue;
    const value = headers[name] as string | readonly string[]; // own key from the for-in
    if (typeof value === 'string') res.writeHeader(name, value);
    else for (const item of value) res.writeHeader(name, item);
  }
}

/** Whether a reply's header is written as given: uWS frames the body, and the ids are ours. */
function ownHeader(name: string): boolean {
  return name !== 'content-length' && name !== 'transfer-encoding' && name !== 'x-request-id' && name !== 'traceparent';
}

/**
 * Shared headers (reply.ts `hasSharedHeaders`) as one writeHeader call: the first name, and
 * its value followed by every other field as uWS itself writes a field (CRLF, name, ": ",
 * value), encoded once. Values were checked for CR, LF and NUL before encoding, so the CRLFs
 * are only ours. Undefined when there is nothing to write.
 */
const headerBlocks = new WeakMap<object, { readonly name: string; readonly rest: Buffer } | undefined>();

function headerBlockOf(headers: HttpReply['headers']): { readonly name: string; readonly rest: Buffer } | undefined {
  if (headers === undefined) return undefined;
  if (headerBlocks.has(headers)) return headerBlocks.get(headers);
  assertSafeHeaders(headers);
  let first: string | undefined;
  let rest = '';
  for (const name in headers) {
    if (!ownHeader(name)) continue;
    const value = headers[name] as string | readonly string[]; // own key from the for-in
    for (const item of typeof value === 'string' ? [value] : value) {
      if (first === undefined) {
        first = name;
        rest = item;
      } else {
        rest += `\r\n${name}: ${item}`;
      }
    }
  }
  const block = first === undefined ? undefined : { name: first, rest: Buffer.from(rest, 'utf8') };
  headerBlocks.set(headers, block);
  return block;
}

function writeWholeCorked(): void {
  const ex = corkEx as UwsExchange; // set right before cork()
  const reply = corkReply;
  const res = ex.res;
  writeHead(ex, reply);
  const status = reply.status;
  if (ex.method === 'HEAD') {
    const length = knownBodyLength(reply);
    if (length !== undefined && status !== 204 && status !== 304) res.writeHeader('content-length', String(length));
    // endWithoutBody(n) would leave this uWS version waiting for n bytes; write the header ourselves.
    res.endWithoutBody();
  } else if (status === 204 || status === 304 || status < 200) {
    res.endWithoutBody();
  } else {
    const body = reply.body as string | Uint8Array | undefined; // streams never reach here
    res.end(body ?? '', corkClose);
  }
}

function writeReply(ex: UwsExchange, reply: HttpReply, closeConnection: boolean): void {
  corkEx = ex;
  corkReply = reply;
  corkClose = closeConnection || ex.server.closing;
  ex.done = true;
  ex.res.cork(writeWholeCorked);
  corkEx = undefined;
  complete(ex, reply.status);
}

function complete(ex: UwsExchange, status: number): void {
  ex.done = true;
  settle(ex);
  ex.server.observer?.onResponse?.(ex, status, (performance.now() - ex.startedAt) / 1000);
}

function writeChunkCorked(): void {
  const ex = corkEx as UwsExchange; // set right before cork()
  const res = ex.res;
  if (corkFirst) writeHead(ex, corkReply);
  if (corkChunk === undefined) res.end('', corkClose);
  else corkOk = res.write(corkChunk);
}

/** Writes one chunk (headers go with the first), or ends the response when `chunk` is undefined. */
function writeChunk(ex: UwsExchange, reply: HttpReply, chunk: Uint8Array | undefined, first: boolean): boolean {
  corkEx = ex;
  corkReply = reply;
  corkChunk = chunk;
  corkFirst = first;
  corkClose = ex.server.closing;
  corkOk = true;
  ex.res.cork(writeChunkCorked);
  corkEx = undefined;
  corkChunk = undefined;
  return corkOk;
}

function waitWritable(ex: UwsExchange): Promise<void> {
  return new Promise((resolve) => {
    ex.writable = resolve;
    if (ex.watchingWritable) return;
    ex.watchingWritable = true;
    ex.res.onWritable(() => {
      const wake = ex.writable;
      ex.writable = undefined;
      wake?.();
      return true;
    });
  });
}

/**
 * Streams an async-iterable body with chunked encoding. While uWS holds backpressure we wait for
 * onWritable before pulling the next chunk; the iterator is closed when the client goes away.
 */
async function streamReply(ex: UwsExchange, reply: HttpReply, body: AsyncIterable<Uint8Array>): Promise<void> {
  const iterator = body[Symbol.asyncIterator]();
  let first = true;
  try {
    for (;;) {
      const next = await iterator.next();
      if (ex.aborted || next.done === true) break;
      if (next.value.byteLength === 0) continue; // a zero-length chunk would end chunked encoding
      const ok = writeChunk(ex, reply, next.value, first);
      first = false;
      if (!ok) await waitWritable(ex);
      if (ex.aborted) break;
    }
  } catch (error) {
    ex.server.observer?.onError?.(error, ex);
    if (ex.aborted) return;
    if (first) return writeReply(ex, internalErrorReply, false);
    ex.done = true;
    ex.res.close(); // headers are out: cutting the connection is the only honest signal
    return;
  }
  if (ex.aborted) return releaseStream(iterator);
  if (first) return writeReply(ex, { status: reply.status, headers: reply.headers }, false);
  ex.done = true;
  writeChunk(ex, reply, undefined, false);
  complete(ex, reply.status);
}

/**
 * Stops accepting, waits for in-flight requests (at most `graceMs`), then closes every socket. A
 * second call during the wait with no grace (a worker failing while it drains) cuts the wait
 * short: a worker thread must not end while uWS sockets are open, or the process aborts.
 */
function closeServer(uws: UwsNative, server: UwsServer, app: TemplatedApp, listenSocket: us_listen_socket, graceMs: number): Promise<void> {
  if (server.closed !== undefined) {
    if (graceMs === 0) server.onIdle?.();
    return server.closed;
  }
  server.closing = true;
  uws.us_listen_socket_close(listenSocket);
  server.closed = new Promise<void>((resolve) => {
    if (server.inflight.size === 0) return resolve();
    const timer = setTimeout(resolve, graceMs);
    server.onIdle = () => {
      clearTimeout(timer);
      resolve();
    };
  }).then(() => {
    // Past the grace: abort the rest. close() runs onAborted at once, which takes ex off the list.
    for (let ex = server.inflight.head, next; ex !== undefined; ex = next) {
      next = ex.inflightNext;
      if (!ex.aborted) ex.res.close();
    }
    // Idle keep-alive connections would hold the loop open until uWS's idle timeout;
    // App.close() (present at runtime, missing from the typings) closes every socket.
    (app as unknown as { close?: () => void }).close?.();
  });
  return server.closed;
}

function listen(uws: UwsNative, handler: HttpHandler, options: HttpServerOptions, observer?: HttpObserver): Promise<ListeningServer> {
  const server: UwsServer = { handler, options, bodyLimit: bodyLimitLookup(options), observer, headersTooLarge: headersTooLargeReply(options), fair: options.fair, immediate: options.immediate, inflight: { head: undefined, tail: undefined, size: 0 }, closing: false, onIdle: undefined, closed: undefined };
  options.fair?.attach(lifecycle.fairListener);
  const tls = options.tls;
  const engine = tls === undefined ? uws.App() : uws.SSLApp({ key_file_name: tls.keyPath, cert_file_name: tls.certPath });
  const app = engine.any('/*', (res, req) => onRequest(server, res, req));
  return new Promise((resolve, reject) => {
    app.listen(options.host, options.port, (listenSocket) => {
      if (listenSocket === false) return reject(new Error(`cannot listen on ${options.host}:${options.port}`));
      const port = uws.us_socket_local_port(listenSocket as us_socket);
      resolve({ port, close: (graceMs = 0) => closeServer(uws, server, app, listenSocket, graceMs) });
    });
  });
}

/** The adapter over a loaded uWS native module (uws-loader.ts). */
export function createUwsAdapter(uws: UwsNative): HttpAdapter {
  return { name: 'uws', listen: (handler, options, observer) => listen(uws, handler, options, observer) };
}
