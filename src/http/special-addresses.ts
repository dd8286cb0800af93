/**
 * The verdict of the outbound policy on every special-purpose address range, after the IANA
 * IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 §2.2.2/§2.2.3 and their updates;
 * iana.org/assignments/iana-ipv4-special-registry, .../iana-ipv6-special-registry, as of 2024-10):
 * a range the registry marks "globally reachable: false" is refused; multicast (RFC 5771,
 * RFC 4291 §2.7) and every IPv6 address outside global unicast 2000::/3 too. IPv6 forms that
 * embed an IPv4 address (mapped, compatible, SIIT, NAT64, 6to4, Teredo) get the verdict of
 * the IPv4 address they lead to. Longest prefix wins. docs/security.md lists this table.
 */

export type AddressVerdict = 'allowed' | 'refused' | 'embedded';

/** How an `embedded` range carries its IPv4 address. */
export type Embedding = 'last32' | 'sixToFour' | 'teredo';

export interface AddressRange {
  readonly network: string;
  readonly prefix: number;
  readonly name: string;
  readonly reference: string;
  readonly verdict: AddressVerdict;
  readonly embedding?: Embedding;
}

const range = (network: string, prefix: number, name: string, reference: string, verdict: AddressVerdict, embedding?: Embedding): AddressRange =>
  embedding === undefined ? { network, prefix, name, reference, verdict } : { network, prefix, name, reference, verdict, embedding };

/** IPv4: the special-purpose registry, plus multicast. Anything else is public. */
export const IPV4_RANGES: readonly AddressRange[] = [
  range('0.0.0.0', 8, '"This network"', 'RFC 791', 'refused'),
  range('0.0.0.0', 32, '"This host on this network"', 'RFC 1122', 'refused'),
  range('10.0.0.0', 8, 'Private-Use', 'RFC 1918', 'refused'),
  range('100.64.0.0', 10, 'Shared Address Space (carrier-grade NAT)', 'RFC 6598', 'refused'),
  range('127.0.0.0', 8, 'Loopback', 'RFC 1122', 'refused'),
  range('169.254.0.0', 16, 'Link Local (cloud metadata endpoints)', 'RFC 3927', 'refused'),
  range('172.16.0.0', 12, 'Private-Use', 'RFC 1918', 'refused'),
  range('192.0.0.0', 24, 'IETF Protocol Assignments', 'RFC 6890', 'refused'),
  range('192.0.0.0', 29, 'IPv4 Service Continuity Prefix', 'RFC 7335', 'refused'),
  range('192.0.0.8', 32, 'IPv4 dummy address', 'RFC 7600', 'refused'),
  range('192.0.0.9', 32, 'Port Control Protocol Anycast', 'RFC 7723', 'allowed'),
  range('192.0.0.10', 32, 'Traversal Using Relays around NAT Anycast', 'RFC 8155', 'allowed'),
  range('192.0.0.170', 32, 'NAT64/DNS64 Discovery', 'RFC 7050', 'refused'),
  range('192.0.0.171', 32, 'NAT64/DNS64 Discovery', 'RFC 7050', 'refused'),
  range('192.0.2.0', 24, 'Documentation (TEST-NET-1)', 'RFC 5737', 'refused'),
  range('192.31.196.0', 24, 'AS112-v4', 'RFC 7535', 'allowed'),
  range('192.52.193.0', 24, 'AMT', 'RFC 7450', 'allowed'),
  range('192.88.99.0', 24, 'Deprecated (6to4 Relay Anycast)', 'RFC 7526', 'refused'),
  range('192.168.0.0', 16, 'Private-Use', 'RFC 1918', 'refused'),
  range('192.175.48.0', 24, 'Direct Delegation AS112 Service', 'RFC 7534', 'allowed'),
  range('198.18.0.0', 15, 'Benchmarking', 'RFC 2544', 'refused'),
  range('198.51.100.0', 24, 'Documentation (TEST-NET-2)', 'RFC 5737', 'refused'),
  range('203.0.113.0', 24, 'Documentation (TEST-NET-3)', 'RFC 5737', 'refused'),
  range('224.0.0.0', 4, 'Multicast', 'RFC 5771', 'refused'),
  range('240.0.0.0', 4, 'Reserved', 'RFC 1112', 'refused'),
  range('255.255.255.255', 32, 'Limited Broadcast', 'RFC 919', 'refused'),
];

/** IPv6: the special-purpose registry, the embedded-IPv4 forms, and everything outside 2000::/3. */
export const IPV6_RANGES: readonly AddressRange[] = [
  range('::', 0, 'Not global unicast (reserved by IETF)', 'RFC 4291 §2.4', 'refused'),
  range('2000::', 3, 'Global Unicast', 'RFC 4291 §2.4', 'allowed'),
  range('::', 128, 'Unspecified Address', 'RFC 4291', 'refused'),
  range('::1', 128, 'Loopback Address', 'RFC 4291', 'refused'),
  range('::', 96, 'IPv4-compatible (deprecated)', 'RFC 4291 §2.5.5.1', 'embedded', 'last32'),
  range('::ffff:0:0', 96, 'IPv4-mapped Address', 'RFC 4291 §2.5.5.2', 'embedded', 'last32'),
  range('::ffff:0:0:0', 96, 'IPv4-translated (SIIT)', 'RFC 2765 §2.1', 'embedded', 'last32'),
  range('64:ff9b::', 96, 'IPv4-IPv6 Translat. (NAT64 well-known prefix)', 'RFC 6052', 'embedded', 'last32'),
  range('64:ff9b:1::', 48, 'IPv4-IPv6 Translat. (local use)', 'RFC 8215', 'refused'),
  range('100::', 64, 'Discard-Only Address Block', 'RFC 6666', 'refused'),
  range('100:0:0:1::', 64, 'Dummy IPv6 Prefix', 'RFC 9780', 'refused'),
  range('2001::', 23, 'IETF Protocol Assignments', 'RFC 2928', 'refused'),
  range('2001::', 32, 'TEREDO', 'RFC 4380', 'embedded', 'teredo'),
  range('2001:1::1', 128, 'Port Control Protocol Anycast', 'RFC 7723', 'allowed'),
  range('2001:1::2', 128, 'Traversal Using Relays around NAT Anycast', 'RFC 8155', 'allowed'),
  range('2001:1::3', 128, 'DNS-SD Service Registration Protocol Anycast', 'RFC 9665', 'allowed'),
  range('2001:2::', 48, 'Benchmarking', 'RFC 5180', 'refused'),
  range('2001:3::', 32, 'AMT', 'RFC 7450', 'allowed'),
  range('2001:4:112::', 48, 'AS112-v6', 'RFC 7535', 'allowed'),
  range('2001:10::', 28, 'Deprecated (previously ORCHID)', 'RFC 4843', 'refused'),
  range('2001:20::', 28, 'ORCHIDv2', 'RFC 7343', 'allowed'),
  range('2001:30::', 28, 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', 'RFC 9374', 'allowed'),
  range('2001:db8::', 32, 'Documentation', 'RFC 3849', 'refused'),
  range('2002::', 16, '6to4', 'RFC 3056', 'embedded', 'sixToFour'),
  range('2620:4f:8000::', 48, 'Direct Delegation AS112 Service', 'RFC 7534', 'allowed'),
  range('3fff::', 20, 'Documentation', 'RFC 9637', 'refused'),
  range('5f00::', 16, 'Segment Routing (SRv6) SIDs', 'RFC 9602', 'refused'),
  range('fc00::', 7, 'Unique-Local', 'RFC 4193', 'refused'),
  range('fe80::', 10, 'Link-Local Unicast', 'RFC 4291', 'refused'),
  range('fec0::', 10, 'Site-Local (deprecated)', 'RFC 3879', 'refused'),
  range('ff00::', 8, 'Multicast', 'RFC 4291 §2.7', 'refused'),
];

// --- parsing -------------------------------------------------------------------------------

/** A dotted quad as a 32-bit number; undefined when malformed. */
export function parseIpv4(address: string): number | undefined {
  const parts = address.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

/** An IPv6 address (`::`, a trailing dotted quad and a `%zone` allowed) as a 128-bit bigint. */
export function parseIpv6(address: string): bigint | undefined {
  const zone = address.indexOf('%');
  const text = zone === -1 ? address : address.slice(0, zone);
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    const pieces = half.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (v4 === undefined) return undefined;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        out.push(parseInt(piece, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = groups(halves[0] as string); // split always yields a first element
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  let value = 0n;
  for (const group of [...head, ...new Array<number>(missing).fill(0), ...tail]) value = (value << 16n) | BigInt(group);
  return value;
}

// --- classification ------------------------------------------------------------------------

interface Compiled<T> {
  readonly range: AddressRange;
  readonly network: T;
}

const ipv4Table: readonly Compiled<number>[] = IPV4_RANGES.map((r) => ({ range: r, network: parseIpv4(r.network) as number }));
const ipv6Table: readonly Compiled<bigint>[] = IPV6_RANGES.map((r) => ({ range: r, network: parseIpv6(r.network) as bigint }));

function longestMatch<T>(table: readonly Compiled<T>[], matches: (entry: Compiled<T>) => boolean): AddressRange | undefined {
  let best: AddressRange | undefined;
  for (const entry of table) if (matches(entry) && (best === undefined || entry.range.prefix > best.prefix)) best = entry.range;
  return best;
}

/** The most specific IPv4 range holding `address` (undefined: an ordinary public address). */
export function ipv4RangeOf(address: number): AddressRange | undefined {
  return longestMatch(ipv4Table, ({ range: r, network }) => r.prefix === 0 || Math.floor(address / 2 ** (32 - r.prefix)) === Math.floor(network / 2 ** (32 - r.prefix)));
}

/** The most specific IPv6 range holding `address` (the table covers all of ::/0). */
export function ipv6RangeOf(address: bigint): AddressRange {
  const found = longestMatch(ipv6Table, ({ range: r, network }) => address >> BigInt(128 - r.prefix) === network >> BigInt(128 - r.prefix));
  return found as AddressRange; // '::/0' matches every address
}

/** The IPv4 address an embedding range leads to. */
export function embeddedIpv4(address: bigint, embedding: Embedding): number {
  switch (embedding) {
    case 'last32':
      return Number(address & 0xffffffffn);
    case 'sixToFour':
      return Number((address >> 80n) & 0xffffffffn); // 2002:AABB:CCDD::/48
    case 'teredo':
      return Number(~address & 0xffffffffn); // the client address, obfuscated by inversion (RFC 4380 §4)
  }
}

/** True when the policy lets the node connect to `address` (IPv4 or IPv6 text) by default. */
export function isAllowedAddress(address: string): boolean {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return ipv4RangeOf(v4)?.verdict !== 'refused';
  const v6 = parseIpv6(address);
  if (v6 === undefined) return false;
  const found = ipv6RangeOf(v6);
  if (found.verdict !== 'embedded') return found.verdict === 'allowed';
  return ipv4RangeOf(embeddedIpv4(v6, found.embedding as Embedding))?.verdict !== 'refused'; // embedded ranges name their embedding
}
