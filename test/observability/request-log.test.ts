/**
 * Every 5xx the HTTP front end sends is reported with the request's id, and so is every error a
 * handler threw (issue #12 item 7); ids are unique per request and cheap (prefix + counter).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { nodeAdapter } from '../../src/http/node-adapter.js';
import { json } from '../../src/http/reply.js';
import { nextRequestId } from '../../src/http/request-id.js';
import { createRouter } from '../../src/http/router.js';
import type { HttpRequest, ListeningServer, ObservedRequest } from '../../src/http/types.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { isoTime, type NodeLogger } from '../../src/observability/logger.js';
import { createRequestLog } from '../../src/observability/request-log.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { uwsAdapter } from '../http/uws.fixture.js';

describe('request ids', () => {
  it('are unique and share the process prefix', () => {
    const [a, b] = [nextRequestId(), nextRequestId()];
    expect(a).not.toBe(b);
    expect(a.split('-')[0]).toBe(b.split('-')[0]);
  });
});

// Without a loadable uWS build (test/http/uws.fixture.ts names why) only node:http is checked.
describe.each(uwsAdapter === undefined ? [nodeAdapter] : [nodeAdapter, uwsAdapter])('$name adapter: 5xx are logged with the request id', (adapter) => {
  const serverErrors: { requestId: string | undefined; status: number }[] = [];
  const thrown: { requestId: string | undefined }[] = [];
  let server: ListeningServer;
  let base: string;

  beforeAll(async () => {
    const metrics = createMetrics({
      onError: (_error, request?: HttpRequest) => thrown.push({ requestId: request?.requestId }),
      onServerError: (request, status) => serverErrors.push({ requestId: request?.requestId, status }),
    });
    const router = createRouter(
      [
        { method: 'GET', pattern: '/ok', handler: () => json(200, {}) },
        { method: 'GET', pattern: '/unavailable', handler: () => json(503, {}) },
        {
          method: 'GET',
          pattern: '/boom',
          handler: () => {
            throw new Error('bug');
          },
        },
      ],
      { corsPathPrefixes: [] },
    );
    server = await adapter.listen(router, { host: '127.0.0.1', port: 0, maxBodyBytes: 1024, bodyTimeoutMs: 1_000, maxHeaderCount: 40, maxHeaderBytes: 32_768 }, metrics.httpObserver);
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.close(0));

  it('reports a thrown error and its 500 under one id, a 503 under another, a 200 not at all', async () => {
    expect((await fetch(`${base}/ok`)).status).toBe(200);
    expect(serverErrors).toEqual([]);
    expect((await fetch(`${base}/boom`)).status).toBe(500);
    expect((await fetch(`${base}/unavailable`)).status).toBe(503);
    expect(serverErrors.map((e) => e.status)).toEqual([500, 503]);
    expect(thrown).toHaveLength(1);
    expect(thrown[0]?.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(serverErrors[0]?.requestId).toBe(thrown[0]?.requestId);
    expect(serverErrors[1]?.requestId).not.toBe(serverErrors[0]?.requestId);
  });
});

describe('access lines', () => {
  /** A node-style logger (createLogger's options) writing into an array instead of stdout. */
  function capturingLogger(options: { mixin?: boolean } = {}): { logger: NodeLogger; lines: Record<string, unknown>[]; readonly writes: number } {
    const lines: Record<string, unknown>[] = [];
    let writes = 0;
    const destination = {
      write: (text: string) => {
        writes += 1;
        for (const line of text.split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    };
    const logger = pino(
      {
        level: 'info',
        base: { service: 'tessera' },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        redact: { paths: ['token', '*.token', 'authorization'], censor: '[redacted]' },
        ...(options.mixin === true ? { mixin: () => ({ mixed: true }) } : {}),
      },
      destination,
    );
    return {
      logger,
      lines,
      get writes() {
        return writes;
      },
    };
  }
  const request = (trace: boolean): ObservedRequest =>
    ({
      requestId: 'req-1',
      method: 'POST',
      route: '/oauth/v2/token',
      trace: trace ? { traceId: 't'.repeat(32), spanId: 's'.repeat(16), parentId: 'p'.repeat(16), sampled: true } : undefined,
      notes: { transport: 'http', instanceId: 'inst"1', clientId: 'client\\1', grant: 'client_credentials' },
    }) as unknown as ObservedRequest;

  it('are what pino itself writes for the same fields (written directly, or through logger.info when the logger has a mixin)', async () => {
    const direct = capturingLogger();
    const viaPino = capturingLogger({ mixin: true });
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      for (const { logger } of [direct, viaPino]) {
        const log = createRequestLog(logger, { mode: 'all', sample: 1 });
        log.onResponse?.(request(true), 200, 0.0123456);
        log.onResponse?.(request(false), 401, 0.5);
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(direct.writes).toBe(0); // direct lines wait beyond the turn …
      vi.advanceTimersByTime(19);
      expect(direct.writes).toBe(0);
      vi.advanceTimersByTime(1);
      expect(direct.writes).toBe(1); // … 20 ms at most, and go out in one write
    } finally {
      vi.useRealTimers();
    }
    expect(direct.lines).toHaveLength(2);
    expect(viaPino.lines).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      const { time: t1, ...a } = direct.lines[i] as Record<string, unknown>;
      const { time: t2, mixed, ...b } = viaPino.lines[i] as Record<string, unknown>;
      expect(mixed).toBe(true); // the control: that line did go through pino
      expect(a).toEqual(b);
      expect(Object.keys(a)).toEqual(Object.keys(b)); // the same order, too
      expect(typeof t1).toBe('string');
      expect(Number.isNaN(Date.parse(String(t1)))).toBe(false);
      expect(typeof t2).toBe('string');
    }
    expect(direct.lines[0]).toMatchObject({ level: 'info', service: 'tessera', msg: 'request', requestId: 'req-1', route: '/oauth/v2/token', status: 200, durationMs: 12.35, instanceId: 'inst"1', clientId: 'client\\1', traceId: 't'.repeat(32), parentSpanId: 'p'.repeat(16) });
    expect(direct.lines[1]).not.toHaveProperty('traceId');
  });

  it('are byte for byte what pino writes for the same fields, durations of every size and the time stamp included', async () => {
    // Raw text, not parsed JSON: 12.3 and 12.30 parse alike, and the direct writer formats the
    // duration from its digits (request-log.ts putMilliseconds), not with String().
    const raw = (mixin: boolean) => {
      const texts: string[] = [];
      const logger = pino(
        { level: 'info', base: { service: 'tessera' }, timestamp: isoTime, formatters: { level: (label) => ({ level: label }) }, ...(mixin ? { mixin: () => ({ mixed: true }) } : {}) },
        { write: (text: string) => texts.push(text) },
      );
      return { logger, texts };
    };
    const direct = raw(false);
    const viaPino = raw(true);
    const durations = [0, -0, 0.000004, 0.000005, 0.0000051, 0.00001, 0.0001, 0.00012, 0.001, 0.0012345, 0.009999, 0.01, 0.0999949, 0.1, 0.5, 1, 1.23456, 12.3456789, 59.99999, 3600, 86_400.5, 1e9 + 0.00001, 1.5e12];
    // 2,000 more spread over eight decades, from a fixed sequence (a failure names its line, and a re-run meets the same inputs).
    let state = 20261127;
    for (let i = 0; i < 2000; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      durations.push((state / 2 ** 32) * 10 ** (i % 8 - 4));
    }
    const clock = vi.spyOn(Date, 'now');
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const at = Date.UTC(2026, 10, 27, 15, 59, 59, 990);
      const directLog = createRequestLog(direct.logger, { mode: 'all', sample: 1 });
      const pinoLog = createRequestLog(viaPino.logger, { mode: 'all', sample: 1 });
      durations.forEach((seconds, i) => {
        clock.mockReturnValue(at + i); // a new millisecond each line, across a second, minute and hour
        directLog.onResponse?.(request(i % 2 === 0), 200, seconds);
        pinoLog.onResponse?.(request(i % 2 === 0), 200, seconds);
      });
      vi.advanceTimersByTime(20);
    } finally {
      vi.useRealTimers();
      clock.mockRestore();
    }
    const directLines = direct.texts.join('').trimEnd().split('\n');
    const pinoLines = viaPino.texts.join('').trimEnd().split('\n');
    expect(directLines).toHaveLength(durations.length);
    expect(pinoLines).toHaveLength(durations.length);
    expect(pinoLines.every((line) => line.includes(',"mixed":true'))).toBe(true); // the control: those lines went through pino
    for (let i = 0; i < durations.length; i++) expect(directLines[i]).toBe(pinoLines[i]?.replace(',"mixed":true', ''));
    expect(directLines[0]).toContain('"durationMs":0,');
    expect(directLines[5]).toContain('"durationMs":0.01,');
    expect(directLines[9]).toContain('"durationMs":1.23,');
    expect(directLines[10]).toContain('"time":"2026-11-27T16:00:00.000Z"');
  });

  /** Reads what is in a non-blocking descriptor now (EAGAIN ends it). */
  function drain(fd: number): string {
    const chunk = Buffer.alloc(64 * 1024);
    let text = '';
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return text;
        throw error;
      }
      if (n === 0) return text;
      text += chunk.toString('utf8', 0, n);
    }
  }
  async function until(condition: () => boolean): Promise<void> {
    for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it('on a descriptor are written asynchronously as pino writes them, escaped only where needed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'access-log-'));
    const file = path.join(dir, 'log');
    const fd = fs.openSync(file, 'w');
    try {
      const mixed = capturingLogger({ mixin: true });
      const logger = pino({ level: 'info', base: { service: 'tessera' }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }, pino.destination({ fd, sync: true }));
      const log = createRequestLog(logger, { mode: 'all', sample: 1 });
      const viaPino = createRequestLog(mixed.logger, { mode: 'all', sample: 1 });
      const odd = { ...request(true), requestId: 'ïd\n\u0001"€😀' } as ObservedRequest;
      for (const r of [request(true), odd, request(false)]) {
        log.onResponse?.(r, 200, 0.001);
        viaPino.onResponse?.(r, 200, 0.001);
      }
      expect(fs.readFileSync(file, 'utf8')).toBe(''); // nothing written within the turn
      await until(() => fs.readFileSync(file, 'utf8').split('\n').length === 4);
      const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toHaveLength(3);
      for (let i = 0; i < 3; i++) {
        const { time, ...a } = lines[i] as Record<string, unknown>;
        const { time: _t, mixed: m, ...b } = mixed.lines[i] as Record<string, unknown>;
        expect(m).toBe(true);
        expect(a).toEqual(b);
        expect(Object.keys(a)).toEqual(Object.keys(b));
        expect(Number.isNaN(Date.parse(String(time)))).toBe(false);
      }
      expect(lines[1]?.requestId).toBe('ïd\n\u0001"€😀');
      expect(log.droppedLines?.()).toBe(0);
    } finally {
      fs.closeSync(fd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('wait in a bounded buffer while the reader is slow: the excess is dropped and counted, the rest arrives once it reads', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'access-log-'));
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    // Read-write and non-blocking: the pipe exists without a reader, and a full pipe answers EAGAIN.
    const writeFd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    const readFd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const logger = pino({ level: 'info', base: { service: 'tessera' }, formatters: { level: (label) => ({ level: label }) } }, pino.destination({ fd: writeFd, sync: true }));
      const log = createRequestLog(logger, { mode: 'all', sample: 1 });
      // Positive control: with a reader keeping up, nothing is dropped.
      for (let i = 0; i < 10; i++) log.onResponse?.(request(false), 200, 0.001);
      let received = '';
      await until(() => ((received += drain(readFd)), received.split('\n').length === 11));
      expect(received.trimEnd().split('\n')).toHaveLength(10);
      expect(log.droppedLines?.()).toBe(0);
      // Nobody reads now: the pipe fills, then the buffers; 20,000 lines (~4 MB) cannot all wait.
      const total = 20_000;
      for (let i = 0; i < total; i++) log.onResponse?.({ ...request(false), requestId: `r-${i}` } as ObservedRequest, 200, 0.001);
      const dropped = log.droppedLines?.() ?? 0;
      expect(dropped).toBeGreaterThan(total / 2);
      expect(dropped).toBeLessThan(total);
      // The reader comes back: every line that was not dropped arrives, whole and in order.
      received = '';
      await until(() => ((received += drain(readFd)), received.split('\n').length - 1 >= total - dropped));
      const lines = received.trimEnd().split('\n').map((line) => JSON.parse(line) as { requestId: string });
      expect(lines).toHaveLength(total - dropped);
      expect(lines[0]?.requestId).toBe('r-0');
      const ids = lines.map((line) => Number(line.requestId.slice(2)));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(log.droppedLines?.()).toBe(dropped);
    } finally {
      fs.closeSync(writeFd);
      fs.closeSync(readFd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
