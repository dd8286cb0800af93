/**
 * What the node logs about requests: the access log (one line per request on every transport,
 * written only when its mode and sampling say so, the line built only then) and, always, every
 * reply with a 5xx status and every error a handler threw, each with the request's id (style
 * guide §6: internal errors are logged in full with the request id; the client sees a fixed
 * message). docs/operations/observability.md lists the fields.
 */
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
      if (write !== undefined) write(accessFields(request, status, seconds));
      else logger.info(accessLine(request, status, seconds), 'request');
    },
  };
}

interface PinoInternals {
  readonly [key: symbol]: unknown;
}

/**
 * Writes an access line straight to the logger's destination, in the form pino writes it
 * (`{"level":"info","time":…,<bindings>,<fields>,"msg":"request"}`), skipping pino's generic
 * per-key serialisation and the redaction wildcard (the access fields hold no secret: ids, a
 * route template, numbers). Undefined when the logger is not a plain pino one (a mixin, a
 * write hook, a destination that wants metadata): then lines go through `logger.info`.
 */
function directLineWriter(logger: NodeLogger): ((fields: string) => void) | undefined {
  const internals = logger as unknown as PinoInternals;
  const symbols = pino.symbols;
  const stream = internals[symbols.streamSym] as ({ write?: unknown } & PinoInternals) | undefined;
  const time = internals[symbols.timeSym];
  const bindings = internals[symbols.chindingsSym];
  const levelStart = (internals[symbols.lsCacheSym] as Record<number, unknown> | undefined)?.[logger.levels.values.info ?? 30];
  const hooks = internals[Symbol.for('pino.hooks')] as { streamWrite?: unknown } | undefined;
  if (stream === undefined || typeof stream.write !== 'function' || stream[Symbol.for('pino.metadata')] === true) return undefined;
  if (typeof time !== 'function' || typeof bindings !== 'string' || typeof levelStart !== 'string') return undefined;
  if (internals[symbols.mixinSym] !== undefined || hooks?.streamWrite !== undefined) return undefined;
  const destination = stream as unknown as { write(line: string): unknown };
  const now = time as () => string;
  const batch = createLineBatch(destination);
  return (fields) => {
    batch.add(`${levelStart}${now()}${bindings}${fields},"msg":"request"}\n`);
  };
}

/** Written at the latest when this many characters are waiting (one write of them). */
const BATCH_CHARS = 64 * 1024;
/** Writers with lines waiting: written at process exit too. */
const waiting = new Set<{ flush(): void }>();
let exitHook = false;

/** Access lines wait at most this long before they are written (one write for all of them). */
const BATCH_MS = 20;

/**
 * The access lines of up to BATCH_MS, written to the destination in one write instead of one
 * write (a system call on stdout) per request or per event-loop turn: under load a turn answers
 * only a few requests, and the write per turn cost ~9 % of a token request's CPU (issue 13
 * profile). A line is written within BATCH_MS of its reply, at BATCH_CHARS, or at exit; a kill
 * -9 can lose the lines of the last BATCH_MS (never a reply or a stored write).
 */
function createLineBatch(destination: { write(text: string): unknown }) {
  let pending = '';
  const writer = {
    flush(): void {
      waiting.delete(writer);
      if (pending === '') return;
      const text = pending;
      pending = '';
      destination.write(text);
    },
  };
  const onTimer = (): void => writer.flush();
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const w of [...waiting]) w.flush();
    });
  }
  return {
    add(line: string): void {
      if (pending === '') {
        waiting.add(writer);
        // Unref'd: waiting lines never keep a process alive (the exit hook writes them).
        setTimeout(onTimer, BATCH_MS).unref();
      }
      pending += line;
      if (pending.length >= BATCH_CHARS) writer.flush();
    },
  };
}

/** accessLine's fields as JSON members (`,"name":value` each; undefined ones left out). */
function accessFields(request: ObservedRequest | undefined, status: number, seconds: number): string {
  const notes = request?.notes;
  const trace = request?.trace;
  let out = member('requestId', request?.requestId);
  out += `,"transport":"${notes?.transport ?? 'http'}"`;
  out += member('method', request?.method);
  out += member('route', request?.route ?? notes?.rpc ?? 'unmatched');
  out += `,"status":${status}`;
  const rpcCode = notes?.rpcCode;
  if (rpcCode !== undefined) out += `,"rpcCode":${rpcCode}`;
  out += `,"durationMs":${Math.round(seconds * 1e5) / 100}`;
  out += member('instanceId', notes?.instanceId);
  out += member('clientId', notes?.clientId);
  out += member('userId', notes?.userId);
  if (trace !== undefined) out += member('traceId', trace.traceId) + member('spanId', trace.spanId) + member('parentSpanId', trace.parentId);
  return out;
}

function member(name: string, value: string | undefined): string {
  return value === undefined ? '' : `,"${name}":${JSON.stringify(value)}`;
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
