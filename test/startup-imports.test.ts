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
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Health, HealthCheckResponse_ServingStatus } from '../src/gen/grpc/health/v1/health_pb.js';
import { api, startTestNode, type TestNode } from './e2e/harness.js';
import { suiteTempDirs } from './temp-dirs.js';

const dist = resolve(import.meta.dirname, '..', 'dist');
/** What `tessera start` loads in every case: the CLI, the node (dynamic imports of main.js) and a worker's entry. */
const START = ['src/cli/main.js', 'src/cli/configured-node.js', 'src/cli/prepare-node.js', 'src/cli/node.js', 'src/cluster/workers.js', 'src/cluster/worker-main.js'];
/** What the main thread of a node with workers loads: it prepares the store and supervises, it serves nothing. */
const SUPERVISOR = ['src/cli/main.js', 'src/cli/configured-node.js', 'src/cluster/workers.js'];
/**
 * Loaded on first use only: passkey ceremonies, TOTP enrolment QR codes, user-schema checks, bucket export/import, mail, tracing,
 * password hashing (argon2's native library, bcrypt), external IDP logins (oauth4webapi), the PostgreSQL driver (a PostgreSQL store or its rate-limit counts),
 * the API's descriptors (@bufbuild/protobuf) and its Connect, gRPC-web and gRPC transports.
 */
const LAZY = ['@simplewebauthn/server', 'uqr', 'ajv', '@google-cloud/storage', 'nodemailer', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources', '@node-rs/argon2', 'bcryptjs', 'postgres', 'oauth4webapi', '@bufbuild/protobuf', '@connectrpc/connect', '@connectrpc/connect-node'];
/**
 * Never imported on the start path: the YAML parser is required synchronously by config/load.ts when a YAML file is read;
 * rate-limiter-flexible's index loads every store adapter it has, so src/http/rate-limiter-memory.ts requires the two files the node uses.
 */
const NOT_STATIC = ['yaml', 'rate-limiter-flexible'];

/**
 * Our own modules loaded on the first request of their route family: the admin export/import
 * handlers, the RPC handlers of the resource and settings APIs (every transport), the services'
 * descriptors, the invoker and each transport (JSON/HTTP, Connect and gRPC-web, gRPC), the OpenAPI document.
 */
const LAZY_MODULES = ['src/api/admin/v1/admin-handlers.js', 'src/api/rpc-definitions.js', 'src/api/resources/users/create-user.js', 'src/api/settings/login/index.js', 'src/store/postgres-store.js', 'src/cli/backup-command.js', 'src/cli/store-transfer-command.js',
  // The API's transports: what any transport shares (descriptors, invoker), JSON/HTTP, Connect and gRPC-web, gRPC; the OpenAPI document; request/response executions.
  'src/api/transport/api-transports.js', 'src/api/services.js', 'src/api/invoker.js', 'src/gen/platform/resources/org/v3alpha/org_service_pb.js', 'src/api/transport/json-transcoder.js', 'src/api/transport/connect-bridge.js', 'src/api/transport/connect-error.js', 'src/api/transport/grpc-router.js', 'src/api/openapi/document.js', 'src/executions/call-hooks.js'];

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
    for (const eager of ['lmdb', 'jose', 'zod', 'pino', 'otpauth']) expect([...statically]).toContain(eager);
  });

  it('imports none of the heavy optional dependencies statically', () => {
    expect(LAZY.filter((name) => statically.has(name))).toEqual([]);
    expect(NOT_STATIC.filter((name) => statically.has(name))).toEqual([]);
  });

  it('control: reaches each of them through a dynamic import() in a module on the start path (the list is not stale)', () => {
    expect(LAZY.filter((name) => !dynamically.has(name))).toEqual([]);
  });

  it('reaches none of our lazy modules statically, and no generated descriptor', () => {
    expect(LAZY_MODULES.filter((path) => ownStatic.has(path))).toEqual([]);
    expect([...ownStatic].filter((path) => path.startsWith('src/gen/'))).toEqual([]);
  });

  it('control: the entry of each lazy family is named in a dynamic import() on the start path; the admin routes, the lazy API, the gRPC listener and error mapping load at start', () => {
    for (const path of LAZY_MODULES) expect(existsSync(join(dist, path)), path).toBe(true);
    expect(['src/api/admin/v1/admin-handlers.js', 'src/api/rpc-definitions.js', 'src/api/transport/api-transports.js', 'src/api/transport/json-transcoder.js', 'src/api/transport/connect-bridge.js', 'src/api/transport/grpc-router.js', 'src/api/openapi/document.js', 'src/executions/call-hooks.js'].filter((path) => !ownDynamic.has(path))).toEqual([]);
    for (const path of ['src/api/admin/v1/admin-routes.js', 'src/api/transport/lazy-api.js', 'src/api/transport/grpc-server.js', 'src/api/openapi/route.js', 'src/http/error-mapping.js']) expect(ownStatic.has(path), path).toBe(true);
  });

  it('the main thread of a node with workers loads none of the serving modules (control: it loads the store preparation and the worker pool)', () => {
    const supervisor = walk(SUPERVISOR).modules;
    expect(['src/cli/node.js', 'src/oidc/routes.js', 'src/login/routes.js', 'src/http/router.js', 'src/api/transport/lazy-api.js'].filter((path) => supervisor.has(path))).toEqual([]);
    for (const path of ['src/cli/prepare-node.js', 'src/cluster/shared-rate-table.js', 'src/cli/first-run.js']) expect(supervisor.has(path), path).toBe(true);
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
  const newDir = suiteTempDirs('tessera-loaded-');
  let record: string;
  const loaded = () => new Set(readFileSync(record, 'utf8').split('\n'));
  const urlOf = (path: string) => pathToFileURL(join(dist, path)).href;
  const hasPackage = (urls: Set<string>, name: string) => [...urls].some((url) => url.includes(`/node_modules/${name}/`));

  beforeAll(async () => {
    dir = newDir();
    record = join(dir, 'loaded-modules');
    // One thread (also under TESSERA_TEST_WORKERS): the hooks record the main thread's loads.
    node = await startTestNode({ env: { TESSERA_WORKERS: '1', TESSERA_TEST_LOADED_MODULES: record, NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(REGISTER)}` } });
  });

  afterAll(async () => {
    await node?.stop();
    node?.cleanup();
  });

  it('has not loaded a lazy module once listening (control: the record holds the node, its admin routes and the API\'s lazy transports)', () => {
    const atStart = loaded();
    for (const path of ['src/cli/node.js', 'src/api/admin/v1/admin-routes.js', 'src/api/transport/lazy-api.js']) expect(atStart.has(urlOf(path)), path).toBe(true);
    expect(hasPackage(atStart, 'jose')).toBe(true);
    // A node on PostgreSQL (TESSERA_TEST_STORE=postgres) loads its store's driver at start, by design.
    const lazyHere = node.store.kind === 'postgres' ? LAZY_MODULES.filter((path) => path !== 'src/store/postgres-store.js') : LAZY_MODULES;
    expect(lazyHere.filter((path) => atStart.has(urlOf(path)))).toEqual([]);
    expect(['@bufbuild/protobuf', '@connectrpc/connect', '@connectrpc/connect-node'].filter((name) => hasPackage(atStart, name))).toEqual([]);
  });

  it('loads the RPC handlers, the descriptors and the JSON transcoder on the first API call, which is answered (201 from the create-organization handler); not Connect', async () => {
    const created = await api(node)('POST', '/resources/v3alpha/organizations', { name: 'First Call' });
    expect(created.status).toBe(201);
    expect(created.body.details.id).toEqual(expect.any(String));
    const after = loaded();
    for (const path of ['src/api/rpc-definitions.js', 'src/api/resources/users/create-user.js', 'src/api/settings/login/index.js', 'src/api/transport/json-transcoder.js', 'src/api/services.js']) expect(after.has(urlOf(path)), path).toBe(true);
    expect(hasPackage(after, '@bufbuild/protobuf')).toBe(true);
    expect(after.has(urlOf('src/api/transport/connect-bridge.js'))).toBe(false);
    expect(hasPackage(after, '@connectrpc/connect')).toBe(false);
  });

  it('loads Connect on the first Connect call, which is answered', async () => {
    const reply = await fetch(`${node.baseUrl}/platform.resources.org.v3alpha.PlatformOrganizations/SearchOrganizations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${node.adminToken}` },
      body: '{}',
    });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toHaveProperty('result');
    expect(loaded().has(urlOf('src/api/transport/connect-bridge.js'))).toBe(true);
  });

  it('builds the gRPC port\'s handlers on its first call, which is answered (health: SERVING)', async () => {
    expect(loaded().has(urlOf('src/api/transport/grpc-router.js'))).toBe(false);
    const client = createClient(Health, createGrpcTransport({ baseUrl: node.grpcUrl }));
    expect((await client.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect(loaded().has(urlOf('src/api/transport/grpc-router.js'))).toBe(true);
  });

  it('builds the OpenAPI document on the first GET /openapi.json', async () => {
    const reply = await fetch(`${node.baseUrl}/openapi.json`);
    expect(reply.status).toBe(200);
    expect((await reply.json()) as unknown).toHaveProperty('paths');
    expect(loaded().has(urlOf('src/api/openapi/document.js'))).toBe(true);
  });

  it('loads argon2 on the first password hash, and the user with a password is created (201)', async () => {
    const argon2 = (urls: Set<string>) => hasPackage(urls, '@node-rs/argon2');
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
