/**
 * Heavy optional dependencies and rare route families stay off the start path (#13): following
 * the static imports of the compiled node (dist/, what `tessera start` runs: main.js, the node
 * it loads, the worker entry) from module to module reaches none of them; each is reached only
 * through a dynamic `import()` in the module that uses it, on first use. Read from dist/ because
 * that is what runs (an `import { type X }` of a package would still load it there). A started
 * node, whose loader records each module it loads, shows the same from the running process: a
 * lazy module is absent after `listening` and present once its route has been called.
 * `npm test` builds first.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './e2e/harness.js';

const dist = resolve(import.meta.dirname, '..', 'dist');
/** What `tessera start` loads in every case: the CLI, the node (a dynamic import of main.js) and a worker's entry. */
const START = ['src/cli/main.js', 'src/cli/node.js', 'src/cluster/workers.js', 'src/cluster/worker-main.js'];
/**
 * Loaded on first use only: passkey ceremonies, TOTP enrolment QR codes, user-schema checks, bucket export/import, mail, tracing,
 * password hashing (argon2's native library, bcrypt), external IDP logins (oauth4webapi), the PostgreSQL driver (a PostgreSQL store or its rate-limit counts).
 */
const LAZY = ['@simplewebauthn/server', 'uqr', 'ajv', '@google-cloud/storage', 'nodemailer', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources', '@node-rs/argon2', 'bcryptjs', 'postgres', 'oauth4webapi'];
/** Never imported on the start path: the YAML parser is required synchronously by config/load.ts when a YAML file is read. */
const NOT_STATIC = ['yaml'];

/**
 * Our own modules loaded on the first request of their route family: the admin export/import
 * handlers, and the RPC handlers of the resource and settings APIs (every transport).
 */
const LAZY_MODULES = ['src/api/admin/v1/admin-handlers.js', 'src/api/rpc-definitions.js', 'src/api/resources/users/create-user.js', 'src/api/settings/login/index.js', 'src/store/postgres-store.js', 'src/cli/backup-command.js', 'src/cli/store-transfer-command.js', 'src/api/transport/grpc-router.js'];

const STATIC = /(?:^|\n)[ \t]*(?:import|export)\s(?:[^'"();]*?\sfrom\s*)?['"]([^'"]+)['"]/g;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

interface Imports {
  /** Packages imported statically. */
  readonly packages: Set<string>;
  /** Packages named in a dynamic import(). */
  readonly dynamicPackages: Set<string>;
  /** Our modules (dist-relative) reached by static imports. */
  readonly modules: Set<string>;
  /** Our modules named in a dynamic import(). */
  readonly dynamicModules: Set<string>;
}

/** What the modules reached from `entries` by static imports import, statically and in a dynamic import(); `skip`: modules not to enter. */
function walk(entries: readonly string[], skip: ReadonlySet<string> = new Set()): Imports {
  const found: Imports = { packages: new Set(), dynamicPackages: new Set(), modules: new Set(), dynamicModules: new Set() };
  const queue = entries.map((e) => join(dist, e));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (found.modules.has(ownPath(file)) || skip.has(ownPath(file))) continue;
    found.modules.add(ownPath(file));
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(STATIC)) {
      if (specifier!.startsWith('.')) queue.push(resolve(dirname(file), specifier!));
      else if (!specifier!.startsWith('node:')) found.packages.add(packageOf(specifier!));
    }
    for (const [, specifier] of text.matchAll(DYNAMIC)) {
      if (specifier!.startsWith('.')) found.dynamicModules.add(ownPath(resolve(dirname(file), specifier!)));
      else found.dynamicPackages.add(packageOf(specifier!));
    }
  }
  return found;
}

/**
 * The start path: packages and our modules loaded at start, and the packages loaded only on first
 * use (named in a dynamic import() on the start path, or imported, either way, by a module that is
 * itself reached only through a dynamic import()).
 */
function startPath(): { readonly statically: Set<string>; readonly dynamically: Set<string>; readonly modules: number; readonly ownStatic: Set<string>; readonly ownDynamic: Set<string> } {
  const start = walk(START);
  const dynamically = new Set(start.dynamicPackages);
  const ownDynamic = new Set(start.dynamicModules);
  const pending = [...start.dynamicModules];
  const entered = new Set<string>();
  while (pending.length > 0) {
    const entry = pending.pop()!;
    if (entered.has(entry) || start.modules.has(entry)) continue;
    entered.add(entry);
    const later = walk([entry], start.modules);
    for (const name of [...later.packages, ...later.dynamicPackages]) dynamically.add(name);
    for (const path of later.dynamicModules) {
      ownDynamic.add(path);
      pending.push(path);
    }
  }
  return { statically: start.packages, dynamically, modules: start.modules.size, ownStatic: start.modules, ownDynamic };
}

const ownPath = (file: string) => file.slice(dist.length + 1);

describe.skipIf(!existsSync(join(dist, START[0]!)))('start path', () => {
  const { statically, dynamically, modules, ownStatic, ownDynamic } = startPath();

  it('control: the walk follows the node\'s static imports (its store, tokens and HTTP front end are there)', () => {
    expect(modules).toBeGreaterThan(100);
    for (const eager of ['lmdb', 'jose', 'zod', 'pino', '@connectrpc/connect', 'otpauth']) expect([...statically]).toContain(eager);
  });

  it('imports none of the heavy optional dependencies statically', () => {
    expect(LAZY.filter((name) => statically.has(name))).toEqual([]);
    expect(NOT_STATIC.filter((name) => statically.has(name))).toEqual([]);
  });

  it('control: reaches each of them through a dynamic import() in a module on the start path (the list is not stale)', () => {
    expect(LAZY.filter((name) => !dynamically.has(name))).toEqual([]);
  });

  it('reaches none of our lazy modules statically', () => {
    expect(LAZY_MODULES.filter((path) => ownStatic.has(path))).toEqual([]);
  });

  it('control: the entry of each lazy family is named in a dynamic import() on the start path; the routes and the invoker load at start', () => {
    for (const path of LAZY_MODULES) expect(existsSync(join(dist, path)), path).toBe(true);
    expect(['src/api/admin/v1/admin-handlers.js', 'src/api/rpc-definitions.js'].filter((path) => !ownDynamic.has(path))).toEqual([]);
    for (const path of ['src/api/admin/v1/admin-routes.js', 'src/api/invoker.js', 'src/api/transport/json-transcoder.js']) expect(ownStatic.has(path), path).toBe(true);
  });

  it('carries no comments in the compiled modules (their text stays in V8\'s heap)', () => {
    const token = readFileSync(join(dist, 'src/oidc/token.js'), 'utf8');
    expect(token).toContain('grantClientCredentials');
    expect(token).not.toMatch(/\/\*\*|^\s*\/\/ /m);
  });
});

/**
 * Loader hooks (module.register) that append the URL of every module the node loads to
 * TESSERA_TEST_LOADED_MODULES; given to the node with NODE_OPTIONS=--import.
 */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) { appendFileSync(process.env.TESSERA_TEST_LOADED_MODULES, url + '\\n'); return next(url, context); }`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

describe.skipIf(!existsSync(join(dist, START[0]!)))('a started node', () => {
  let node: TestNode;
  let dir: string;
  let record: string;
  const loaded = () => new Set(readFileSync(record, 'utf8').split('\n'));
  const urlOf = (path: string) => pathToFileURL(join(dist, path)).href;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-loaded-'));
    record = join(dir, 'loaded-modules');
    // One thread (also under TESSERA_TEST_WORKERS): the hooks record the main thread's loads.
    node = await startTestNode({ env: { TESSERA_WORKERS: '1', TESSERA_TEST_LOADED_MODULES: record, NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(REGISTER)}` } });
  });

  afterAll(async () => {
    await node?.stop();
    node?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has not loaded a lazy module once listening (control: the record holds the node and its admin routes)', () => {
    const atStart = loaded();
    expect(atStart.has(urlOf('src/cli/node.js'))).toBe(true);
    expect(atStart.has(urlOf('src/api/admin/v1/admin-routes.js'))).toBe(true);
    expect(LAZY_MODULES.filter((path) => atStart.has(urlOf(path)))).toEqual([]);
  });

  it('loads the RPC handlers on the first API call, which is answered (201 from the create-organization handler)', async () => {
    const created = await api(node)('POST', '/resources/v3alpha/organizations', { name: 'First Call' });
    expect(created.status).toBe(201);
    expect(created.body.details.id).toEqual(expect.any(String));
    const after = loaded();
    for (const path of ['src/api/rpc-definitions.js', 'src/api/resources/users/create-user.js', 'src/api/settings/login/index.js']) expect(after.has(urlOf(path)), path).toBe(true);
  });

  it('loads argon2 on the first password hash, and the user with a password is created (201)', async () => {
    const argon2 = (urls: Set<string>) => [...urls].some((url) => url.includes('/node_modules/@node-rs/argon2/'));
    expect(argon2(loaded())).toBe(false);
    const user = await api(node)('POST', '/resources/v3alpha/users', {
      human: { username: 'first-hash', profile: { givenName: 'First', familyName: 'Hash' }, email: { address: 'first-hash@example.com', isVerified: true }, password: 'Correct-Horse-9!' },
    });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    expect(argon2(loaded())).toBe(true);
  });

  it('loads the admin handlers on the first admin request, which is answered', async () => {
    const exported = await api(node)('POST', '/admin/v1/export', { response_output: true });
    expect(exported.status).toBe(200);
    expect(exported.body).toHaveProperty('orgs');
    expect(loaded().has(urlOf('src/api/admin/v1/admin-handlers.js'))).toBe(true);
  });
});
