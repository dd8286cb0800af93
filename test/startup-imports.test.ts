/**
 * Heavy optional dependencies stay off the start path (#13): following the static imports of
 * the compiled node (dist/, what `tessera start` runs: main.js, the node it loads, the worker
 * entry) from module to module reaches none of them; each is reached only through a dynamic
 * `import()` in the module that uses it, on first use. Read from dist/ because that is what
 * runs (an `import { type X }` of a package would still load it there). `npm test` builds first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const dist = resolve(import.meta.dirname, '..', 'dist');
/** What `tessera start` loads in every case: the CLI, the node (a dynamic import of main.js) and a worker's entry. */
const START = ['src/cli/main.js', 'src/cli/node.js', 'src/cluster/workers.js', 'src/cluster/worker-main.js'];
/** Loaded on first use only: passkey ceremonies, TOTP enrolment QR codes, user-schema checks, bucket export/import, mail, tracing. */
const LAZY = ['@simplewebauthn/server', 'uqr', 'ajv', '@google-cloud/storage', 'nodemailer', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources'];

const STATIC = /(?:^|\n)[ \t]*(?:import|export)\s(?:[^'"();]*?\sfrom\s*)?['"]([^'"]+)['"]/g;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** The packages reached from `entries` by static imports, and those named in a dynamic import() on the way. */
function walk(entries: readonly string[]): { readonly statically: Set<string>; readonly dynamically: Set<string>; readonly modules: number } {
  const statically = new Set<string>();
  const dynamically = new Set<string>();
  const seen = new Set<string>();
  const queue = entries.map((e) => join(dist, e));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(STATIC)) {
      if (specifier!.startsWith('.')) queue.push(resolve(dirname(file), specifier!));
      else if (!specifier!.startsWith('node:')) statically.add(packageOf(specifier!));
    }
    for (const [, specifier] of text.matchAll(DYNAMIC)) if (!specifier!.startsWith('.')) dynamically.add(packageOf(specifier!));
  }
  return { statically, dynamically, modules: seen.size };
}

describe.skipIf(!existsSync(join(dist, START[0]!)))('start path', () => {
  const { statically, dynamically, modules } = walk(START);

  it('control: the walk follows the node\'s static imports (its store, tokens and HTTP front end are there)', () => {
    expect(modules).toBeGreaterThan(100);
    for (const eager of ['lmdb', 'jose', 'zod', 'pino', '@connectrpc/connect', 'otpauth']) expect([...statically]).toContain(eager);
  });

  it('imports none of the heavy optional dependencies statically', () => {
    expect(LAZY.filter((name) => statically.has(name))).toEqual([]);
  });

  it('control: reaches each of them through a dynamic import() in a module on the start path (the list is not stale)', () => {
    expect(LAZY.filter((name) => !dynamically.has(name))).toEqual([]);
  });
});
