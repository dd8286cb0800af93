/**
 * Adapter-independent router: a segment trie where a literal segment beats `{param}` at the same
 * depth (with backtracking), HEAD served by GET, 405 + Allow (RFC 9110 §15.5.6), CORS on
 * configured path prefixes (Fetch standard §3.2), and security headers on every reply. Deferred
 * route families join the trie on the first request under their prefixes (idle memory, #13).
 */
import type { HttpHandler, HttpReply, HttpRequest, ImmediateHandler, WholeReply } from './types.js';
import { malformedPathReply, methodNotAllowedBody, notFoundReply, shareReply } from './reply.js';

export type RouteHandler = (req: HttpRequest) => Promise<HttpReply> | HttpReply;

export interface Route {
  readonly method: string;
  /** `/a/b/{id}/_action`: `{name}` matches exactly one non-empty path segment. */
  readonly pattern: string;
  readonly handler: RouteHandler;
  /**
   * The reply when it is already in memory (pre-serialised, no await, constant cost), answered
   * before fair admission (`immediateRoutes`); undefined sends the request to `handler`. Only on
   * GET routes without `{param}`; it must answer exactly as `handler` would.
   */
  readonly immediate?: (req: HttpRequest) => WholeReply | undefined;
}

/**
 * Routes loaded on the first request whose path starts with one of `prefixes` (that request
 * waits for the load once; a failed load is tried again by the next one). No route given at
 * creation may sit under those prefixes and every loaded route must, so a request is answered
 * exactly as if the routes had been there from the start (405, fallback, not found included).
 */
export interface DeferredRoutes {
  readonly prefixes: readonly string[];
  load(): Promise<readonly Route[]>;
}

export interface RouterOptions {
  /** Consulted when no pattern matches the path (Connect / gRPC-web paths). */
  readonly fallback?: (req: HttpRequest) => Promise<HttpReply | undefined> | HttpReply | undefined;
  /** Paths starting with one of these answer CORS preflights and carry CORS headers. */
  readonly corsPathPrefixes: readonly string[];
  /** Reply for an unknown route; default 404 `{"code":5,"message":"Not Found"}`. */
  readonly notFound?: (req: HttpRequest) => HttpReply;
  /** Route families added on first use. */
  readonly deferred?: readonly DeferredRoutes[];
}

interface RouteEntry {
  readonly pattern: string;
  readonly handler: RouteHandler;
  readonly paramNames: readonly string[];
}

interface TrieNode {
  readonly literals: Map<string, TrieNode>;
  param: TrieNode | undefined;
  readonly methods: Map<string, RouteEntry>;
}

type MutableRequest = { -readonly [K in keyof HttpRequest]: HttpRequest[K] };

function newNode(): TrieNode {
  return { literals: new Map(), param: undefined, methods: new Map() };
}

function addRoute(root: TrieNode, route: Route): void {
  if (!route.pattern.startsWith('/')) throw new Error(`route pattern must start with '/': ${route.pattern}`);
  const paramNames: string[] = [];
  let node = root;
  for (const segment of route.pattern.slice(1).split('/')) {
    if (segment.startsWith('{') && segment.endsWith('}')) {
      paramNames.push(segment.slice(1, -1));
      node.param ??= newNode();
      node = node.param;
    } else if (segment.includes('{') || segment.includes('}')) {
      throw new Error(`a {param} must be a whole segment; split the pattern instead: ${route.pattern}`);
    } else {
      let next = node.literals.get(segment);
      if (next === undefined) node.literals.set(segment, (next = newNode()));
      node = next;
    }
  }
  const method = route.method.toUpperCase();
  if (node.methods.has(method)) throw new Error(`duplicate route ${method} ${route.pattern}`);
  node.methods.set(method, { pattern: route.pattern, handler: route.handler, paramNames });
}

function entryAt(node: TrieNode, method: string, collect: Set<string> | undefined): RouteEntry | undefined {
  if (collect !== undefined) {
    for (const m of node.methods.keys()) collect.add(m);
    return undefined;
  }
  const entry = node.methods.get(method);
  return entry === undefined && method === 'HEAD' ? node.methods.get('GET') : entry;
}

/**
 * Depth-first walk from `pos` (just after a '/'): literal child first, then the param child, so a
 * literal wins at equal depth but a dead end under it still falls back to the param. Raw param
 * segments are pushed on `values` along the matched branch. With `collect`, visits every match.
 */
function walk(
  node: TrieNode,
  path: string,
  pos: number,
  values: string[],
  method: string,
  collect?: Set<string>,
): RouteEntry | undefined {
  const slash = path.indexOf('/', pos);
  const segment = slash === -1 ? path.slice(pos) : path.slice(pos, slash);
  const literal = node.literals.get(segment);
  if (literal !== undefined) {
    const found = slash === -1 ? entryAt(literal, method, collect) : walk(literal, path, slash + 1, values, method, collect);
    if (found !== undefined) return found;
  }
  const param = node.param;
  if (param === undefined || segment === '') return undefined;
  values.push(segment);
  const found = slash === -1 ? entryAt(param, method, collect) : walk(param, path, slash + 1, values, method, collect);
  if (found === undefined) values.pop();
  return found;
}

/** Every method any pattern matching `path` accepts, in Allow-header form; '' when none. */
function allowedMethods(root: TrieNode, path: string, cors: boolean): string {
  if (path.charCodeAt(0) !== SLASH) return '';
  const allowed = new Set<string>();
  walk(root, path, 1, [], '', allowed);
  if (allowed.size === 0) return '';
  if (allowed.has('GET')) allowed.add('HEAD');
  if (cors) allowed.add('OPTIONS');
  return [...allowed].join(', ');
}

/** Percent-decodes the raw values into a params record; undefined on malformed encoding. */
function decodeParams(names: readonly string[], values: readonly string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    const raw = values[i] as string; // walk pushed one value per param name on the matched branch
    if (raw.indexOf('%') === -1) {
      params[names[i] as string] = raw;
      continue;
    }
    try {
      params[names[i] as string] = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }
  return params;
}

const SLASH = 47; // '/'
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

function methodNotAllowed(allow: string): HttpReply {
  return { status: 405, headers: { 'content-type': 'application/json', allow }, body: methodNotAllowedBody };
}

const CSP =
  "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'; " +
  "style-src 'self' 'unsafe-inline'";
const NOSNIFF = Object.freeze({ 'x-content-type-options': 'nosniff' });
const HTML_SECURITY = Object.freeze({
  'content-security-policy': CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
});
const CORS_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const CORS_ALLOW_HEADERS =
  'authorization, content-type, connect-protocol-version, connect-timeout-ms, x-grpc-web, x-user-agent, grpc-timeout, x-request-id, traceparent';
const CORS_EXPOSE_HEADERS = 'grpc-status, grpc-message, grpc-status-details-bin, www-authenticate, location, x-request-id, traceparent';

/** Whether `path` starts with one of `prefixes` (CORS paths, deferred families). */
function isUnder(path: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (path.startsWith(prefix)) return true;
  return false;
}

function preflightReply(req: HttpRequest): HttpReply {
  const requested = req.headers['access-control-request-headers'];
  const headers = {
    'access-control-allow-origin': req.headers['origin'] ?? '*',
    'access-control-allow-methods': CORS_METHODS,
    'access-control-allow-headers': requested ? `${CORS_ALLOW_HEADERS}, ${requested}` : CORS_ALLOW_HEADERS,
    'access-control-max-age': '86400',
    vary: 'origin, access-control-request-method, access-control-request-headers',
    'x-content-type-options': 'nosniff',
  };
  return { status: 204, headers };
}

function isHtml(contentType: string | readonly string[] | undefined): boolean {
  return typeof contentType === 'string' && contentType.startsWith('text/html');
}

/**
 * Adds nosniff everywhere, the HTML security headers to HTML, and CORS headers when `corsReq` is
 * given. Headers the handler set win over these defaults (a page may need its own CSP nonce).
 */
function decorateReply(reply: HttpReply, corsReq?: HttpRequest): HttpReply {
  const headers = reply.headers;
  const html = headers !== undefined && isHtml(headers['content-type']);
  if (corsReq === undefined) {
    if (html) return { status: reply.status, headers: { ...HTML_SECURITY, ...headers }, body: reply.body };
    if (headers?.['x-content-type-options'] !== undefined) return reply;
    const merged = headers === undefined ? NOSNIFF : { ...headers, ...NOSNIFF };
    return { status: reply.status, headers: merged, body: reply.body };
  }
  const vary = headers?.['vary'];
  const merged = {
    ...(html ? HTML_SECURITY : NOSNIFF),
    ...headers,
    'access-control-allow-origin': corsReq.headers['origin'] ?? '*',
    'access-control-expose-headers': CORS_EXPOSE_HEADERS,
    vary: typeof vary === 'string' && vary !== '' ? `${vary}, origin` : 'origin',
  };
  return { status: reply.status, headers: merged, body: reply.body };
}

/**
 * The deferred families not loaded yet: `loading(path)` is the load of the family `path` falls
 * under (shared by concurrent requests; its routes join the trie once), undefined otherwise.
 */
function pendingFamilies(root: TrieNode, routes: readonly Route[], families: readonly DeferredRoutes[]): (path: string) => Promise<void> | undefined {
  for (const route of routes) {
    const family = families.find((f) => isUnder(route.pattern, f.prefixes));
    if (family !== undefined) throw new Error(`route ${route.method} ${route.pattern} lies under a deferred family's prefixes (${family.prefixes.join(', ')})`);
  }
  const pending = families.map((family) => ({ family, loading: undefined as Promise<void> | undefined }));
  const load = (entry: (typeof pending)[number]): Promise<void> =>
    (entry.loading ??= entry.family.load().then(
      (loaded) => {
        for (const route of loaded) {
          if (!isUnder(route.pattern, entry.family.prefixes)) throw new Error(`deferred route ${route.method} ${route.pattern} lies outside its family's prefixes (${entry.family.prefixes.join(', ')})`);
        }
        for (const route of loaded) addRoute(root, route);
        pending.splice(pending.indexOf(entry), 1);
      },
      (error: unknown) => {
        entry.loading = undefined;
        throw error;
      },
    ));
  return (path) => {
    for (const entry of pending) if (isUnder(path, entry.family.prefixes)) return load(entry);
    return undefined;
  };
}

/** Builds the request handler for `routes`; the trie is compiled once, here (deferred families join it on first use). */
export function createRouter(routes: readonly Route[], options: RouterOptions): HttpHandler {
  const root = newNode();
  for (const route of routes) addRoute(root, route);
  const { fallback, corsPathPrefixes } = options;
  const notFound = options.notFound ?? (() => notFoundReply);
  const deferredLoad = options.deferred === undefined || options.deferred.length === 0 ? undefined : pendingFamilies(root, routes, options.deferred);

  const unmatched = (req: HttpRequest, cors: boolean): Promise<HttpReply> | HttpReply => {
    // Only a path no route matched can be a deferred family's: no route given here lies under its prefixes.
    const loading = deferredLoad?.(req.path);
    if (loading !== undefined) return loading.then(() => route(req, cors));
    const allow = allowedMethods(root, req.path, cors);
    if (allow !== '') return methodNotAllowed(allow);
    if (fallback === undefined) return notFound(req);
    const result = fallback(req);
    if (result instanceof Promise) return result.then((reply) => reply ?? notFound(req));
    return result ?? notFound(req);
  };

  const route = (req: HttpRequest, cors: boolean): Promise<HttpReply> | HttpReply => {
    const values: string[] = [];
    const path = req.path;
    const entry = path.charCodeAt(0) === SLASH ? walk(root, path, 1, values, req.method) : undefined;
    if (entry === undefined) return unmatched(req, cors);
    const params = entry.paramNames.length === 0 ? NO_PARAMS : decodeParams(entry.paramNames, values);
    if (params === undefined) return malformedPathReply;
    const writable = req as MutableRequest;
    writable.params = params;
    writable.route = entry.pattern;
    return entry.handler(req);
  };

  return (req) => {
    const cors = corsPathPrefixes.length !== 0 && isUnder(req.path, corsPathPrefixes);
    if (cors && req.method === 'OPTIONS') return preflightReply(req);
    const reply = route(req, cors);
    if (reply instanceof Promise) return reply.then(cors ? (r) => decorateReply(r, req) : decorateReply);
    return decorateReply(reply, cors ? req : undefined);
  };
}

/** The decorated reply of each shared reply for requests without Origin (what decorateReply would build anew each time). */
const decoratedCorsReplies = new WeakMap<WholeReply, WholeReply>();

/**
 * The immediate handler of the routes that have one (GET, and HEAD served by it): an exact path
 * lookup, the route set on the request as the router sets it, and the router's decoration (nosniff,
 * CORS). Undefined when no route has one. A request the route cannot answer from memory, or
 * another method or path, goes on to the router through fair admission.
 */
export function immediateRoutes(routes: readonly Route[], options: Pick<RouterOptions, 'corsPathPrefixes'>): ImmediateHandler | undefined {
  const byPath = new Map<string, { readonly pattern: string; readonly immediate: (req: HttpRequest) => WholeReply | undefined; readonly cors: boolean }>();
  for (const route of routes) {
    if (route.immediate === undefined) continue;
    if (route.method.toUpperCase() !== 'GET' || route.pattern.includes('{')) throw new Error(`an immediate reply needs a GET route without parameters: ${route.method} ${route.pattern}`);
    byPath.set(route.pattern, { pattern: route.pattern, immediate: route.immediate, cors: isUnder(route.pattern, options.corsPathPrefixes) });
  }
  if (byPath.size === 0) return undefined;
  return (req) => {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    const entry = byPath.get(req.path);
    if (entry === undefined) return undefined;
    (req as MutableRequest).route = entry.pattern;
    const reply = entry.immediate(req);
    if (reply === undefined) return undefined;
    if (!entry.cors) return decorateReply(reply) as WholeReply; // the body is the route's
    if (req.headers['origin'] !== undefined) return decorateReply(reply, req) as WholeReply;
    let decorated = decoratedCorsReplies.get(reply);
    if (decorated === undefined) decoratedCorsReplies.set(reply, (decorated = shareReply(decorateReply(reply, req) as WholeReply)));
    return decorated;
  };
}
