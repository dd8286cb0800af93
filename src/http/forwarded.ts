/**
 * Reads the hops proxies report: `Forwarded` (RFC 7239 §4–§5: elements `for`, `proto`, `host`)
 * or, when absent, `X-Forwarded-For` / `-Proto` / `-Host`. Hops are listed client side first;
 * the de-facto headers are aligned from the right (each proxy appends its entry, and one that
 * overwrites `-Proto` / `-Host` describes the connection it received). Values that do not
 * parse are dropped, never passed on: an address must be an IP, a proto http or https, a host
 * a plain host[:port].
 */
import { isIP } from 'node:net';

export interface ForwardedHop {
  /** The address this hop's proxy received the request from; undefined when unknown or hidden. */
  readonly address: string | undefined;
  readonly proto: 'http' | 'https' | undefined;
  readonly host: string | undefined;
}

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** The hops of a request's forwarding headers; empty when it carries none. */
export function forwardedHops(headers: Readonly<Record<string, string>>): ForwardedHop[] {
  const forwarded = headers['forwarded'];
  if (forwarded !== undefined) return parseForwarded(forwarded);
  return parseXForwarded(headers['x-forwarded-for'], headers['x-forwarded-proto'], headers['x-forwarded-host']);
}

/** An IP address without port, brackets or the IPv4-mapped IPv6 prefix; undefined if none. */
export function parseAddress(text: string): string | undefined {
  let value = text.trim();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    value = end === -1 ? '' : value.slice(1, end); // "[v6]:port"
  } else if (value.indexOf(':') === value.lastIndexOf(':') && value.includes('.')) {
    value = value.split(':')[0] ?? ''; // "v4:port"
  }
  if (value.toLowerCase().startsWith('::ffff:') && isIP(value.slice(7)) === 4) value = value.slice(7);
  return isIP(value) === 0 ? undefined : value;
}

function parseProto(text: string | undefined): ForwardedHop['proto'] {
  const value = text?.trim().toLowerCase();
  return value === 'https' || value === 'http' ? value : undefined;
}

function parseHost(text: string | undefined): string | undefined {
  const value = text?.trim();
  return value !== undefined && value.length <= 260 && HOST.test(value) ? value : undefined;
}

/** RFC 7239 §4: `for=a;proto=https, for="[v6]:port";host=x` (quoted strings unquoted). */
function parseForwarded(header: string): ForwardedHop[] {
  return splitList(header).map((element) => {
    const pairs = new Map<string, string>();
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=');
      if (eq === -1) continue;
      pairs.set(pair.slice(0, eq).trim().toLowerCase(), unquote(pair.slice(eq + 1).trim()));
    }
    const address = pairs.get('for');
    return { address: address === undefined ? undefined : parseAddress(address), proto: parseProto(pairs.get('proto')), host: parseHost(pairs.get('host')) };
  });
}

function parseXForwarded(forFor: string | undefined, proto: string | undefined, host: string | undefined): ForwardedHop[] {
  const addresses = forFor === undefined ? [] : splitList(forFor);
  const protos = proto === undefined ? [] : splitList(proto);
  const hosts = host === undefined ? [] : splitList(host);
  const length = Math.max(addresses.length, protos.length, hosts.length);
  const hops: ForwardedHop[] = [];
  for (let i = 0; i < length; i++) {
    const at = (list: readonly string[]) => list[i - (length - list.length)]; // right-aligned
    const address = at(addresses);
    hops.push({ address: address === undefined ? undefined : parseAddress(address), proto: parseProto(at(protos)), host: parseHost(at(hosts)) });
  }
  return hops;
}

/** Comma-separated list elements, commas inside quoted strings kept. */
function splitList(header: string): string[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of header) {
    if (char === '"') quoted = !quoted;
    if (char === ',' && !quoted) {
      items.push(current.trim());
      current = '';
    } else {
      current += char;
    }
  }
  items.push(current.trim());
  return items.filter((item) => item !== '');
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}
