/**
 * Seeded, bounded fuzzing of a started node (issue #12): random but reproducible requests to
 * every JSON/HTTP route of the API route table and every protocol endpoint, and to every RPC
 * over Connect (JSON and binary), gRPC-web (binary, JSON, text) and the gRPC port. Every request
 * must be answered (a timeout is a failure) and nothing may be a server error (5xx, gRPC
 * INTERNAL / UNKNOWN / DATA_LOSS). The seed is printed; TESSERA_FUZZ_SEED=<n> replays a run.
 */
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { request as httpRequest } from 'node:http';
import type { DescMethod } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICES } from '../../src/api/services.js';
import { compileHttpRules } from '../../src/api/transport/http-rules.js';
import { startTestNode, type TestNode } from './harness.js';

const REQUESTS_PER_TRANSPORT = 250;
const CONCURRENCY = 8;
const ANSWER_WITHIN_MS = 10_000;
const SEED = Number(process.env.TESSERA_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32: a small seeded generator, so a seed replays the same requests. */
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick };
}
type Random = ReturnType<typeof createRandom>;

const PIECES = ['a', 'Z', '0', '-', '_', '.', '/', '%', '%2F', '%zz', '%ED%A0%BD', '?', '#', ' ', '"', '\\', '🙂', 'é', '\u0000', '\ud83d', '<script>', "'", '${x}', '..', '{', '}', '[', ']', ':', ','];

/** Percent-encoding that also takes lone surrogates (the raw pieces keep their own escapes). */
const encode = (text: string) => encodeURIComponent(text.toWellFormed());

function randomText(r: Random, max = 24): string {
  if (r.int(20) === 0) return 'x'.repeat(2_000 + r.int(3_000));
  let text = '';
  for (let i = r.int(max); i > 0; i--) text += r.pick(PIECES);
  return text;
}

function randomJson(r: Random, fields: readonly string[], depth = 0): unknown {
  switch (r.int(depth > 3 ? 5 : 8)) {
    case 0: return null;
    case 1: return r.pick([true, false]);
    case 2: return r.pick([0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, 42]);
    case 3: return r.pick(['', '42', '-1', 'NaN', 'true', '2024-01-01T00:00:00Z', '1s']);
    case 4: return randomText(r);
    case 5: return Array.from({ length: r.int(4) }, () => randomJson(r, fields, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = r.int(5); i > 0; i--) object[r.int(3) === 0 ? randomText(r, 4) : r.pick(fields.length > 0 ? fields : ['x'])] = randomJson(r, fields, depth + 1);
      return object;
    }
  }
}

function fieldNamesOf(method: DescMethod): string[] {
  const names = new Set<string>();
  const visit = (message: DescMethod['input'], depth: number) => {
    for (const field of message.fields) {
      names.add(field.jsonName).add(field.name);
      if (depth < 3 && field.message !== undefined) visit(field.message, depth + 1);
    }
  };
  visit(method.input, 0);
  return [...names];
}

function randomBytes(r: Random): Buffer {
  return Buffer.from(Array.from({ length: r.int(r.int(4) === 0 ? 400 : 24) }, () => r.int(256)));
}

/** A body: JSON for the method, JSON-ish garbage, the emoji body, or bytes. */
function randomBody(r: Random, fields: readonly string[]): Buffer {
  switch (r.int(6)) {
    case 0: return Buffer.from('🙂'.repeat(1 + r.int(60)));
    case 1: return randomBytes(r);
    case 2: return Buffer.from(JSON.stringify(randomJson(r, fields)).slice(0, r.int(40)));
    default: return Buffer.from(JSON.stringify(randomJson(r, fields)));
  }
}

function frame(flags: number, payload: Buffer, lie = false): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(lie ? payload.length + 7 : payload.length, 1);
  return Buffer.concat([head, payload]);
}

interface HttpCase {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer | undefined;
}

interface GrpcCase {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const PROTOCOL_ROUTES: readonly [string, string][] = [
  ['GET', '/.well-known/openid-configuration'], ['GET', '/oauth/v2/keys'], ['GET', '/oauth/v2/authorize'], ['POST', '/oauth/v2/authorize'],
  ['POST', '/oauth/v2/token'], ['POST', '/oauth/v2/introspect'], ['POST', '/oauth/v2/revoke'], ['GET', '/oidc/v1/userinfo'], ['POST', '/oidc/v1/userinfo'],
  ['GET', '/oidc/v1/end_session'], ['POST', '/oidc/v1/end_session'], ['GET', '/ui/login/login'], ['POST', '/ui/login/login'],
  ['GET', '/ui/login/external/start'], ['GET', '/ui/login/external/callback'], ['POST', '/admin/v1/export'], ['POST', '/admin/v1/import'],
  ['GET', '/healthz'], ['GET', '/readyz'], ['GET', '/metrics'],
];

const METHODS: readonly DescMethod[] = SERVICES.flatMap((service) => service.methods);

function authHeaders(r: Random, token: string): Record<string, string> {
  return r.int(3) === 0 ? {} : { authorization: r.int(8) === 0 ? `Bearer ${encode(randomText(r, 6))}` : `Bearer ${token}` };
}

function jsonCases(r: Random, token: string): HttpCase[] {
  const bindings = compileHttpRules(SERVICES);
  return Array.from({ length: REQUESTS_PER_TRANSPORT }, () => {
    const useProtocolRoute = r.int(4) === 0;
    const [method, pattern, fields] = useProtocolRoute
      ? [...r.pick(PROTOCOL_ROUTES), ['client_id', 'grant_type', 'code', 'token', 'redirect_uri', 'scope', 'response_type', 'state', 'id_token_hint', 'loginName', 'password']] as const
      : ((b) => [b.httpMethod, b.pattern, fieldNamesOf(b.method)] as const)(r.pick(bindings));
    const path = pattern.replace(/\{[^}]+\}/g, () => (r.int(5) === 0 ? encodeURI(randomText(r, 6).toWellFormed()) : encode(randomText(r, 6))) || 'x');
    const query = r.int(2) === 0 ? '' : `?${Array.from({ length: 1 + r.int(4) }, () => `${encode(r.int(2) === 0 && fields.length > 0 ? r.pick(fields) : randomText(r, 4))}=${encode(randomText(r, 8))}`).join('&')}`;
    const form = useProtocolRoute && r.int(2) === 0;
    const body = method === 'GET' ? undefined : form ? Buffer.from(new URLSearchParams(Object.fromEntries(fields.map((f) => [f, randomText(r, 6)]))).toString()) : randomBody(r, fields);
    const contentType = form ? 'application/x-www-form-urlencoded' : r.pick(['application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded']);
    return { method, path: `${path}${query}`, headers: { ...authHeaders(r, token), ...(body === undefined ? {} : { 'content-type': contentType }) }, body };
  });
}

function rpcPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

function connectCases(r: Random, token: string): HttpCase[] {
  return Array.from({ length: REQUESTS_PER_TRANSPORT }, () => {
    const method = r.pick(METHODS);
    const binary = r.int(3) === 0;
    const body = binary ? randomBytes(r) : randomBody(r, fieldNamesOf(method));
    return { method: 'POST', path: rpcPath(method), headers: { ...authHeaders(r, token), 'content-type': binary ? 'application/proto' : 'application/json' }, body };
  });
}

function grpcWebCases(r: Random, token: string): HttpCase[] {
  return Array.from({ length: REQUESTS_PER_TRANSPORT }, () => {
    const method = r.pick(METHODS);
    const mode = r.pick(['binary', 'json', 'text'] as const);
    const payload = mode === 'json' ? randomBody(r, fieldNamesOf(method)) : randomBytes(r);
    const framed = r.int(6) === 0 ? randomBytes(r) : frame(r.int(8) === 0 ? 0x80 : 0, payload, r.int(8) === 0);
    const contentType = { binary: 'application/grpc-web+proto', json: 'application/grpc-web+json', text: 'application/grpc-web-text' }[mode];
    const body = mode === 'text' ? Buffer.from(r.int(6) === 0 ? randomText(r) : framed.toString('base64')) : framed;
    return { method: 'POST', path: rpcPath(method), headers: { ...authHeaders(r, token), 'content-type': contentType, 'x-grpc-web': '1' }, body };
  });
}

function grpcCases(r: Random, token: string): GrpcCase[] {
  // Health/Watch is left out: a well-formed Watch streams for as long as the node serves, by design.
  const paths = [...METHODS.map(rpcPath), '/grpc.health.v1.Health/Check', '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo'];
  return Array.from({ length: REQUESTS_PER_TRANSPORT }, () => {
    const json = r.int(4) === 0;
    const payload = json ? randomBody(r, []) : randomBytes(r);
    const body = r.int(6) === 0 ? randomBytes(r) : frame(0, payload, r.int(8) === 0);
    return { path: r.pick(paths), headers: { ...authHeaders(r, token), 'content-type': json ? 'application/grpc+json' : 'application/grpc' }, body };
  });
}

interface Outcome {
  readonly label: string;
  readonly status: string;
}

function sendHttp(node: TestNode, c: HttpCase): Promise<Outcome> {
  const label = `${c.method} ${c.path.slice(0, 120)} ${c.headers['content-type'] ?? ''}`;
  return new Promise((resolve) => {
    const sent = httpRequest({ host: '127.0.0.1', port: node.httpPort, method: c.method, path: c.path, headers: { host: `localhost:${node.httpPort}`, ...c.headers, ...(c.body === undefined ? {} : { 'content-length': String(c.body.length) }) } }, (response) => {
      const grpcStatus = response.headers['grpc-status'];
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        const trailer = /grpc-status: ?(\d+)/.exec(Buffer.concat(chunks).toString('latin1'));
        const text = /grpc-status: ?(\d+)/.exec(c.headers['content-type'] === 'application/grpc-web-text' ? Buffer.from(Buffer.concat(chunks).toString(), 'base64').toString('latin1') : '');
        resolve({ label, status: `${response.statusCode}/${grpcStatus ?? trailer?.[1] ?? text?.[1] ?? '-'}` });
      });
    });
    const timer = setTimeout(() => {
      sent.destroy();
      resolve({ label, status: 'timeout' });
    }, ANSWER_WITHIN_MS);
    sent.on('error', (error) => {
      clearTimeout(timer);
      resolve({ label, status: `error ${(error as NodeJS.ErrnoException).code ?? error.message}` });
    });
    sent.end(c.body);
  });
}

function sendGrpc(session: ClientHttp2Session, node: TestNode, c: GrpcCase): Promise<Outcome> {
  const label = `gRPC ${c.path} ${c.headers['content-type']}`;
  return new Promise((resolve) => {
    const stream = session.request({ ':method': 'POST', ':path': c.path, ':authority': `localhost:${node.grpcPort}`, te: 'trailers', ...c.headers });
    const timer = setTimeout(() => {
      stream.close();
      resolve({ label, status: 'timeout' });
    }, ANSWER_WITHIN_MS);
    let status = '-';
    stream.on('response', (headers) => (status = String(headers['grpc-status'] ?? status)));
    stream.on('trailers', (trailers) => (status = String(trailers['grpc-status'] ?? status)));
    stream.on('data', () => undefined);
    stream.on('close', () => {
      clearTimeout(timer);
      resolve({ label: `${label} rst=${stream.rstCode} body=${c.body.subarray(0, 16).toString('hex')}`, status: `grpc/${status}` });
    });
    stream.on('error', () => undefined);
    stream.end(c.body);
  });
}

async function runAll<T>(cases: readonly T[], send: (c: T) => Promise<Outcome>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < cases.length) outcomes.push(await send(cases[next++] as T));
  }));
  return outcomes;
}

/** A server error: 5xx, gRPC INTERNAL / UNKNOWN / DATA_LOSS, no answer, or a stream reset without a status. */
function isFailure(outcome: Outcome): boolean {
  if (outcome.status === 'timeout' || outcome.status.startsWith('error')) return true;
  const [http, grpc] = outcome.status.split('/');
  if (http !== 'grpc' && Number(http) >= 500) return true;
  return grpc === '2' || grpc === '13' || grpc === '15' || (http === 'grpc' && grpc === '-');
}

let node: TestNode;
beforeAll(async () => {
  console.log(`fuzz seed ${SEED} (replay: TESSERA_FUZZ_SEED=${SEED})`);
  node = await startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api,multitenancy_settings' } });
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe(`fuzz (seed ${SEED})`, () => {
  it('JSON/HTTP routes and protocol endpoints: every request answered, no 5xx', async () => {
    const outcomes = await runAll(jsonCases(createRandom(SEED), node.adminToken), (c) => sendHttp(node, c));
    expect(outcomes.filter(isFailure), `seed ${SEED}`).toEqual([]);
    expect(outcomes.filter((o) => o.status.startsWith('2')).length, 'some requests succeed (positive control)').toBeGreaterThan(0);
  });

  it('Connect: every request answered, no 5xx', async () => {
    const outcomes = await runAll(connectCases(createRandom(SEED + 1), node.adminToken), (c) => sendHttp(node, c));
    expect(outcomes.filter(isFailure), `seed ${SEED}`).toEqual([]);
  });

  it('gRPC-web (binary, JSON, text): every request answered, no 5xx nor INTERNAL', async () => {
    const outcomes = await runAll(grpcWebCases(createRandom(SEED + 2), node.adminToken), (c) => sendHttp(node, c));
    expect(outcomes.filter(isFailure), `seed ${SEED}`).toEqual([]);
  });

  it('gRPC port: every stream answered with a status, none INTERNAL', async () => {
    const session = http2Connect(`http://127.0.0.1:${node.grpcPort}`);
    try {
      const outcomes = await runAll(grpcCases(createRandom(SEED + 3), node.adminToken), (c) => sendGrpc(session, node, c));
      expect(outcomes.filter(isFailure), `seed ${SEED}`).toEqual([]);
    } finally {
      session.close();
    }
  });

  it('the failure check itself catches what it must (negative control)', () => {
    expect([{ label: '', status: '500/-' }, { label: '', status: 'timeout' }, { label: '', status: 'grpc/13' }, { label: '', status: '200/2' }, { label: '', status: 'grpc/-' }].every(isFailure)).toBe(true);
    expect([{ label: '', status: '400/-' }, { label: '', status: '200/3' }, { label: '', status: 'grpc/16' }].some(isFailure)).toBe(false);
  });
});
