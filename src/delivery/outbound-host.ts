/**
 * The outbound policy (http/outbound-policy.ts) for hosts that are not reached through the
 * HTTP helper, i.e. SMTP servers: a host is resolved here, every address it resolves to must be
 * allowed, and the connection then goes to that checked address (so a later DNS answer cannot
 * slip past the check). `checkConfiguredHost` applies the same rule when a provider is saved.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress, OutboundAddressRefused, type OutboundPolicy } from '../http/outbound-policy.js';

function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The address to connect to for `host`, or OutboundAddressRefused (DNS errors pass through). */
export async function resolveAllowed(host: string, policy: OutboundPolicy): Promise<string> {
  const name = bare(host);
  if (isIP(name) !== 0) {
    if (!policy.allowPrivateNetworks && !isPublicAddress(name)) throw new OutboundAddressRefused(name);
    return name;
  }
  const addresses = await lookup(name, { all: true });
  const refused = policy.allowPrivateNetworks ? undefined : addresses.find((a) => !isPublicAddress(a.address));
  if (refused !== undefined) throw new OutboundAddressRefused(refused.address);
  const first = addresses[0];
  if (first === undefined) throw Object.assign(new Error(`no address for ${name}`), { code: 'ENOTFOUND' });
  return first.address;
}

/**
 * When a provider is created or patched: the refused address when the host is (or resolves to)
 * a non-public address the policy does not allow; undefined otherwise. A name that does not
 * resolve now is accepted (it is checked again at every delivery).
 */
export async function refusedAddress(host: string, policy: OutboundPolicy): Promise<string | undefined> {
  if (policy.allowPrivateNetworks) return undefined;
  try {
    await resolveAllowed(host, policy);
    return undefined;
  } catch (error) {
    return error instanceof OutboundAddressRefused ? error.address : undefined;
  }
}
