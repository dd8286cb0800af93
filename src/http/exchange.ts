/**
 * What both HTTP adapters (uWS and node:http) share: the request a handler sees plus the
 * exchange's own state, reading a body under its size and time limits (413 / 408), and handing
 * the request to the handler with one error path. Each adapter only adds how its engine
 * delivers chunks and writes replies.
 */
import type { HttpHandler, HttpObserver, HttpReply, HttpRequest, HttpServerOptions, ImmediateHandler, RequestNotes, TraceContext, Transport } from './types.js';
import { internalErrorReply, payloadTooLargeReply, requestTimeoutReply } from './reply.js';
import { acceptRequestId } from './request-id.js';
import { laneFullReply, RUN, REFUSED, type FairListener, type FairScheduler, type Waiting } from './fair-scheduler.js';
import { continueTrace } from './trace-context.js';

/** The parts of a listening server every exchange reaches through `server`. */
export interface ServerCore {
  readonly handler: HttpHandler;
  readonly options: HttpServerOptions;
  /** The body limit of a path (TESSERA_MAX_BODY_BYTES, or a route's own). */
  readonly bodyLimit: (path: string) => number;
  readonly observer: HttpObserver | undefined;
  /** The 431 this server answers (it names the configured limits). */
  readonly headersTooLarge: HttpReply;
  /** Fair admission across instances (fair-scheduler.ts); undefined: every request runs at once. */
  readonly fair: FairScheduler | undefined;
  /** Replies from memory answered before admission (HttpServerOptions.immediate). */
  readonly immediate: ImmediateHandler | undefined;
  closing: boolean;
}

const EMPTY_BODY = Buffer.alloc(0);
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** One request/response pair: the HttpRequest handlers see, plus the adapter's own state. */
export abstract class Exchange<S extends ServerCore = ServerCore> implements HttpRequest, RequestNotes, Waiting {
  abstract readonly method: string;
  abstract readonly path: string;
  abstract readonly query: string;
  abstract readonly remoteAddress: string;
  /** Plain HTTP unless the client-origin step (TLS listener, trusted proxy) says otherwise. */
  readonly scheme: 'http' | 'https' = 'http';
  readonly headers: Record<string, string> = Object.create(null) as Record<string, string>;
  /** Header fields as received (repeats counted) and their size: names, values, ": " and CRLF. */
  headerCount = 0;
  headerBytes = 0;
  body: Buffer = EMPTY_BODY;
  params: Readonly<Record<string, string>> = NO_PARAMS;
  route: string | undefined = undefined;
  readonly startedAt = performance.now();
  aborted = false;
  done = false;
  controller: AbortController | undefined = undefined;
  chunks: Buffer[] | undefined = undefined;
  received = 0;
  limit = 0;
  timer: NodeJS.Timeout | undefined = undefined;
  /** Wakes a stream waiting for the socket to drain (also on abort). */
  writable: (() => void) | undefined = undefined;
  /** The next request waiting in the same lane of the fair scheduler. */
  fairNext: Waiting | undefined = undefined;
  /** When it was queued for admission (fair-scheduler.ts). */
  fairQueuedAt = 0;

  // RequestNotes: the exchange is its own notes record, so noting costs no allocation.
  transport: Transport = 'http';
  rpc: string | undefined = undefined;
  instanceId: string | undefined = undefined;
  userId: string | undefined = undefined;
  clientId: string | undefined = undefined;
  rpcCode: number | undefined = undefined;
  grant: string | undefined = undefined;
  login: string | undefined = undefined;

  private id: string | undefined = undefined;
  private traceRead = false;
  private traceValue: TraceContext | undefined = undefined;

  constructor(readonly server: S) {}

  /** The client's X-Request-Id when acceptable, else a new one; read when the reply is written. */
  get requestId(): string {
    return (this.id ??= acceptRequestId(this.headers['x-request-id']));
  }

  /** The incoming traceparent continued (trace-context.ts); parsed on first read. */
  get trace(): TraceContext | undefined {
    if (!this.traceRead) {
      this.traceRead = true;
      this.traceValue = continueTrace(this.headers['traceparent']);
    }
    return this.traceValue;
  }

  get notes(): RequestNotes {
    return this;
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

/** How an adapter answers: a whole reply (optionally closing the connection) and a handler's reply. */
export interface ReplyWriter<E extends Exchange> {
  writeReply(ex: E, reply: HttpReply, closeConnection: boolean): void;
  respond(ex: E, reply: HttpReply): void;
}

/** The request lifecycle on top of an adapter's writer; one set per adapter, no closure per request. */
export function createLifecycle<E extends Exchange>(writer: ReplyWriter<E>) {
  const { writeReply, respond } = writer;

  function fail(ex: E, error: unknown): void {
    ex.server.observer?.onError?.(error, ex);
    if (!ex.done && !ex.aborted) writeReply(ex, internalErrorReply, false);
  }

  /** Runs the handler at once, or lets the fair scheduler queue (or refuse) the request. */
  function dispatch(ex: E): void {
    const fair = ex.server.fair;
    if (fair !== undefined) {
      const verdict = fair.admit(ex);
      if (verdict !== RUN) {
        if (verdict === REFUSED) writeReply(ex, laneFullReply(ex.path), false);
        return;
      }
    }
    run(ex);
  }

  function run(ex: E): void {
    let result: Promise<HttpReply> | HttpReply;
    try {
      result = ex.server.handler(ex);
    } catch (error) {
      fail(ex, error);
      return finish(ex);
    }
    if (result instanceof Promise) {
      result.then(
        (reply) => {
          respond(ex, reply);
          finish(ex);
        },
        (error: unknown) => {
          fail(ex, error);
          finish(ex);
        },
      );
    } else {
      respond(ex, result);
      finish(ex);
    }
  }

  /** A handler is done: its slot goes to the waiting requests (at the next turn). */
  function finish(ex: E): void {
    ex.server.fair?.finish();
  }

  /** What the fair scheduler does with a request whose turn came; a scheduler serves one listener's exchanges. */
  const fairListener: FairListener = {
    start: (request) => run(request as E),
    expire: (request) => writeReply(request as E, laneFullReply(request.path), false),
  };

  function onBodyTimeout(ex: E): void {
    if (!ex.done && !ex.aborted) writeReply(ex, requestTimeoutReply, true);
  }

  function withinHeaderLimits(ex: E): boolean {
    const options = ex.server.options;
    return ex.headerCount <= options.maxHeaderCount && ex.headerBytes <= options.maxHeaderBytes;
  }

  function hasBody(ex: E): boolean {
    const length = ex.headers['content-length'];
    return (length !== undefined && length !== '0') || ex.headers['transfer-encoding'] !== undefined;
  }

  return {
    dispatch,
    fail,
    fairListener,
    /**
     * Answers a request without a body from memory, synchronously, when the server's immediate
     * handler has its reply (HttpServerOptions.immediate): true when answered. False leaves the
     * request untouched for `startBody` (431, the body, fair admission, the handler).
     */
    answerNow(ex: E): boolean {
      const immediate = ex.server.immediate;
      if (immediate === undefined || !withinHeaderLimits(ex) || hasBody(ex)) return false;
      let reply: HttpReply | undefined;
      try {
        reply = immediate(ex);
      } catch (error) {
        fail(ex, error);
        return true;
      }
      if (reply === undefined) return false;
      respond(ex, reply);
      return true;
    },
    /**
     * Answers 431 for too many or too large header fields. Otherwise dispatches a request
     * without a body at once and returns false; for one with a body, applies the path's limit
     * (413 on a too large content-length), starts the body timer and returns true: the adapter
     * then feeds the chunks to `admitChunk` and calls `endBody`.
     */
    startBody(ex: E): boolean {
      if (!withinHeaderLimits(ex)) {
        writeReply(ex, ex.server.headersTooLarge, true);
        return false;
      }
      if (!hasBody(ex)) {
        dispatch(ex);
        return false;
      }
      const length = ex.headers['content-length'];
      ex.limit = ex.server.bodyLimit(ex.path);
      if (length !== undefined && Number(length) > ex.limit) {
        writeReply(ex, payloadTooLargeReply, true);
        return false;
      }
      ex.timer = setTimeout(onBodyTimeout, ex.server.options.bodyTimeoutMs, ex);
      return true;
    },
    /** Counts `size` more body bytes; past the limit answers 413 and returns false. */
    admitChunk(ex: E, size: number): boolean {
      ex.received += size;
      if (ex.received <= ex.limit) return true;
      clearTimeout(ex.timer);
      writeReply(ex, payloadTooLargeReply, true);
      return false;
    },
    /** The whole body has arrived: joins the chunks and dispatches. */
    endBody(ex: E): void {
      clearTimeout(ex.timer);
      const chunks = ex.chunks;
      if (chunks !== undefined && chunks.length !== 0) ex.body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, ex.received);
      ex.chunks = undefined;
      dispatch(ex);
    },
  };
}
