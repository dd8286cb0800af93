/**
 * Per-instance execution plans: the effective executions of an instance and the targets they
 * name (signing keys opened once). Held by the instance's state (actors/instance/read-state.ts,
 * `hold`): an instance without executions costs one Map lookup per RPC; the plan is dropped when
 * the execution set or one of its targets moves past the version it was read at — by this
 * node's own append, the worker feed or the PostgreSQL change feed, the instance state's one
 * invalidation — and is then read again at once, so the event dispatcher learns of new event
 * executions. An idle instance passivates with its plan.
 */
import {
  type ActorSystem,
  type AggregateRecord,
  type ChangedStream,
  type ExecutionEntry,
  executionSetKind,
  type Held,
  isEffective,
  type Logger,
  streamAt,
  type Target,
  targetKind,
} from '../../actors/index.js';
import type { ResolvedTarget } from './target-call.js';

export interface InstancePlan {
  readonly instanceId: string;
  /** Effective executions (at least one target or include) by id. */
  readonly entries: ReadonlyMap<string, ExecutionEntry>;
  readonly targets: ReadonlyMap<string, ResolvedTarget>;
  /** Expanded target lists of request/response conditions by `<type><fullMethod>`. */
  readonly memo: Map<string, readonly ResolvedTarget[]>;
  readonly hasEvents: boolean;
}

/** What plans are read with and held by (the ActorSystem). */
export type PlanReads = Pick<ActorSystem, 'readRecord' | 'sealer' | 'instanceState'>;

export interface PlanCacheOptions {
  readonly actors: PlanReads;
  readonly logger: Logger;
}

const PLAN = 'execution plan';
const PLAN_TYPES = [executionSetKind.type, targetKind.type];

export class PlanCache {
  private readonly listeners: ((plan: InstancePlan) => void)[] = [];
  private readonly load = async (instanceId: string): Promise<Held<InstancePlan>> => {
    const held = await readPlan(this.options.actors, instanceId);
    for (const listener of this.listeners) listener(held.value);
    return held;
  };
  /** A change dropped the plan: read it again now (listeners such as the dispatcher hear of it). */
  private readonly reload = (instanceId: string): void => {
    const plan = this.get(instanceId);
    if (plan instanceof Promise) plan.catch((err: unknown) => this.options.logger.warn({ err, instanceId }, 'execution plan reload failed'));
  };

  constructor(private readonly options: PlanCacheOptions) {}

  /** The plan of an instance: held by its state once read. */
  get(instanceId: string): InstancePlan | Promise<InstancePlan> {
    return this.options.actors.instanceState(instanceId).hold(PLAN, PLAN_TYPES, this.load, this.reload);
  }

  /** Reads an instance's plan for the listeners without holding it (the dispatcher's rescan must not keep idle instances in memory). */
  async scan(instanceId: string): Promise<void> {
    const { value } = await readPlan(this.options.actors, instanceId);
    for (const listener of this.listeners) listener(value);
  }

  /** Called with every plan read (the event dispatcher starts workers from it). */
  onLoad(listener: (plan: InstancePlan) => void): void {
    this.listeners.push(listener);
  }
}

/** The plan and the streams it was read from: the execution set and every target it names (0: no row). */
async function readPlan(actors: PlanReads, instanceId: string): Promise<Held<InstancePlan>> {
  const set = await actors.readRecord(instanceId, executionSetKind, instanceId);
  const streams: ChangedStream[] = [streamAt(executionSetKind.type, instanceId, set)];
  const entries = new Map(Object.entries(set?.state.entries ?? {}).filter(([, entry]) => isEffective(entry)));
  const targets = new Map<string, ResolvedTarget>();
  for (const id of new Set([...entries.values()].flatMap((e) => e.targets))) {
    const record = await actors.readRecord(instanceId, targetKind, id);
    streams.push(streamAt(targetKind.type, id, record));
    if (record !== undefined) targets.set(id, resolveTarget(record, (sealed) => actors.sealer.open(sealed)));
  }
  const hasEvents = [...entries.values()].some((e) => e.condition.type === 'event');
  return { value: { instanceId, entries, targets, memo: new Map(), hasEvents }, streams };
}

function resolveTarget(record: AggregateRecord<Target>, open: (sealed: string) => string): ResolvedTarget {
  const t = record.state;
  return {
    id: record.id,
    targetType: t.targetType,
    url: t.url,
    timeoutMs: t.timeoutNanos / 1e6,
    executionType: t.executionType,
    signingKey: open(t.signingKey),
    previousSigningKey: t.previousSigningKey === '' ? '' : open(t.previousSigningKey),
    previousKeyExpiresAt: t.previousKeyExpiresAt,
  };
}
