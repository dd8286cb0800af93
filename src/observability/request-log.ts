/**
 * What the node logs about requests: the access log (one line per request on every transport,
 * written only when its mode and sampling say so, the line built only then) and, always, every
 * reply with a 5xx status and every error a handler threw, each with the request's id (style
 * guide §6: internal errors are logged in full with the request id; the client sees a fixed
 * message). docs/operations/observability.md lists the fields.
 */
import fs from 'node:fs';
import { pino } from 'pino';
import type { HttpRequest, ObservedRequest } from '../http/types.js';
import type { NodeLogger } from './logger.js';

export interface RequestLog {
  /** A handler threw (the adapter answered 500). */
  onError(error: unknown, request: HttpRequest | undefined): void;
  /** A reply with status 500 or above went out. */
  onServerError(request: ObservedRequest | undefined, status: number): void;
  /** Any reply went out (the access log); absent when the access log is off. */
  onResponse?(request: ObservedRequest | undefined, status: number, seconds: number): void;
  /** Access lines dropped so far because the log reader was too slow (or gone); absent when none can be. */
  droppedLines?(): number;
}

export interface AccessLogOptions {
  /** `all`: every request (successes sampled), `errors`: status ≥ 400 or a failed RPC, `off`. */
  readonly mode: 'off' | 'all' | 'errors';
  /** Share of successful requests written in `all` mode (0..1). */
  readonly sample: number;
  /** Random source for sampling (tests pass a fixed one). */
  readonly random?: () => number;
}

const ACCESS_OFF: AccessLogOptions = { mode: 'off', sample: 1 };

export function createRequestLog(logger: NodeLogger, access: AccessLogOptions = ACCESS_OFF): RequestLog {
  const log: RequestLog = {
    onError(err, request) {
      logger.error({ err, requestId: request?.requestId, method: request?.method, path: request?.path }, 'request failed');
    },
    onServerError(request, status) {
      logger.error({ requestId: request?.requestId, method: request?.method, path: request?.path, route: request?.route, status }, 'answered with a server error');
    },
  };
  if (access.mode === 'off' || !logger.isLevelEnabled('info')) return log;
  const errorsOnly = access.mode === 'errors';
  const sample = access.sample;
  const random = access.random ?? Math.random;
  const write = directLineWriter(logger);
  return {
    ...log,
    onResponse(request, status, seconds) {
      const rpcCode = request?.notes?.rpcCode;
      const failed = status >= 400 || (rpcCode !== undefined && rpcCode !== 0);
      if (!failed && (errorsOnly || (sample < 1 && random() >= sample))) return;
      if (write !== undefined) write.add(request, status, seconds);
      else logger.info(accessLine(request, status, seconds), 'request');
    },
    ...(write !== undefined ? { droppedLines: () => write.dropped } : {}),
  };
}

interface PinoInternals {
  readonly [key: symbol]: unknown;
}

/**
 * Writes access lines straight to the logger's destination, in the form pino writes them
 * (`{"level":"info","time":…,<bindings>,<fields>,"msg":"request"}`), skipping pino's generic
 * per-key serialisation and the redaction wildcard (the access fields hold no secret: ids, a
 * route template, numbers). Undefined when the logger is not a plain pino one (a mixin, a
 * write hook, a destination that wants metadata): then lines go through `logger.info`.
 */
function directLineWriter(logger: NodeLogger): AccessWriter | undefined {
  const internals = logger as unknown as PinoInternals;
  const symbols = pino.symbols;
  const stream = internals[symbols.streamSym] as ({ write?: unknown; fd?: unknown } & PinoInternals) | undefined;
  const time = internals[symbols.timeSym];
  const bindings = internals[symbols.chindingsSym];
  const levelStart = (internals[symbols.lsCacheSym] as Record<number, unknown> | undefined)?.[logger.levels.values.info ?? 30];
  const hooks = internals[Symbol.for('pino.hooks')] as { streamWrite?: unknown } | undefined;
  if (stream === undefined || typeof stream.write !== 'function' || stream[Symbol.for('pino.metadata')] === true) return undefined;
  if (typeof time !== 'function' || typeof bindings !== 'string' || typeof levelStart !== 'string') return undefined;
  if (internals[symbols.mixinSym] !== undefined || hooks?.streamWrite !== undefined) return undefined;
  // pino's own destination (sonic-boom) on an open descriptor: written to the descriptor here,
  // asynchronously. Any other destination gets the batch as one string.
  const fd = typeof stream.fd === 'number' && stream.fd >= 0 ? stream.fd : undefined;
  const destination = stream as unknown as { write(line: string): unknown };
  return new AccessWriter(Buffer.from(levelStart, 'utf8'), time as () => string, Buffer.from(bindings, 'utf8'), fd !== undefined ? fd : destination);
}

/** Lines waiting for a write: written at the latest at this many bytes (one write of them). */
const BATCH_BYTES = 64 * 1024;
/**
 * The most bytes of access lines a writer keeps: one buffer being filled and one being written,
 * BUFFER_BYTES each. A line that does not fit while the previous batch is still being written
 * (the log reader is slower than the requests) is dropped and counted
 * (tessera_access_log_dropped_lines_total), never queued without bound and never waited for.
 */
const BUFFER_BYTES = 256 * 1024;
/** Access lines wait at most this long before they are written (one write for all of them). */
const BATCH_MS = 20;
/** A descriptor that answered EAGAIN (a non-blocking pipe that is full) is tried again after this long. */
const RETRY_MS = 10;
/** Writers with lines waiting: written at process exit too. */
const waiting = new Set<AccessWriter>();
let exitHook = false;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const DELETE = 0x7f;
const DOT = 0x2e;
const ZERO = 0x30;

// The fixed parts of a line, encoded once: copied as bytes, not read character by character.
const REQUEST_ID = Buffer.from(',"requestId":', 'latin1');
const TRANSPORT = Buffer.from(',"transport":', 'latin1');
const METHOD = Buffer.from(',"method":', 'latin1');
const ROUTE = Buffer.from(',"route":', 'latin1');
const STATUS = Buffer.from(',"status":', 'latin1');
const RPC_CODE = Buffer.from(',"rpcCode":', 'latin1');
const DURATION_MS = Buffer.from(',"durationMs":', 'latin1');
const INSTANCE_ID = Buffer.from(',"instanceId":', 'latin1');
const CLIENT_ID = Buffer.from(',"clientId":', 'latin1');
const USER_ID = Buffer.from(',"userId":', 'latin1');
const TRACE_ID = Buffer.from(',"traceId":', 'latin1');
const SPAN_ID = Buffer.from(',"spanId":', 'latin1');
const PARENT_SPAN_ID = Buffer.from(',"parentSpanId":', 'latin1');
const LINE_END = Buffer.from(',"msg":"request"}\n', 'latin1');

/**
 * The access lines of up to BATCH_MS, built byte by byte into one reusable buffer (no string per
 * line, no string per batch, strings escaped only when they hold a character JSON must escape)
 * and written in one write: under load a turn answers only a few requests, and a write per turn
 * cost ~9 % of a token request's CPU (issue 13 profile). On pino's own destination the batch goes
 * to the descriptor with an asynchronous fs.write (libuv's thread pool), one write at a time: a
 * slow or stalled log reader never blocks the event loop (pino's synchronous destination blocks on
 * a full blocking pipe, and sleeps 100 ms on EAGAIN of a non-blocking one). While a write is under
 * way the next batch fills the other buffer; when that is full, lines are dropped and counted. A
 * line is written within BATCH_MS of its reply, at BATCH_BYTES, or at exit (synchronously, unless
 * a write is still under way: then the waiting lines are dropped rather than block the exit); a
 * kill -9 can lose the lines of the last BATCH_MS (never a reply or a stored write).
 */
export class AccessWriter {
  private fill: Buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private spare: Buffer | undefined = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  private lines = 0;
  private timer = false;
  /** Lines of the write under way (counted as dropped if it fails). */
  private writingLines = 0;
  dropped = 0;

  constructor(
    private readonly levelStart: Uint8Array,
    private readonly now: () => string,
    private readonly bindings: Uint8Array,
    private readonly destination: number | { write(text: string): unknown },
  ) {
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const w of [...waiting]) w.flushAtExit();
      });
    }
  }

  /** Appends one access line, or counts it as dropped when the buffer has no room for it. */
  add(request: ObservedRequest | undefined, status: number, seconds: number): void {
    const notes = request?.notes;
    const trace = request?.trace;
    const requestId = request?.requestId;
    const method = request?.method;
    const route = request?.route ?? notes?.rpc ?? 'unmatched';
    const transport = notes?.transport ?? 'http';
    const instanceId = notes?.instanceId;
    const clientId = notes?.clientId;
    const userId = notes?.userId;
    // Room for the worst case: every string character escaped as \uXXXX, numbers and names.
    let room = 400 + this.levelStart.length + this.bindings.length + 6 * (route.length + transport.length + (requestId?.length ?? 0) + (method?.length ?? 0) + (instanceId?.length ?? 0) + (clientId?.length ?? 0) + (userId?.length ?? 0));
    if (trace !== undefined) room += 6 * (trace.traceId.length + trace.spanId.length + (trace.parentId?.length ?? 0));
    if (this.used + room > this.fill.length) {
      this.dropped += 1;
      return;
    }
    const b = this.fill;
    let o = this.used;
    b.set(this.levelStart, o);
    o = putRaw(b, o + this.levelStart.length, this.now());
    b.set(this.bindings, o);
    o += this.bindings.length;
    if (requestId !== undefined) o = putString(b, putBytes(b, o, REQUEST_ID), requestId);
    o = putString(b, putBytes(b, o, TRANSPORT), transport);
    if (method !== undefined) o = putString(b, putBytes(b, o, METHOD), method);
    o = putString(b, putBytes(b, o, ROUTE), route);
    o = putRaw(b, putBytes(b, o, STATUS), String(status));
    const rpcCode = notes?.rpcCode;
    if (rpcCode !== undefined) o = putRaw(b, putBytes(b, o, RPC_CODE), String(rpcCode));
    o = putMilliseconds(b, putBytes(b, o, DURATION_MS), seconds);
    if (instanceId !== undefined) o = putString(b, putBytes(b, o, INSTANCE_ID), instanceId);
    if (clientId !== undefined) o = putString(b, putBytes(b, o, CLIENT_ID), clientId);
    if (userId !== undefined) o = putString(b, putBytes(b, o, USER_ID), userId);
    if (trace !== undefined) {
      o = putString(b, putBytes(b, o, TRACE_ID), trace.traceId);
      o = putString(b, putBytes(b, o, SPAN_ID), trace.spanId);
      if (trace.parentId !== undefined) o = putString(b, putBytes(b, o, PARENT_SPAN_ID), trace.parentId);
    }
    o = putBytes(b, o, LINE_END);
    this.used = o;
    this.lines += 1;
    if (!this.timer) {
      this.timer = true;
      waiting.add(this);
      // Unref'd: waiting lines never keep a process alive (the exit hook writes them).
      setTimeout(this.onTimer, BATCH_MS).unref();
    }
    if (this.used >= BATCH_BYTES) this.flush();
  }

  private readonly onTimer = (): void => {
    this.timer = false;
    this.flush();
  };

  /** Hands the waiting lines to the destination, unless a write is still under way. */
  flush(): void {
    if (this.used === 0) {
      waiting.delete(this);
      return;
    }
    const destination = this.destination;
    if (typeof destination !== 'number') {
      const text = this.fill.toString('utf8', 0, this.used);
      this.used = 0;
      this.lines = 0;
      waiting.delete(this);
      destination.write(text);
      return;
    }
    const spare = this.spare;
    if (spare === undefined) return; // a write is under way: its completion flushes again
    const batch = this.fill;
    const length = this.used;
    this.writingLines = this.lines;
    this.fill = spare;
    this.spare = undefined;
    this.used = 0;
    this.lines = 0;
    waiting.delete(this);
    this.writeFrom(destination, batch, 0, length);
  }

  private writeFrom(fd: number, batch: Buffer, offset: number, end: number): void {
    fs.write(fd, batch, offset, end - offset, null, (error, written) => {
      if (error !== null) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          setTimeout(() => this.writeFrom(fd, batch, offset, end), RETRY_MS).unref();
          return;
        }
        // The reader is gone (EPIPE) or the descriptor broke: this batch is lost, later ones are tried.
        this.dropped += this.writingLines;
        return this.written(batch);
      }
      if (offset + written < end) return this.writeFrom(fd, batch, offset + written, end);
      this.written(batch);
    });
  }

  private written(batch: Buffer): void {
    this.spare = batch;
    this.writingLines = 0;
    // Lines that arrived during the write go now if they are a full batch; else their timer sends them.
    if (this.used >= BATCH_BYTES || (this.used > 0 && !this.timer)) this.flush();
  }

  /** At exit: the waiting lines in one synchronous write, unless a write is under way (the reader is slow). */
  flushAtExit(): void {
    waiting.delete(this);
    if (this.used === 0) return;
    if (typeof this.destination !== 'number') return this.flush();
    if (this.spare === undefined) {
      this.dropped += this.lines;
      return;
    }
    try {
      fs.writeSync(this.destination, this.fill, 0, this.used);
    } catch {
      // EAGAIN on a full non-blocking pipe, or no reader: the lines are lost, the exit goes on.
    }
    this.used = 0;
    this.lines = 0;
  }
}

/** Copies bytes encoded once (a line's fixed parts). */
function putBytes(b: Buffer, o: number, bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = 0; i < n; i++) b[o + i] = bytes[i] as number;
  return o + n;
}

/** Hundredths of a millisecond up to which `putMilliseconds` writes digits itself (2^47: ~44 years). */
const DIGITS_BELOW = 2 ** 47;

/**
 * Writes the duration in milliseconds to two decimals, exactly as `String(Math.round(seconds *
 * 1e5) / 100)` (what JSON and pino write), from the integer hundredths: no number-to-string
 * conversion of a fraction (V8's slow path, ~1 % of the main thread per opaque token; issue 13).
 * Below DIGITS_BELOW hundredths the quotient's shortest round-trip form is its exact decimal (the
 * double is within 2^-12 of it, any other decimal of at most two places 0.01 away), so the digits
 * are the same; anything else (negative, NaN, huge) goes through String as before.
 */
function putMilliseconds(b: Buffer, o: number, seconds: number): number {
  const hundredths = Math.round(seconds * 1e5);
  if (!(hundredths >= 0 && hundredths < DIGITS_BELOW)) return putRaw(b, o, String(hundredths / 100));
  const fraction = hundredths % 100;
  o = putDigits(b, o, (hundredths - fraction) / 100);
  if (fraction !== 0) {
    const units = fraction % 10;
    b[o] = DOT;
    b[o + 1] = ZERO + (fraction - units) / 10;
    if (units === 0) return o + 2;
    b[o + 2] = ZERO + units;
    return o + 3;
  }
  return o;
}

/** Writes a non-negative integer below 2^53 in decimal. */
function putDigits(b: Buffer, o: number, n: number): number {
  let end = o + 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) end += 1;
  let i = end;
  let rest = n;
  do {
    const next = Math.floor(rest / 10);
    b[--i] = ZERO + (rest - next * 10);
    rest = next;
  } while (rest !== 0);
  return end;
}

/** Writes an ASCII string that needs no escaping (numbers, the time stamp). */
function putRaw(b: Buffer, o: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) b[o + i] = s.charCodeAt(i);
  return o + n;
}

/**
 * Writes a JSON string: byte by byte while the characters are printable ASCII other than `"` and
 * `\`, otherwise (rare: ids and routes are ASCII) JSON.stringify's escaping, UTF-8 encoded.
 */
function putString(b: Buffer, o: number, s: string): number {
  b[o] = QUOTE;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < SPACE || c >= DELETE || c === QUOTE || c === BACKSLASH) return o + b.write(JSON.stringify(s), o, 'utf8');
    b[o + 1 + i] = c;
  }
  b[o + 1 + n] = QUOTE;
  return o + n + 2;
}

/** The access-log fields; undefined ones are left out of the JSON line. */
function accessLine(request: ObservedRequest | undefined, status: number, seconds: number) {
  const notes = request?.notes;
  const trace = request?.trace;
  return {
    requestId: request?.requestId,
    transport: notes?.transport ?? 'http',
    method: request?.method,
    route: request?.route ?? notes?.rpc ?? 'unmatched',
    status,
    rpcCode: notes?.rpcCode,
    durationMs: Math.round(seconds * 1e5) / 100,
    instanceId: notes?.instanceId,
    clientId: notes?.clientId,
    userId: notes?.userId,
    traceId: trace?.traceId,
    spanId: trace?.spanId,
    parentSpanId: trace?.parentId,
  };
}
