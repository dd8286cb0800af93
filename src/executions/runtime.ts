/**
 * The execution runtime of a node (design §8): request/response executions around every RPC
 * (the invoker calls `beforeHandle` / `afterHandle`), function executions for the OIDC code
 * (`runFunction`), and the event dispatcher. docs/executions.md describes the behaviour.
 */
import type { DescMethod, Message } from '@bufbuild/protobuf';
import { type ActorSystem, type Clock, executionSetKind, type Logger, type StoreAdapter } from '../../actors/index.js';
import type { CallContext } from '../api/call-context.js';
import type { CallInfo } from './call-hooks.js';
import { fullMethodName, type ExecutionCatalog, type ExecutionFunction } from './catalog.js';
import { lazyModule } from '../runtime/lazy-module.js';
import { EventDispatcher } from './event-dispatcher.js';
import { applyFunctionAnswer, mergeAnswers, type FunctionOutcome, type FunctionPayload } from './functions.js';
import { PlanCache, type InstancePlan } from './plans.js';
import { callTargets, functionTargets } from './resolve.js';
import { TargetRunner } from './runner.js';
import type { OutboundPolicy } from '../http/outbound-policy.js';

export interface ExecutionRuntimeOptions {
  readonly actors: ActorSystem;
  readonly store: StoreAdapter;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How often the plans of the instances with executions are read for the event dispatcher (starts workers an earlier failure stopped). */
  readonly rescanMs?: number;
  /** Which addresses targets may be called at (default: public only; TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS). */
  readonly network?: OutboundPolicy;
}

/** The hooks around RPC handlers. */
export interface ExecutionHooks {
  beforeHandle(call: CallContext, method: DescMethod, request: Message): Message | Promise<Message>;
  afterHandle(call: CallContext, method: DescMethod, request: Message, response: Message): Message | Promise<Message>;
}

/** What the API layer uses: the hooks around handlers, the condition lists (built with the API's services, src/api/api-transports.ts). */
export interface ExecutionServices extends ExecutionHooks {
  readonly catalog: ExecutionCatalog;
}

/** Request and response conditions: their payloads are proto3 JSON, so they load with the first call that has one (#13). */
const callHooks = lazyModule(() => import('./call-hooks.js'));

export class ExecutionRuntime implements ExecutionHooks {
  private readonly plans: PlanCache;
  private readonly runner: TargetRunner;
  private readonly dispatcher: EventDispatcher;
  private rescanTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ExecutionRuntimeOptions) {
    this.plans = new PlanCache({ actors: options.actors, logger: options.logger });
    this.runner = new TargetRunner(options.clock, options.logger, options.network);
    this.dispatcher = new EventDispatcher({ store: options.store, plans: this.plans, clock: options.clock, logger: options.logger, ...(options.network === undefined ? {} : { network: options.network }) });
  }

  /** Loads the plan of every instance with executions (starting event workers) and keeps revisiting them. */
  async start(): Promise<void> {
    await this.rescan();
    this.rescanTimer = setInterval(() => {
      this.rescan().catch((err: unknown) => this.options.logger.warn({ err }, 'execution rescan failed'));
    }, this.options.rescanMs ?? 10_000);
    this.rescanTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.rescanTimer);
    this.runner.stop();
    await this.dispatcher.stop();
  }

  /** Undelivered events (the `tessera_execution_event_lag` gauge). */
  eventLag(): number {
    return this.dispatcher.lag();
  }

  beforeHandle(call: CallContext, method: DescMethod, request: Message): Message | Promise<Message> {
    const plan = this.plans.get(call.instance.id);
    if (!(plan instanceof Promise) && plan.entries.size === 0) return request; // the hot path
    return this.runCall(plan, 'request', call, method, request);
  }

  afterHandle(call: CallContext, method: DescMethod, request: Message, response: Message): Message | Promise<Message> {
    const plan = this.plans.get(call.instance.id);
    if (!(plan instanceof Promise) && plan.entries.size === 0) return response;
    return this.runCall(plan, 'response', call, method, request, response);
  }

  /** Whether the instance has an execution for the function: a Map lookup once its plan is cached. */
  hasFunction(instanceId: string, name: ExecutionFunction): boolean | Promise<boolean> {
    const plan = this.plans.get(instanceId);
    if (plan instanceof Promise) return plan.then((loaded) => loaded.entries.has(`function/${name}`));
    return plan.entries.has(`function/${name}`);
  }

  /**
   * Runs the function's targets and applies their answers (reference facts §3.4) to the claims
   * in `payload.userinfo`. An `interrupt_on_error` target's failure rejects.
   */
  async runFunction(instanceId: string, name: ExecutionFunction, payload: FunctionPayload): Promise<FunctionOutcome> {
    const targets = functionTargets(await this.plans.get(instanceId), name);
    const body = JSON.stringify({ function: `function/${name}`, ...payload });
    const answers: unknown[] = [];
    for (const target of targets) {
      const result = await this.runner.run(target, body, { instanceId, trigger: `function/${name}` });
      if (result.ok && target.targetType === 'rest_request_response') answers.push(result.answer);
    }
    return applyFunctionAnswer(name, payload.userinfo ?? {}, mergeAnswers(answers));
  }

  private async runCall(
    pending: InstancePlan | Promise<InstancePlan>,
    type: 'request' | 'response',
    call: CallContext,
    method: DescMethod,
    request: Message,
    response?: Message,
  ): Promise<Message> {
    const plan = await pending;
    const service = method.parent.typeName;
    const targets = plan.entries.size === 0 ? [] : callTargets(plan, type, service, fullMethodName(service, method.name));
    if (targets.length === 0) return response ?? request;
    return (await callHooks()).runCallTargets({
      targets,
      runner: this.runner,
      info: callInfo(call, fullMethodName(service, method.name)),
      requestSchema: method.input,
      request,
      ...(response === undefined ? {} : { response: { schema: method.output, message: response } }),
    });
  }

  /** Reads the plan of every instance with an execution set (an instance without one has no event executions). */
  private async rescan(): Promise<void> {
    for await (const instanceId of this.options.store.instancesWithRows(executionSetKind.table)) await this.plans.scan(instanceId);
  }
}

function callInfo(call: CallContext, fullMethod: string): CallInfo {
  return {
    fullMethod,
    instanceId: call.instance.id,
    orgId: call.caller.orgId,
    userId: call.caller.userId,
    projectId: '',
    headers: call.meta.headers,
  };
}
