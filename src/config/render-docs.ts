/** Renders the configuration reference (docs/configuration.md) from the schema table. */
import { formatRate, type Rate } from './duration.js';
import { CONFIG_KEYS, configSchema } from './schema.js';

export function renderConfigDocs(): string {
  const defaults = configSchema.parse({}) as Record<string, unknown>;
  const rows = Object.entries(CONFIG_KEYS).map(([key, spec]) => {
    const value = defaults[key];
    const shown = value === undefined ? '—' : `\`${showDefault(value)}\``;
    return `| \`${spec.env}\` | \`${key}\` | ${shown} | ${spec.description} |`;
  });
  return [
    '# Configuration reference',
    '',
    '<!-- Generated from src/config/schema.ts by `npm run docs:config`. Do not edit by hand. -->',
    '',
    'Tessera reads its configuration once at start: defaults, then an optional file named by',
    '`TESSERA_CONFIG` (YAML, or JSON when the name ends in `.json`) using the keys of the second',
    'column, then the environment variables of the first column. Invalid values stop the start',
    'with one message per problem, naming the key and its variable.',
    '',
    '| Variable | File key | Default | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

function showDefault(value: unknown): string {
  if (Array.isArray(value)) return value.join(',');
  if (isRate(value)) return formatRate(value);
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

function isRate(value: unknown): value is Rate {
  return typeof value === 'object' && value !== null && Object.keys(value).join(',') === 'points,windowMs';
}
