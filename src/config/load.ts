/**
 * Loads the configuration once: defaults, then the optional file (TESSERA_CONFIG, YAML or
 * JSON), then TESSERA_* environment variables. Every problem is reported together, naming the
 * key and its variable; the result is frozen. Only this module reads process.env.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CONFIG_KEYS, configSchema, type Config, type ConfigKey } from './schema.js';

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Values that win over everything (CLI flags, tests). */
  readonly overrides?: Partial<Record<ConfigKey, unknown>>;
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  const input: Record<string, unknown> = { ...readConfigFile(env.TESSERA_CONFIG) };
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
    const value = env[spec.env];
    if (value !== undefined && value !== '') input[key] = value;
  }
  Object.assign(input, options.overrides);
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.flatMap(describeIssue));
  return Object.freeze(parsed.data);
}

function describeIssue(issue: { path: PropertyKey[]; message: string; code: string; keys?: string[] }): string[] {
  if (issue.code === 'unrecognized_keys') return (issue.keys ?? []).map((k) => `${k}: unknown configuration key`);
  return [describeKeyIssue(issue)];
}

function describeKeyIssue(issue: { path: PropertyKey[]; message: string }): string {
  const key = String(issue.path[0] ?? '');
  const spec = (CONFIG_KEYS as Record<string, { env: string } | undefined>)[key];
  if (spec === undefined) return key === '' ? issue.message : `${key}: unknown configuration key`;
  return `${key} (${spec.env}): ${issue.message}`;
}

/**
 * The YAML parser, loaded only when a YAML file is read (~70 modules a node without one never
 * needs: idle memory, #13). Synchronous, as loading the configuration is: `yaml` ships CommonJS.
 */
function parseYaml(text: string): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text);
}

function readConfigFile(path: string | undefined): Record<string, unknown> {
  if (path === undefined || path === '') return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`TESSERA_CONFIG: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`]);
  }
  let value: unknown;
  try {
    value = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch {
    throw new ConfigError([`TESSERA_CONFIG: ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}`]);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError([`TESSERA_CONFIG: ${path} must hold a mapping of keys`]);
  return value as Record<string, unknown>;
}

/** The URL clients use to reach an instance domain: scheme + host (+ port unless default). */
export function externalUrl(config: Config, domain: string, scheme: 'http' | 'https'): string {
  const port = config.externalPort ?? config.port;
  const isDefault = (scheme === 'http' && port === 80) || (scheme === 'https' && port === 443);
  return `${scheme}://${domain}${isDefault ? '' : `:${port}`}`;
}
