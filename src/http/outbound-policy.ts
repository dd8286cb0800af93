/**
 * Which addresses the node may connect to for URLs tenants configure: execution targets and
 * identity providers (discovery, token, userinfo). The node calls them from inside the
 * operator's network: without a rule, a tenant could reach the node's loopback services, the
 * cloud metadata endpoint or the private network (server-side request forgery). By default
 * only public unicast addresses are allowed; `TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`
 * lifts the rule (one trusted tenant, services next to the node, development).
 *
 * The rule is applied to the address actually connected to: host names are checked after DNS
 * resolution, inside the connection's lookup, so a name that resolves differently later (DNS
 * rebinding) cannot slip past a check made earlier. Redirects are never followed.
 */
import { clientSpan } from '../observability/tracing.js';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isAllowedAddress } from './special-addresses.js';

export interface OutboundPolicy {
  /** Allow loopback, private, link-local and other non-public addresses. */
  readonly allowPrivateNetworks: boolean;
}

export const PUBLIC_ONLY: OutboundPolicy = Object.freeze({ allowPrivateNetworks: false });

/**
 * True when the address (IPv4 or IPv6 text) may be connected to by default: a public unicast
 * address, or an IPv6 form embedding one. The ranges and their verdicts: special-addresses.ts.
 */
export function isPublicAddress(address: string): boolean {
  return isAllowedAddress(address);
}

/** Raised when a target's address is not allowed (the call never connects). */
export class OutboundAddressRefused extends Error {
  constructor(readonly address: string) {
    super(`the address ${address} is not public (TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS is off)`);
    this.name = 'OutboundAddressRefused';
  }
}

/** Throws for a literal IP host the policy refuses (connections to literals skip DNS lookup). */
export function checkLiteralHost(hostname: string, policy: OutboundPolicy): void {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (!policy.allowPrivateNetworks && isIP(host) !== 0 && !isPublicAddress(host)) throw new OutboundAddressRefused(host);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http(s).request that refuses non-public results (all of them must pass). */
export function guardedLookup(policy: OutboundPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err !== null) return callback(err, []);
      const refused = policy.allowPrivateNetworks ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused !== undefined) return callback(Object.assign(new OutboundAddressRefused(refused.address), { code: 'ETARGETREFUSED' }), []);
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0];
      if (first === undefined) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Connection pools per policy: a kept-alive socket was checked when it connected, and must
 * never serve a request made under a stricter policy (the shared global agent would).
 */
const agents = new WeakMap<OutboundPolicy, { readonly http: HttpAgent; readonly https: HttpsAgent }>();

function agentsOf(policy: OutboundPolicy) {
  let pair = agents.get(policy);
  if (pair === undefined) {
    const lookup = guardedLookup(policy);
    pair = { http: new HttpAgent({ keepAlive: true, lookup }), https: new HttpsAgent({ keepAlive: true, lookup }) };
    agents.set(policy, pair);
  }
  return pair;
}

export interface OutboundRequest {
  readonly method: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

/** Sends one request where the policy allows (never following redirects); resolves with the response head. */
export function outboundRequest(url: string, request: OutboundRequest, policy: OutboundPolicy): Promise<IncomingMessage> {
  const target = new URL(url);
  checkLiteralHost(target.hostname, policy);
  const https = target.protocol === 'https:';
  const pool = agentsOf(policy);
  return clientSpan(request.method, target, (traceHeaders, span) => {
    const headers = { ...request.headers, ...traceHeaders, ...(request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.body)) }) };
    return new Promise<IncomingMessage>((resolve, reject) => {
      const options = { method: request.method, headers, lookup: guardedLookup(policy), ...(request.signal === undefined ? {} : { signal: request.signal }) };
      const answered = (response: IncomingMessage) => {
        span.setAttribute('http.response.status_code', response.statusCode ?? 0);
        resolve(response);
      };
      const sent = https ? httpsRequest(target, { ...options, agent: pool.https }, answered) : httpRequest(target, { ...options, agent: pool.http }, answered);
      sent.on('error', reject);
      sent.end(request.body);
    });
  });
}

/** The body of a response, refused once it grows beyond `maxBytes` (`tooLarge` makes the error). */
export async function readBody(response: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * A `fetch` for clients that take one (oauth4webapi's customFetch) that connects only where the
 * policy allows: no redirects, the answer read up to `maxBytes` into a standard Response.
 */
export function guardedFetch(policy: OutboundPolicy, maxBytes = 1 << 20) {
  return async (url: string, options: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: unknown; readonly signal?: AbortSignal }): Promise<Response> => {
    const body = options.body === undefined || options.body === null ? undefined : String(options.body);
    const response = await outboundRequest(url, { method: options.method ?? 'GET', ...(options.headers === undefined ? {} : { headers: options.headers }), ...(body === undefined ? {} : { body }), ...(options.signal === undefined ? {} : { signal: options.signal }) }, policy);
    const content = await readBody(response, maxBytes, () => new Error(`the answer of ${new URL(url).origin} is larger than ${maxBytes} bytes`));
    const status = response.statusCode ?? 502;
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const nullBody = status === 204 || status === 304 || (status >= 100 && status < 200);
    return new Response(nullBody ? null : content, { status, headers });
  };
}
