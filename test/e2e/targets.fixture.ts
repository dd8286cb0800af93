/**
 * Real HTTP targets on 127.0.0.1 for execution tests: each path has a behaviour (status, JSON
 * answer, delay) that tests can change; every call is recorded with its headers and body.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: any;
  readonly at: number;
}

export interface TargetReply {
  readonly status?: number;
  readonly body?: unknown;
  readonly delayMs?: number;
  /** Answers once this settles (a test releases the call when it chooses). */
  readonly hold?: Promise<void>;
}

export type TargetBehaviour = (call: RecordedCall) => TargetReply;

/** A path nobody configured answers 200 with an empty JSON object. */
const answerEmpty: TargetBehaviour = () => ({});

export interface TargetServer {
  readonly calls: RecordedCall[];
  url(path: string): string;
  /** Sets (or replaces) what a path answers; unknown paths answer 200 `{}`. */
  on(path: string, behaviour: TargetBehaviour): void;
  callsTo(path: string): RecordedCall[];
  /** Resolves once `count` calls reached the path (rejects after `timeoutMs`). */
  waitForCalls(path: string, count: number, timeoutMs?: number): Promise<RecordedCall[]>;
  close(): Promise<void>;
}

export async function startTargetServer(port = 0): Promise<TargetServer> {
  const calls: RecordedCall[] = [];
  const behaviours = new Map<string, TargetBehaviour>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const call: RecordedCall = { path: req.url ?? '/', headers: req.headers, body, json, at: Date.now() };
      calls.push(call);
      const reply = (behaviours.get(call.path) ?? answerEmpty)(call);
      const send = () => {
        if (res.destroyed) return;
        const text = reply.body === undefined ? '{}' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(text);
      };
      if (reply.hold !== undefined) void reply.hold.then(send);
      else if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs).unref(); // a reply still held when the suite ends keeps nothing alive
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    calls,
    url: (path) => `http://127.0.0.1:${bound}${path}`,
    on: (path, behaviour) => void behaviours.set(path, behaviour),
    callsTo: (path) => calls.filter((c) => c.path === path),
    async waitForCalls(path, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const got = calls.filter((c) => c.path === path);
        if (got.length >= count) return got;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`expected ${count} calls to ${path}, got ${calls.filter((c) => c.path === path).length}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
