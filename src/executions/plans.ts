/**
 * Per-instance execution plans, cached in memory: the effective executions of an instance
 * and the targets they name (signing keys opened once). Hot path: an instance without
 * executions costs one Map lookup per RPC. Writes on this node invalidate at once; changes
 * made by another process sharing the store are picked up after `ttlMs` (revalidated in the
 * background, never on the caller's path).
 */
import {
  type ActorSystem,
  type AggregateRecord,
  type Clock,
  type ExecutionEntry,
  executionSetKind,
  isEffective,
  type Logger,
  type Target,
  targetKind,
} from '../../actors/index.js';
import type { ResolvedTarget } from './target-call.js';

export interface InstancePlan {
  readonly instanceId: string;
  readonly loadedAt: number;
  /** Effective executions (at least one target or include) by id. */
  readonly entries: ReadonlyMap<string, ExecutionEntry>;
  readonly targets: ReadonlyMap<string, ResolvedTarget>;
  /** Expanded target lists of request/response conditions by `<type><fullMethod>`. */
  readonly memo: Map<string, readonly ResolvedTarget[]>;
  readonly hasEvents: boolean;
}

export interface PlanCacheOptions {
  readonly actors: ActorSystem;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long a plan is trusted without re-reading (changes by other processes). */
  readonly ttlMs: number;
}

export class PlanCache {
  private readonly plans = new Map<string, InstancePlan>();
  private readonly loading = new Map<string, Promise<InstancePlan>>();
  private readonly listeners: ((plan: InstancePlan) => void)[] = [];
  /** Bumped by every invalidation, so a read that started before it is never cached. */
  private readonly generations = new Map<string, number>();

  constructor(private readonly options: PlanCacheOptions) {}

  /** The plan of an instance: from memory when present (refreshing a stale one in the background). */
  get(instanceId: string): InstancePlan | Promise<InstancePlan> {
    const plan = this.plans.get(instanceId);
    if (plan === undefined) return this.load(instanceId);
    if (this.options.clock.now() - plan.loadedAt > this.options.ttlMs && !this.loading.has(instanceId)) {
      this.load(instanceId).catch((err: unknown) => this.options.logger.warn({ err, instanceId }, 'execution plan refresh failed'));
    }
    return plan;
  }

  /** Drops the cached plan after a write (and reloads it for listeners such as the dispatcher). */
  invalidate(instanceId: string): void {
    this.generations.set(instanceId, (this.generations.get(instanceId) ?? 0) + 1);
    this.plans.delete(instanceId);
    this.loading.delete(instanceId);
    this.load(instanceId).catch((err: unknown) => this.options.logger.warn({ err, instanceId }, 'execution plan reload failed'));
  }

  /** Called with every plan loaded (the event dispatcher starts workers from it). */
  onLoad(listener: (plan: InstancePlan) => void): void {
    this.listeners.push(listener);
  }

  private load(instanceId: string): Promise<InstancePlan> {
    const pending = this.loading.get(instanceId);
    if (pending !== undefined) return pending;
    const generation = this.generations.get(instanceId) ?? 0;
    const work = readPlan(this.options, instanceId).then((plan) => {
      if (this.loading.get(instanceId) === work) this.loading.delete(instanceId);
      // An invalidation during the read wins: the newer read caches and notifies instead.
      if (generation !== (this.generations.get(instanceId) ?? 0)) return plan;
      this.plans.set(instanceId, plan);
      for (const listener of this.listeners) listener(plan);
      return plan;
    });
    this.loading.set(instanceId, work);
    work.catch(() => this.loading.delete(instanceId));
    return work;
  }
}

async function readPlan(options: PlanCacheOptions, instanceId: string): Promise<InstancePlan> {
  const { actors, clock } = options;
  const loadedAt = clock.now();
  const set = await actors.readRecord(instanceId, executionSetKind, instanceId);
  const entries = new Map(Object.entries(set?.state.entries ?? {}).filter(([, entry]) => isEffective(entry)));
  const targets = new Map<string, ResolvedTarget>();
  for (const id of new Set([...entries.values()].flatMap((e) => e.targets))) {
    const record = await actors.readRecord(instanceId, targetKind, id);
    if (record !== undefined) targets.set(id, resolveTarget(record, (sealed) => actors.sealer.open(sealed)));
  }
  const hasEvents = [...entries.values()].some((e) => e.condition.type === 'event');
  return { instanceId, loadedAt, entries, targets, memo: new Map(), hasEvents };
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
