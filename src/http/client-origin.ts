/**
 * The one place the node decides who the client is and which URL it used: the client's
 * address, the scheme and the Host (docs/operations/tls.md). Forwarding headers count only
 * when the peer is a trusted proxy (TESSERA_TRUSTED_PROXIES); walking the hops from the node
 * outwards, every trusted proxy's report is taken until the first untrusted address, which is
 * the client (RFC 7239 §5.2; the same rule for X-Forwarded-For). Without a trusted report the
 * scheme is https on a TLS listener, else TESSERA_EXTERNAL_SECURE decides.
 */
import { BlockList, isIP } from 'node:net';
import { forwardedHops, parseAddress } from './forwarded.js';
import type { HttpHandler, HttpRequest } from './types.js';

export interface ClientOrigin {
  readonly address: string;
  readonly scheme: 'http' | 'https';
  /** The Host the client sent (through trusted proxies); undefined when none. */
  readonly host: string | undefined;
}

export interface OriginOptions {
  /** IPs and CIDR ranges (`10.0.0.0/8`, `::1`) whose forwarding headers are honoured. */
  readonly trustedProxies: readonly string[];
  /** The scheme when no trusted proxy reports one. */
  readonly defaultScheme: 'http' | 'https';
}

type Writable = { -readonly [K in keyof HttpRequest]: HttpRequest[K] };

export type OriginResolver = (peer: string, headers: Readonly<Record<string, string>>) => ClientOrigin;

export function createOriginResolver(options: OriginOptions): OriginResolver {
  const trusted = trustList(options.trustedProxies);
  const scheme = options.defaultScheme;
  if (trusted === undefined) return (peer, headers) => ({ address: peer, scheme, host: headers.host });
  const isTrusted = (address: string) => trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  return (peer, headers) => {
    const origin = { address: peer, scheme, host: headers.host };
    const start = parseAddress(peer);
    if (start === undefined || !isTrusted(start)) return origin;
    const hops = forwardedHops(headers);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] as (typeof hops)[number]; // i is in range
      origin.scheme = hop.proto ?? origin.scheme;
      origin.host = hop.host ?? origin.host;
      if (hop.address === undefined) break; // unknown or hidden: the proxy's own address stays
      origin.address = hop.address;
      if (!isTrusted(hop.address)) break;
    }
    return origin;
  };
}

/**
 * Wraps the node's handler so every request carries its client origin: `remoteAddress`, the
 * `host` header and `scheme` are replaced before any route sees them. Returns the handler
 * itself when there is nothing to decide (no trusted proxies, plain http).
 */
export function withClientOrigin<R = ReturnType<HttpHandler>>(handler: (req: HttpRequest) => R, options: OriginOptions): (req: HttpRequest) => R {
  const { trustedProxies, defaultScheme } = options;
  if (trustedProxies.length === 0) {
    if (defaultScheme === 'http') return handler; // the adapters' default
    return (req) => {
      (req as Writable).scheme = defaultScheme;
      return handler(req);
    };
  }
  const resolve = createOriginResolver(options);
  return (req) => {
    const origin = resolve(req.remoteAddress, req.headers);
    const writable = req as Writable;
    writable.remoteAddress = origin.address;
    writable.scheme = origin.scheme;
    if (origin.host !== undefined) (req.headers as Record<string, string>).host = origin.host;
    return handler(req);
  };
}

/** A BlockList of the entries; undefined when empty. Entries are validated by the config schema. */
function trustList(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}
