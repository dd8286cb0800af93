/**
 * What `/readyz` reports beyond "started": each dependency check (the database) with its state,
 * run at most once a second however often the endpoint is polled (concurrent polls share one
 * run), each within a deadline. A change of state is logged once, not per poll.
 */
export interface ReadinessCheck {
  readonly name: string;
  /** Resolves when the dependency answers within `timeoutMs`; rejects otherwise. */
  check(timeoutMs: number): Promise<void>;
}

export type CheckState = 'up' | { readonly status: 'down'; readonly reason: string };

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckState>>;
}

export interface ReadinessOptions {
  readonly checks: readonly ReadinessCheck[];
  readonly timeoutMs?: number;
  readonly now?: () => number;
  /** Called when a check goes down or comes back. */
  readonly onChange?: (name: string, state: CheckState, error?: unknown) => void;
}

const REUSE_MS = 1_000;
const DEFAULT_TIMEOUT_MS = 2_000;

export function createReadiness(options: ReadinessOptions): () => Promise<ReadinessReport> {
  const now = options.now ?? (() => performance.now());
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const last = new Map<string, CheckState>();
  let running: Promise<ReadinessReport> | undefined;
  let report: { at: number; value: ReadinessReport } | undefined;

  async function runAll(): Promise<ReadinessReport> {
    const states = await Promise.all(options.checks.map(async (c) => [c.name, await stateOf(c)] as const));
    return { ready: states.every(([, state]) => state === 'up'), checks: Object.fromEntries(states) };
  }

  async function stateOf(check: ReadinessCheck): Promise<CheckState> {
    let state: CheckState;
    let failure: unknown;
    try {
      await check.check(timeoutMs);
      state = 'up';
    } catch (error) {
      failure = error;
      state = { status: 'down', reason: reasonOf(error) };
    }
    const before = last.get(check.name);
    last.set(check.name, state);
    if ((before === undefined && state !== 'up') || (before !== undefined && (before === 'up') !== (state === 'up'))) options.onChange?.(check.name, state, failure);
    return state;
  }

  return () => {
    if (report !== undefined && now() - report.at < REUSE_MS) return Promise.resolve(report.value);
    running ??= runAll().then((value) => {
      report = { at: now(), value };
      running = undefined;
      return value;
    });
    return running;
  };
}

/** A stable code for the body (`store.unavailable`), never a message that could hold hosts or names. */
function reasonOf(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[a-z_.]+$/.test(code) ? code : 'check.failed';
}
