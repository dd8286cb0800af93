/**
 * The outbound policy's verdict on every range of the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries (RFC 6890 and updates, registry state of 2024-10), written out here by
 * hand from the registries' "globally reachable" column, and on IPv6 forms embedding IPv4
 * (issue #12 item 6): they get the verdict of the IPv4 address they lead to.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkLiteralHost, isPublicAddress, OutboundAddressRefused, PUBLIC_ONLY } from '../../src/http/outbound-policy.js';
import { IPV4_RANGES, IPV6_RANGES, parseIpv6 } from '../../src/http/special-addresses.js';

/** [a first and a last address of the block, verdict]: true = may be connected to. */
const ipv4Registry: [string, string, boolean][] = [
  ['0.0.0.0', '0.255.255.255', false], // "This network"
  ['10.0.0.0', '10.255.255.255', false], // Private-Use
  ['100.64.0.0', '100.127.255.255', false], // Shared Address Space
  ['127.0.0.0', '127.255.255.255', false], // Loopback
  ['169.254.0.0', '169.254.255.255', false], // Link Local
  ['172.16.0.0', '172.31.255.255', false], // Private-Use
  ['192.0.0.0', '192.0.0.7', false], // IETF Protocol Assignments, IPv4 Service Continuity Prefix
  ['192.0.0.8', '192.0.0.8', false], // IPv4 dummy address
  ['192.0.0.9', '192.0.0.9', true], // Port Control Protocol Anycast (globally reachable)
  ['192.0.0.10', '192.0.0.10', true], // TURN Anycast (globally reachable)
  ['192.0.0.11', '192.0.0.169', false], // rest of IETF Protocol Assignments
  ['192.0.0.170', '192.0.0.171', false], // NAT64/DNS64 Discovery
  ['192.0.0.172', '192.0.0.255', false],
  ['192.0.2.0', '192.0.2.255', false], // TEST-NET-1
  ['192.31.196.0', '192.31.196.255', true], // AS112-v4
  ['192.52.193.0', '192.52.193.255', true], // AMT
  ['192.88.99.0', '192.88.99.255', false], // Deprecated 6to4 Relay Anycast
  ['192.168.0.0', '192.168.255.255', false], // Private-Use
  ['192.175.48.0', '192.175.48.255', true], // Direct Delegation AS112 Service
  ['198.18.0.0', '198.19.255.255', false], // Benchmarking
  ['198.51.100.0', '198.51.100.255', false], // TEST-NET-2
  ['203.0.113.0', '203.0.113.255', false], // TEST-NET-3
  ['224.0.0.0', '239.255.255.255', false], // Multicast
  ['240.0.0.0', '255.255.255.254', false], // Reserved
  ['255.255.255.255', '255.255.255.255', false], // Limited Broadcast
  // positive controls: ordinary public addresses, right next to special blocks
  ['8.8.8.8', '1.1.1.1', true],
  ['9.255.255.255', '11.0.0.0', true],
  ['100.63.255.255', '100.128.0.0', true],
  ['172.15.255.255', '172.32.0.0', true],
  ['192.0.1.255', '192.0.3.0', true],
  ['198.17.255.255', '198.20.0.0', true],
  ['203.0.112.255', '203.0.114.0', true],
  ['223.255.255.255', '223.255.255.255', true],
];

const ipv6Registry: [string, string, boolean][] = [
  ['::1', '::1', false], // Loopback
  ['::', '::', false], // Unspecified
  ['100::', '100::ffff:ffff:ffff:ffff', false], // Discard-Only
  ['100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff', false], // Dummy IPv6 Prefix
  ['64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', false], // local-use NAT64 (not globally reachable)
  ['2001:4::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', false], // IETF Protocol Assignments
  ['2001:1::', '2001:1::', false],
  ['2001:1::1', '2001:1::1', true], // PCP Anycast
  ['2001:1::2', '2001:1::2', true], // TURN Anycast
  ['2001:1::3', '2001:1::3', true], // DNS-SD SRP Anycast
  ['2001:1::4', '2001:1:ffff::', false],
  ['2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff', false], // Benchmarking
  ['2001:3::', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff', true], // AMT
  ['2001:4:112::', '2001:4:112:ffff:ffff:ffff:ffff:ffff', true], // AS112-v6
  ['2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff', false], // Deprecated ORCHID
  ['2001:20::', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff', true], // ORCHIDv2
  ['2001:30::', '2001:3f:ffff:ffff:ffff:ffff:ffff:ffff', true], // Drone Remote ID DETs
  ['2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', false], // Documentation
  ['2620:4f:8000::', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff', true], // Direct Delegation AS112
  ['3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', false], // Documentation
  ['5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false], // SRv6 SIDs
  ['fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false], // Unique-Local
  ['fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false], // Link-Local
  ['fe80::1%eth0', 'fe80::1%1', false], // with a zone
  ['fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false], // Site-Local (deprecated)
  ['ff00::', 'ff02::1', false], // Multicast
  ['4000::', 'e000::', false], // outside global unicast 2000::/3
  // positive controls: global unicast
  ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', true],
  ['2000::', '3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
  ['2001:db7:ffff::', '2001:db9::', true],
];

/** Every way IPv6 embeds an IPv4 address, as a function of the dotted quad. */
const embeddings: [string, (v4: string) => string][] = [
  ['IPv4-mapped', (v4) => `::ffff:${v4}`],
  ['IPv4-mapped (hex)', (v4) => `::ffff:${hex(v4)}`],
  ['IPv4-compatible', (v4) => `::${v4}`],
  ['SIIT', (v4) => `::ffff:0:${v4}`],
  ['NAT64', (v4) => `64:ff9b::${v4}`],
  ['NAT64 (hex)', (v4) => `64:ff9b::${hex(v4)}`],
  ['6to4', (v4) => `2002:${hex(v4)}::1`],
  ['Teredo', (v4) => `2001:0:4136:e378:8000:63bf:${hex(v4, true)}`],
];

function hex(v4: string, inverted = false): string {
  const bytes = v4.split('.').map(Number).map((b) => (inverted ? 255 - b : b));
  const word = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
  return `${word(bytes[0]!, bytes[1]!)}:${word(bytes[2]!, bytes[3]!)}`;
}

describe('IPv4 special-purpose registry', () => {
  it.each(ipv4Registry)('%s … %s → allowed: %s', (first, last, allowed) => {
    expect(isPublicAddress(first)).toBe(allowed);
    expect(isPublicAddress(last)).toBe(allowed);
  });
});

describe('IPv6 special-purpose registry', () => {
  it.each(ipv6Registry)('%s … %s → allowed: %s', (first, last, allowed) => {
    expect(isPublicAddress(first)).toBe(allowed);
    expect(isPublicAddress(last)).toBe(allowed);
  });
});

describe('IPv6 forms embedding IPv4 get the verdict of the IPv4 address', () => {
  const refusedV4 = ipv4Registry.filter(([, , allowed]) => !allowed).flatMap(([first, last]) => [first, last]);
  const allowedV4 = ['8.8.8.8', '1.1.1.1', '192.0.0.9', '203.0.114.7'];
  describe.each(embeddings)('%s', (_name, embed) => {
    it.each(refusedV4)('refuses %s', (v4) => expect(isPublicAddress(embed(v4))).toBe(false));
    it.each(allowedV4)('allows %s', (v4) => expect(isPublicAddress(embed(v4))).toBe(true));
  });

  it('the issue’s example: NAT64 to the metadata endpoint, as a bracketed literal host', () => {
    expect(() => checkLiteralHost('[64:ff9b::a9fe:a9fe]', PUBLIC_ONLY)).toThrow(OutboundAddressRefused);
    expect(() => checkLiteralHost('[64:ff9b::808:808]', PUBLIC_ONLY)).not.toThrow();
  });

  it('Teredo decides on the client (inverted last 32 bits), not the server', () => {
    // server 10.0.0.1 (private), client 8.8.8.8: allowed; server public, client 127.0.0.1: refused
    expect(isPublicAddress(`2001:0:a00:1:0:0:${hex('8.8.8.8', true)}`)).toBe(true);
    expect(isPublicAddress(`2001:0:808:808:0:0:${hex('127.0.0.1', true)}`)).toBe(false);
  });
});

describe('the range table itself', () => {
  it('every network parses and has no host bits beyond its prefix', () => {
    for (const r of IPV6_RANGES) {
      const value = parseIpv6(r.network);
      expect(value, r.network).toBeDefined();
      expect((value! & ((1n << BigInt(128 - r.prefix)) - 1n)) === 0n, `${r.network}/${r.prefix}`).toBe(true);
    }
    for (const r of IPV4_RANGES) {
      const value = r.network.split('.').reduce((acc, b) => acc * 256 + Number(b), 0);
      expect(value % 2 ** (32 - r.prefix), `${r.network}/${r.prefix}`).toBe(0);
    }
  });

  it('rejects malformed literals', () => {
    for (const bad of ['1.2.3', '1.2.3.256', '::1::', '1:2:3:4:5:6:7:8:9', 'g::1', '', '1:2:3:4:5:6:7::8']) expect(isPublicAddress(bad), bad).toBe(false);
  });
});

describe('docs/security.md', () => {
  it('lists every range of the policy with its verdict', () => {
    const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    for (const r of [...IPV4_RANGES, ...IPV6_RANGES]) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${r.network}/${r.prefix}\` |`));
      expect(row, `${r.network}/${r.prefix}`).toBeDefined();
      if (r.verdict !== 'embedded') expect(row).toContain(`| ${r.verdict} |`);
      else expect(row).toContain('decides');
    }
  });
});
