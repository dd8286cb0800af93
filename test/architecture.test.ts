/**
 * The dependency rules of style.md §2, checked on every run: actors/ imports nothing from
 * src/; src/ (and bench/) import actors/ only through actors/index.ts; the shared modules
 * (src/query: app clients, user auth, sessions, tenants, callers, features; src/i18n; src/crypto)
 * import none of the API, OIDC and login surfaces that use them; src/oidc and src/login never
 * import src/api nor src/api them (exceptions listed in API_BOUNDARY_EXCEPTIONS: none); and
 * the three import each other only along the edges listed below.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((f) => !f.startsWith('src/gen/'));
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => relative(root, resolve(dirname(join(root, file)), m[1]!)));
}

describe('import boundaries', () => {
  it('actors/ imports nothing from src/', () => {
    const violations = sources('actors').flatMap((f) => importsOf(f).filter((i) => i.startsWith('src/')).map((i) => `${f} → ${i}`));
    expect(violations).toEqual([]);
  });

  it('src/ and bench/ reach actors/ only through actors/index.ts', () => {
    const files = [...sources('src'), ...sources('bench')];
    const violations = files.flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('actors/') && i !== 'actors/index.js')
        .map((i) => `${f} → ${i}`),
    );
    expect(violations).toEqual([]);
  });

  it('the shared modules (src/query, src/i18n, src/crypto) import nothing from src/api, src/oidc or src/login', () => {
    const violations = [...sources('src/query'), ...sources('src/i18n'), ...sources('src/crypto')].flatMap((f) =>
      importsOf(f)
        .filter((i) => /^src\/(api|oidc|login)\//.test(i))
        .map((i) => `${f} → ${i}`),
    );
    expect(violations).toEqual([]);
  });

  it('src/oidc and src/login never import src/api, and src/api never imports src/oidc or src/login', () => {
    const area = (path: string) => /^src\/(api|oidc|login)\//.exec(path)?.[1];
    const violations: string[] = [];
    for (const f of [...sources('src/api'), ...sources('src/oidc'), ...sources('src/login')]) {
      for (const i of importsOf(f)) {
        const from = area(f);
        const to = area(i);
        const crosses = (from === 'api' && (to === 'oidc' || to === 'login')) || (from !== 'api' && to === 'api');
        if (crosses && !API_BOUNDARY_EXCEPTIONS.includes(`${f} → ${i.replace(/\.js$/, '.ts')}`)) violations.push(`${f} → ${i}`);
      }
    }
    expect(violations).toEqual([]);
    // Positive control: the walk does see imports across areas (login → oidc exists).
    expect(sources('src/login').some((f) => importsOf(f).some((i) => area(i) === 'oidc'))).toBe(true);
  });

  it('src/api, src/oidc and src/login import each other only along the known edges', () => {
    const area = (path: string) => /^src\/(api|oidc|login)\//.exec(path)?.[1];
    const edges = new Set<string>();
    for (const f of [...sources('src/api'), ...sources('src/oidc'), ...sources('src/login')]) {
      for (const i of importsOf(f)) {
        const to = area(i);
        if (to !== undefined && to !== area(f)) edges.add(`${area(f)} → ${i.replace(/\.js$/, '.ts')}`);
      }
    }
    // Shrink this list, never grow it: shared pieces belong in src/query (or another neutral module).
    expect([...edges].sort()).toEqual(KNOWN_EDGES);
  });
});

/**
 * Imports allowed across the API / OIDC+login boundary, as `file → import`: none. The one place
 * that wires the three together is the composition root src/cli/node.ts (outside all three).
 * Shared pieces go to src/query (app clients, user auth, sessions, tenant directory, caller
 * authentication, features, settings generations), src/i18n (message catalogs) or src/crypto
 * (web keys).
 */
const API_BOUNDARY_EXCEPTIONS: readonly string[] = [];

const KNOWN_EDGES = [
  'login → src/oidc/shared/auth-flow-deps.ts',
  'login → src/oidc/shared/auth-request-flow.ts',
  'login → src/oidc/shared/auth-requests.ts',
  'login → src/oidc/shared/authorization-response.ts',
  'login → src/oidc/shared/endpoint.ts',
  'login → src/oidc/shared/form.ts',
  'login → src/oidc/shared/scopes.ts',
  'login → src/oidc/shared/ui-locales.ts',
  'oidc → src/login/browser-sessions.ts',
  'oidc → src/login/login-org.ts',
  'oidc → src/login/pages.ts',
  'oidc → src/login/routes.ts',
];
