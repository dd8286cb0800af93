/**
 * Which addresses targets may be called at. Targets are URLs an instance administrator types
 * in, and the node calls them from inside the operator's network: without a rule, a tenant
 * could reach the node's loopback services, the cloud metadata endpoint or the private network
 * (server-side request forgery). By default only public unicast addresses are allowed;
 * `TESSERA_TARGET_ALLOW_PRIVATE_NETWORKS=true` lifts the rule (one trusted tenant, webhooks to
 * services next to the node, development).
 *
 * The rule is applied to the address actually connected to: host names are checked after DNS
 * resolution, inside the connection's lookup, so a name that resolves differently later (DNS
 * rebinding) cannot slip past a check made earlier.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

export interface TargetNetworkPolicy {
  /** Allow loopback, private, link-local and other non-public addresses. */
  readonly allowPrivateNetworks: boolean;
}

export const PUBLIC_ONLY: TargetNetworkPolicy = Object.freeze({ allowPrivateNetworks: false });

/** Special-purpose ranges (RFC 6890 and successors) a target must never reach by default. */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** True when the address (IPv4, IPv6, or IPv4-mapped IPv6) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped !== null) return isPublicAddress(mapped[1]!);
    return !NON_PUBLIC.check(address, 'ipv6');
  }
  return !NON_PUBLIC.check(address, 'ipv4');
}

/** Raised when a target's address is not allowed (the call never connects). */
export class TargetAddressRefused extends Error {
  constructor(readonly address: string) {
    super(`the target resolves to ${address}, a non-public address (TESSERA_TARGET_ALLOW_PRIVATE_NETWORKS is off)`);
    this.name = 'TargetAddressRefused';
  }
}

/** Throws for a literal IP host the policy refuses (connections to literals skip DNS lookup). */
export function checkLiteralHost(hostname: string, policy: TargetNetworkPolicy): void {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (!policy.allowPrivateNetworks && isIP(host) !== 0 && !isPublicAddress(host)) throw new TargetAddressRefused(host);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http(s).request that refuses non-public results (all of them must pass). */
export function guardedLookup(policy: TargetNetworkPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err !== null) return callback(err, []);
      const refused = policy.allowPrivateNetworks ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused !== undefined) return callback(Object.assign(new TargetAddressRefused(refused.address), { code: 'ETARGETREFUSED' }), []);
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0];
      if (first === undefined) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
