/**
 * JWKS: `GET /oauth/v2/keys` (seed 001 "Endpoint addresses", RFC 7517 §5, reference facts §5.7):
 * the public keys of the instance's next, active and retired web keys, each with kid, kty, alg
 * and use "sig". Cacheable for 5 minutes, revalidated with its ETag (304, RFC 9110 §13.1.2).
 */
import type { TenantDirectory } from '../query/tenant.js';
import type { PublishedKeySet } from '../crypto/key-ring.js';
import type { Signer } from '../crypto/signer.js';
import type { Route } from '../http/router.js';
import type { HttpReply, HttpRequest, WholeReply } from '../http/types.js';
import { knownUsableInstance, requireInstance, withErrorReplies } from './shared/endpoint.js';

export const KEYS_PATH = '/oauth/v2/keys';
const CACHE_CONTROL = 'max-age=300, must-revalidate';

export interface KeysDeps {
  readonly tenants: TenantDirectory;
  readonly signer: Signer;
}

export function keysRoute(deps: KeysDeps): Route {
  return { method: 'GET', pattern: KEYS_PATH, handler: withErrorReplies((req) => handleKeys(req, deps)), immediate: (req) => heldKeys(req, deps) };
}

async function handleKeys(req: HttpRequest, deps: KeysDeps): Promise<HttpReply> {
  const instance = await requireInstance(deps.tenants, req);
  return keysReply(req, await deps.signer.publishedKeys(instance.id));
}

/** The same reply when the Host's instance is known and its ring held: answered before admission (router.ts `immediateRoutes`). */
function heldKeys(req: HttpRequest, deps: KeysDeps): WholeReply | undefined {
  const instance = knownUsableInstance(deps.tenants, req);
  const keySet = instance === undefined ? undefined : deps.signer.heldPublishedKeys?.(instance.id);
  return keySet === undefined ? undefined : keysReply(req, keySet);
}

function keysReply(req: HttpRequest, keySet: PublishedKeySet): WholeReply {
  return isNotModified(req.headers['if-none-match'], keySet.etag) ? notModified(keySet) : keySetReply(keySet);
}

/** Replies per key set (bytes, headers, ETag), built once when the ring changes: the hot path is a lookup and a write. */
const replies = new WeakMap<PublishedKeySet, { ok: WholeReply; notModified: WholeReply }>();

function repliesOf(keySet: PublishedKeySet): { ok: WholeReply; notModified: WholeReply } {
  let built = replies.get(keySet);
  if (built === undefined) {
    const headers = { 'cache-control': CACHE_CONTROL, etag: keySet.etag };
    built = {
      ok: { status: 200, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(keySet.body, 'utf8') },
      notModified: { status: 304, headers },
    };
    replies.set(keySet, built);
  }
  return built;
}

const keySetReply = (keySet: PublishedKeySet): WholeReply => repliesOf(keySet).ok;
const notModified = (keySet: PublishedKeySet): WholeReply => repliesOf(keySet).notModified;

/** If-None-Match with weak comparison (RFC 9110 §13.1.2): `*` or any listed tag equal to ours. */
export function isNotModified(header: string | undefined, etag: string): boolean {
  if (header === undefined || header === '') return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return (t.startsWith('W/') ? t.slice(2) : t) === etag;
  });
}
