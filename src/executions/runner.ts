/**
 * Runs targets for synchronous conditions (request, response, function) with the execution
 * type rules of reference facts §3.1: `is_async` is fired and forgotten, `interrupt_on_error`
 * lets the error fail the call, otherwise an error is logged and the call goes on.
 */
import type { Clock, Logger } from '../../actors/index.js';
import { callTarget, type ResolvedTarget } from './target-call.js';
import { PUBLIC_ONLY, type OutboundPolicy } from '../http/outbound-policy.js';

export type RunResult = { readonly ok: true; readonly answer: unknown } | { readonly ok: false };

export interface RunContext {
  readonly instanceId: string;
  /** What triggered the call, for logs: an execution id or a full method. */
  readonly trigger: string;
}

export class TargetRunner {
  /** Aborted on stop, so fire-and-forget calls do not outlive the node. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly network: OutboundPolicy = PUBLIC_ONLY,
  ) {}

  async run(target: ResolvedTarget, body: string, context: RunContext): Promise<RunResult> {
    const options = { now: this.clock.now(), signal: this.stopping.signal, network: this.network };
    if (target.executionType === 'async') {
      callTarget(target, body, options).catch((err: unknown) => this.logFailure(err, target, context));
      return { ok: false };
    }
    try {
      return { ok: true, answer: await callTarget(target, body, options) };
    } catch (err) {
      if (target.executionType === 'interrupt') throw err;
      this.logFailure(err, target, context);
      return { ok: false };
    }
  }

  stop(): void {
    this.stopping.abort();
  }

  logFailure(err: unknown, target: ResolvedTarget, context: RunContext): void {
    this.logger.warn({ err, targetId: target.id, instanceId: context.instanceId, trigger: context.trigger }, 'execution target failed; continuing');
  }
}
