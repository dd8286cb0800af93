/**
 * The benchmark report: its JSON shape (every run is kept) and the markdown table printed at
 * the end, where every figure stands beside the plain uWS hello server measured in the same
 * run with the same tool.
 */
import { availableParallelism, cpus, release } from 'node:os';
import { medianRun, type RunMeasurement } from './measure.js';
import type { SigningAlgorithm, SigningRate } from './signing-rate.js';
import { renderStudies, type Studies } from './studies.js';

export const LIMIT_SCENARIO = 'hello-uws';
const CONTENDED_MARK = '†';

export interface MachineFacts {
  readonly node: string;
  readonly cpuModel: string;
  /** CPUs this process could use at start (before pinning). */
  readonly nproc: number;
  readonly kernel: string;
  readonly loadAverage1m: number;
  readonly clockTicksPerSecond: number;
}

export interface Pinning {
  readonly pinned: boolean;
  /** Why not pinned, or where: "servers on CPU 1, load generator on CPU 0". */
  readonly detail: string;
  readonly serverCpu: number | undefined;
  readonly clientCpu: number | undefined;
}

export interface ToolResult {
  readonly tool: 'autocannon' | 'wrk';
  readonly runs: readonly RunMeasurement[];
  readonly median: RunMeasurement | undefined;
}

/** What a scenario is compared with besides hello-uws: the raw signing rate of its algorithm, or hello-uws per CPU-s. */
export type ScenarioLimit = { readonly kind: 'signing'; readonly algorithm: SigningAlgorithm } | { readonly kind: 'hello-uws' };

/** The ceiling scenario of the same request and issue 13's target share of it per server CPU-s, where the target is the ceiling. */
export interface ScenarioCeiling {
  readonly scenario: string;
  readonly target?: number;
}

/** The raw signing rate measured in this run (one thread, on the server's core when pinned). */
export interface SigningRateResult {
  readonly algorithm: SigningAlgorithm;
  readonly runs: readonly SigningRate[];
  /** Median signatures per (wall-clock) second. */
  readonly median: number;
  /** Median signatures per CPU-second of the signer (the limit for req / server CPU-s). */
  readonly medianPerCpuSecond: number;
}

export interface ScenarioResult {
  readonly name: string;
  readonly description: string;
  readonly server: string;
  readonly method: string;
  readonly path: string;
  readonly expectedStatus: number;
  /** BENCH_WORKERS: TESSERA_WORKERS of the node this result was measured on. */
  readonly workers?: number;
  readonly limit?: ScenarioLimit;
  readonly ceiling?: ScenarioCeiling;
  readonly results: readonly ToolResult[];
  /** Why wrk did not run for this scenario, when it was wanted. */
  readonly wrkSkipped?: string;
  /** The scenario failed (preflight or a run); results hold what was measured before. */
  readonly error?: string;
  /**
   * Scenarios on the PostgreSQL node: CPU-s of its PostgreSQL backends per autocannon run
   * (same order as the autocannon runs; null when /proc could not tell).
   */
  readonly postgresCpuS?: readonly (number | null)[];
}

export interface BenchReport {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly command: string;
  readonly settings: {
    readonly warmupS: number;
    readonly durationS: number;
    readonly runs: number;
    readonly connections: number;
    readonly pipelining: number;
    readonly organizationsSeeded: number;
  };
  readonly machine: MachineFacts;
  readonly pinning: Pinning;
  /** `wrk -v` first line, or "wrk not installed". */
  readonly wrk: string;
  readonly tessera: {
    readonly httpAdapter: string;
    readonly seedSeconds: number;
  };
  /** The PostgreSQL node's schema (dropped afterwards), or why its scenarios were skipped. */
  readonly postgres?: { readonly schema: string; readonly seedSeconds: number } | { readonly skipped: string };
  /** Raw signing rates of this machine measured in the same run (empty when no token scenario ran). */
  readonly signingRates: readonly SigningRateResult[];
  /**
   * BENCH_WORKERS: what two busy threads get on this machine at all — one raw ES256 signer alone,
   * then two at once (separate processes, unpinned, servers idle): the limit of a worker ratio.
   */
  readonly machineScaling?: { readonly alone: SigningRate; readonly pair: readonly SigningRate[] };
  readonly scenarios: readonly ScenarioResult[];
  /** Memory, tenant fairness and cold instances (bench/studies.ts); absent members did not run. */
  readonly studies?: Studies;
}

export function machineFacts(clockTicksPerSecond: number, loadAverage1m: number): MachineFacts {
  return {
    node: process.version,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    nproc: availableParallelism(),
    kernel: release(),
    loadAverage1m,
    clockTicksPerSecond,
  };
}

export function toolResult(tool: 'autocannon' | 'wrk', runs: readonly RunMeasurement[]): ToolResult {
  return { tool, runs, median: medianRun(runs) };
}

/** Markdown: machine facts, then one row per scenario and tool. */
export function renderMarkdown(report: BenchReport): string {
  const { settings, machine, pinning } = report;
  const limits = new Map<string, RunMeasurement>();
  const limitScenario = report.scenarios.find((s) => s.name === LIMIT_SCENARIO);
  for (const result of limitScenario?.results ?? []) if (result.median !== undefined) limits.set(result.tool, result.median);

  const lines = [
    `- Date: ${report.startedAt} · command: \`${report.command}\``,
    `- Machine: ${machine.cpuModel}, nproc ${machine.nproc}, Node ${machine.node}, Linux ${machine.kernel}, load average at start ${machine.loadAverage1m.toFixed(2)}`,
    `- Pinning: ${pinning.pinned ? 'pinned' : 'unpinned'} (${pinning.detail})`,
    `- Load: ${settings.connections} connections, pipelining ${settings.pipelining}, warm-up ${settings.warmupS} s, ${settings.runs} run(s) of ${settings.durationS} s, median run shown; ${settings.organizationsSeeded} organizations seeded`,
    `- Tessera HTTP adapter: ${report.tessera.httpAdapter} · wrk: ${report.wrk}`,
  ];
  if (report.scenarios.length > 0) {
    lines.push(
      '',
      '| scenario | tool | req/s (median) | req/s per run | p50 ms | p99 ms | non-2xx | server CPU-s (core) | req / server CPU-s | client CPU | × hello-uws req/s | × hello-uws per CPU-s |',
      '|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
  }
  let contended = 0;
  let runs = 0;
  for (const scenario of report.scenarios) {
    if (scenario.results.length === 0 || scenario.results.every((r) => r.median === undefined)) {
      lines.push(`| ${label(scenario)} | — | failed: ${escapeCell(scenario.error ?? 'no runs')} | | | | | | | | | |`);
      continue;
    }
    for (const result of scenario.results) {
      const median = result.median;
      if (median === undefined) continue;
      const limit = limits.get(result.tool);
      const nonOk = result.runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0);
      runs += result.runs.length;
      contended += result.runs.filter((run) => run.contended).length;
      const rate = (run: RunMeasurement): string => `${formatInt(run.reqPerSec)}${run.contended ? CONTENDED_MARK : ''}`;
      lines.push(
        `| ${label(scenario)}${scenario.error === undefined ? '' : ' (failed)'} | ${result.tool} | ${rate(median)} | ${result.runs.map(rate).join(' · ')} | ${formatMs(median.p50Ms)} | ${formatMs(median.p99Ms)} | ${formatInt(nonOk)} | ${median.serverCpuS.toFixed(2)} (${Math.round(median.serverCpuShare * 100)} %) | ${formatInt(median.reqPerServerCpuS)} | ${median.clientCpuShare === undefined ? '—' : `${Math.round(median.clientCpuShare * 100)} %`} | ${ratio(median.reqPerSec, limit?.reqPerSec)} | ${ratio(median.reqPerServerCpuS, limit?.reqPerServerCpuS)} |`,
      );
    }
  }
  if (contended > 0) {
    lines.push(
      '',
      `${CONTENDED_MARK} contended (${contended} of ${runs} runs): other processes used more than a quarter of ${report.pinning.pinned ? "the server's core, or of the load generator's core while the server was below 90 % of its core" : 'a core while the server was below 90 % of a core'}. Their req/s and the req/s ratios are noise; req / server CPU-s is much less affected.`,
    );
  }
  lines.push(...renderLimits(report, limits));
  lines.push(...renderCeiling(report));
  lines.push(...renderWorkers(report));
  if (report.studies !== undefined) lines.push(...renderStudies(report.studies));
  lines.push(...renderPostgres(report));
  for (const scenario of report.scenarios) {
    if (scenario.error !== undefined) lines.push('', `- ${scenario.name} failed: ${scenario.error}`);
    if (scenario.wrkSkipped !== undefined) lines.push('', `- ${scenario.name}: wrk skipped (${scenario.wrkSkipped})`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Token scenarios beside their own limit: a JWT scenario beside the raw signing rate of its
 * algorithm (per second and per CPU-second of the signing thread), the opaque one
 * beside hello-uws per server CPU-second (autocannon rows).
 */
function renderLimits(report: BenchReport, helloByTool: ReadonlyMap<string, RunMeasurement>): string[] {
  const limited = report.scenarios.filter((s) => s.limit !== undefined && s.results.some((r) => r.median !== undefined));
  if (limited.length === 0 && report.signingRates.length === 0) return [];
  const lines = ['', 'Raw signing rate (node:crypto sync, one thread, whole compact JWS' + (report.pinning.pinned ? ", on the server's core" : ', unpinned') + `, ${report.settings.runs} × ${report.settings.durationS} s, median):`];
  for (const rate of report.signingRates) {
    lines.push(
      `- ${rate.algorithm}: ${formatInt(rate.median)} /s (runs ${rate.runs.map((r) => formatInt(r.perSecond)).join(' · ')}); ${formatInt(rate.medianPerCpuSecond)} per CPU-s (runs ${rate.runs.map((r) => formatInt(r.perCpuSecond)).join(' · ')})`,
    );
  }
  if (limited.length === 0) return lines;
  lines.push(
    '',
    '| scenario | tool | limit | limit rate | req/s (median) | × limit req/s | req / server CPU-s | × limit per CPU-s |',
    '|---|---|---|---:|---:|---:|---:|---:|',
  );
  for (const scenario of limited) {
    const limit = scenario.limit;
    if (limit === undefined) continue;
    for (const result of scenario.results) {
      const median = result.median;
      if (median === undefined) continue;
      let name: string;
      let rate: number | undefined;
      let perCpu: number | undefined;
      if (limit.kind === 'signing') {
        name = `raw ${limit.algorithm} signing`;
        const signing = report.signingRates.find((r) => r.algorithm === limit.algorithm);
        rate = signing?.median;
        perCpu = signing?.medianPerCpuSecond;
      } else {
        name = `hello-uws (${result.tool})`;
        rate = helloByTool.get(result.tool)?.reqPerSec;
        perCpu = helloByTool.get(result.tool)?.reqPerServerCpuS;
      }
      const shown =
        limit.kind === 'signing'
          ? rate === undefined || perCpu === undefined
            ? '—'
            : `${formatInt(rate)} /s · ${formatInt(perCpu)} /CPU-s`
          : perCpu === undefined
            ? '—'
            : `${formatInt(perCpu)} /CPU-s`;
      lines.push(
        `| ${scenario.name} | ${result.tool} | ${name} | ${shown} | ${formatInt(median.reqPerSec)}${median.contended ? CONTENDED_MARK : ''} | ${ratio(median.reqPerSec, rate)} | ${formatInt(median.reqPerServerCpuS)} | ${ratio(median.reqPerServerCpuS, perCpu)} |`,
      );
    }
  }
  return lines;
}

/**
 * Tessera's token scenarios beside the ceiling server of the same run (autocannon medians): the
 * ratio of requests per server CPU-second, and the target of issue 13.
 */
function renderCeiling(report: BenchReport): string[] {
  const rows = report.scenarios.filter((s) => s.ceiling !== undefined);
  const lines: string[] = [];
  for (const scenario of rows) {
    const ceiling = scenario.ceiling;
    if (ceiling === undefined) continue;
    const own = scenario.results.find((r) => r.tool === 'autocannon')?.median;
    const limit = report.scenarios.find((s) => s.name === ceiling.scenario)?.results.find((r) => r.tool === 'autocannon')?.median;
    if (own === undefined || limit === undefined) continue;
    const share = limit.reqPerServerCpuS > 0 ? own.reqPerServerCpuS / limit.reqPerServerCpuS : 0;
    lines.push(
      `| ${scenario.name} | ${ceiling.scenario} | ${formatInt(limit.reqPerServerCpuS)} | ${formatInt(own.reqPerServerCpuS)} | ${share.toFixed(2)}× | ${ceiling.target === undefined ? '—' : `≥ ${ceiling.target.toFixed(1)}× ${share >= ceiling.target ? 'met' : 'not met'}`} | ${formatInt(limit.reqPerSec)}${limit.contended ? CONTENDED_MARK : ''} | ${formatInt(own.reqPerSec)}${own.contended ? CONTENDED_MARK : ''} |`,
    );
  }
  if (lines.length === 0) return [];
  return [
    '',
    'Tessera beside the ceiling (bench/ceiling-server.ts, same run, autocannon median runs; ratio of req / server CPU-s):',
    '',
    '| scenario | ceiling | ceiling req / CPU-s | Tessera req / CPU-s | × ceiling per CPU-s | target | ceiling req/s | Tessera req/s |',
    '|---|---|---:|---:|---:|---|---:|---:|',
    ...lines,
  ];
}

/** A scenario's name, with the node's worker count when BENCH_WORKERS compared several. */
function label(scenario: ScenarioResult): string {
  return scenario.workers === undefined ? scenario.name : `${scenario.name} (${scenario.workers} worker${scenario.workers === 1 ? '' : 's'})`;
}

/**
 * BENCH_WORKERS: each scenario and tool per worker count (median runs of the same run), with the
 * ratio to the first count's req/s and req / server CPU-s. Server and load generator share the
 * machine's cores (unpinned), so the load generator's CPU stands beside the server's.
 */
function renderWorkers(report: BenchReport): string[] {
  const compared = report.scenarios.filter((s) => s.workers !== undefined);
  const names = [...new Set(compared.map((s) => s.name))];
  const lines: string[] = [];
  for (const name of names) {
    const byWorkers = compared.filter((s) => s.name === name);
    for (const tool of ['autocannon', 'wrk'] as const) {
      const rows = byWorkers.flatMap((s) => {
        const median = s.results.find((r) => r.tool === tool)?.median;
        return median === undefined ? [] : [{ workers: s.workers ?? 0, median }];
      });
      const first = rows[0]?.median;
      if (first === undefined || rows.length < 2) continue;
      for (const { workers, median } of rows) {
        lines.push(
          `| ${name} | ${tool} | ${workers} | ${formatInt(median.reqPerSec)}${median.contended ? CONTENDED_MARK : ''} | ${median.serverCpuShare.toFixed(2)} | ${formatInt(median.reqPerServerCpuS)} | ${median.clientCpuShare === undefined ? '—' : median.clientCpuShare.toFixed(2)} | ${ratio(median.reqPerSec, first.reqPerSec)} | ${ratio(median.reqPerServerCpuS, first.reqPerServerCpuS)} |`,
        );
      }
    }
  }
  if (lines.length === 0) return [];
  const scaling = report.machineScaling;
  const limit =
    scaling === undefined
      ? []
      : [
          '',
          `The machine's limit for such a ratio: one raw ES256 signer alone ${formatInt(scaling.alone.perSecond)} /s (${formatInt(scaling.alone.perCpuSecond)} per CPU-s); two at once ${scaling.pair.map((r) => formatInt(r.perSecond)).join(' + ')} /s (${scaling.pair.map((r) => formatInt(r.perCpuSecond)).join(' and ')} per CPU-s) → ${ratio(sum(scaling.pair.map((r) => r.perSecond)), scaling.alone.perSecond)} the signatures per second, ${ratio(sum(scaling.pair.map((r) => r.perCpuSecond)) / Math.max(1, scaling.pair.length), scaling.alone.perCpuSecond)} the signatures per CPU-second (below 1.00×: two busy threads slow each other, e.g. vCPUs on one physical core).`,
        ];
  return [
    '',
    'Worker counts (BENCH_WORKERS, one node per count, unpinned, median runs of this run; × first: against the first count):',
    '',
    '| scenario | tool | workers | req/s | server CPU (cores) | req / server CPU-s | load generator CPU (cores) | × first req/s | × first per CPU-s |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...lines,
    ...limit,
  ];
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/**
 * Each `-pg` scenario beside its LMDB twin (autocannon medians of the same run): the Tessera
 * process's CPU as everywhere, plus the CPU of the node's PostgreSQL backends, so the cost
 * per request is shown with and without the database's share.
 */
function renderPostgres(report: BenchReport): string[] {
  if (report.postgres !== undefined && 'skipped' in report.postgres) return ['', `PostgreSQL scenarios skipped: ${report.postgres.skipped}.`];
  const pairs = report.scenarios.filter((s) => s.postgresCpuS !== undefined);
  if (pairs.length === 0) return [];
  const lines = [
    '',
    'Same scenarios with the PostgreSQL store (autocannon, median run; PostgreSQL CPU = the node\'s backends, not its background processes):',
    '',
    '| scenario | store | req/s | p50 ms | Tessera CPU-s (core) | req / Tessera CPU-s | PostgreSQL CPU-s | req / (Tessera + PostgreSQL) CPU-s | × LMDB req/s | × LMDB per total CPU-s |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const pg of pairs) {
    const twin = report.scenarios.find((s) => s.name === pg.name.replace(/-pg$/, ''));
    const lmdb = twin?.results.find((r) => r.tool === 'autocannon');
    const onPg = pg.results.find((r) => r.tool === 'autocannon');
    const lmdbMedian = lmdb?.median;
    const pgMedian = onPg?.median;
    const lmdbTotal = lmdbMedian?.reqPerServerCpuS;
    if (lmdbMedian !== undefined && twin !== undefined) {
      lines.push(
        `| ${twin.name} | LMDB | ${formatInt(lmdbMedian.reqPerSec)}${lmdbMedian.contended ? CONTENDED_MARK : ''} | ${formatMs(lmdbMedian.p50Ms)} | ${lmdbMedian.serverCpuS.toFixed(2)} (${Math.round(lmdbMedian.serverCpuShare * 100)} %) | ${formatInt(lmdbMedian.reqPerServerCpuS)} | — | ${formatInt(lmdbMedian.reqPerServerCpuS)} | 1.00× | 1.00× |`,
      );
    }
    if (pgMedian === undefined || onPg === undefined) {
      lines.push(`| ${pg.name} | PostgreSQL | failed: ${escapeCell(pg.error ?? 'no runs')} | | | | | | | |`);
      continue;
    }
    const pgCpu = pg.postgresCpuS?.[onPg.runs.indexOf(pgMedian)] ?? null;
    const perTotal = pgCpu === null ? undefined : pgMedian.responses / (pgMedian.serverCpuS + pgCpu);
    lines.push(
      `| ${pg.name} | PostgreSQL | ${formatInt(pgMedian.reqPerSec)}${pgMedian.contended ? CONTENDED_MARK : ''} | ${formatMs(pgMedian.p50Ms)} | ${pgMedian.serverCpuS.toFixed(2)} (${Math.round(pgMedian.serverCpuShare * 100)} %) | ${formatInt(pgMedian.reqPerServerCpuS)} | ${pgCpu === null ? '—' : pgCpu.toFixed(2)} | ${perTotal === undefined ? '—' : formatInt(perTotal)} | ${ratio(pgMedian.reqPerSec, lmdbMedian?.reqPerSec)} | ${perTotal === undefined ? '—' : ratio(perTotal, lmdbTotal)} |`,
    );
  }
  return lines;
}

function ratio(value: number, limit: number | undefined): string {
  if (limit === undefined || limit <= 0) return '—';
  return `${(value / limit).toFixed(2)}×`;
}

function formatInt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function formatMs(value: number): string {
  return value >= 10 ? value.toFixed(0) : value.toFixed(value >= 1 ? 1 : 2);
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
