/**
 * Rate-limit counts shared by the worker threads of one node whose counts live in memory (LMDB):
 * the main thread keeps them (one rate-limiter-flexible memory limiter per limit, scope and rate,
 * as one thread would) and each worker's counter asks it, one message each way per counted
 * event. Without this each worker would count alone, and a client whose connections land on N
 * workers could make N × its limit. PostgreSQL counters need none of it (shared by every worker
 * and node already).
 */
import type { MessagePort } from 'node:worker_threads';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { CounterFactory } from '../http/rate-limits.js';
import { memoryCounters } from '../http/rate-limits.js';

export interface ConsumeRequest {
  readonly type: 'rate-consume';
  readonly id: number;
  readonly limit: string;
  readonly scope: string;
  readonly points: number;
  readonly windowMs: number;
  readonly key: string;
}

export interface ConsumeResult {
  readonly type: 'rate-result';
  readonly id: number;
  /** true: counted under the limit; false: past it; undefined: the count failed (`error`). */
  readonly ok?: boolean;
  readonly res?: { readonly remainingPoints: number; readonly msBeforeNext: number; readonly consumedPoints: number; readonly isFirstInDuration: boolean };
  readonly error?: string;
}

/** A worker's counters: each consume is counted by the main thread. `answer` takes the main thread's rate-result messages. */
export function workerCounters(port: MessagePort): { readonly counters: CounterFactory; answer(message: ConsumeResult): void } {
  let nextId = 0;
  const pending = new Map<number, { resolve(res: RateLimiterRes): void; reject(reason: unknown): void }>();
  return {
    counters: (limit, rate, scope) => ({
      consume: (key) =>
        new Promise<RateLimiterRes>((resolve, reject) => {
          const id = nextId++;
          pending.set(id, { resolve, reject });
          port.postMessage({ type: 'rate-consume', id, limit, scope, points: rate.points, windowMs: rate.windowMs, key } satisfies ConsumeRequest);
        }),
    }),
    answer(message) {
      const waiting = pending.get(message.id);
      if (waiting === undefined) return;
      pending.delete(message.id);
      const r = message.res;
      if (message.ok === undefined || r === undefined) return waiting.reject(new Error(message.error ?? 'rate-limit count failed'));
      const res = new RateLimiterRes(r.remainingPoints, r.msBeforeNext, r.consumedPoints, r.isFirstInDuration);
      if (message.ok) waiting.resolve(res);
      else waiting.reject(res);
    },
  };
}

/** The main thread's side: counts for every worker and answers on the worker's port. */
export function mainThreadCounting(): (request: ConsumeRequest, reply: (result: ConsumeResult) => void) => void {
  const limiters = new Map<string, RateLimiterMemory>();
  return (request, reply) => {
    const name = `${request.limit}\u0000${request.scope}\u0000${request.points}\u0000${request.windowMs}`;
    let limiter = limiters.get(name);
    if (limiter === undefined) {
      limiter = memoryCounters(request.limit as never, { points: request.points, windowMs: request.windowMs }, request.scope) as RateLimiterMemory;
      limiters.set(name, limiter);
    }
    const plain = (res: RateLimiterRes) => ({ remainingPoints: res.remainingPoints, msBeforeNext: res.msBeforeNext, consumedPoints: res.consumedPoints, isFirstInDuration: res.isFirstInDuration });
    limiter.consume(request.key).then(
      (res) => reply({ type: 'rate-result', id: request.id, ok: true, res: plain(res) }),
      (rejection: unknown) =>
        reply(rejection instanceof RateLimiterRes ? { type: 'rate-result', id: request.id, ok: false, res: plain(rejection) } : { type: 'rate-result', id: request.id, error: String(rejection) }),
    );
  };
}
