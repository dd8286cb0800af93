/**
 * The issuer of a request (OIDC Discovery 1.0 §4.3: the issuer in discovery must equal the URL the
 * client used, and every token's `iss` must equal it): the request's scheme (TLS listener, trusted
 * proxy or TESSERA_EXTERNAL_SECURE: src/http/client-origin.ts), the instance domain of the Host
 * header (as a trusted proxy forwarded it), and the port — TESSERA_EXTERNAL_PORT when set (behind
 * a proxy), otherwise the port the client put in the Host header. Default ports are dropped (URL
 * normalization, RFC 3986 §6.2.3). See docs/oidc/discovery.md.
 */
import type { Config } from '../config/schema.js';
import { externalUrl } from '../config/load.js';
import { normalizeHost } from '../query/tenant.js';
import type { HttpRequest } from './types.js';

const PORT = /^[0-9]{1,5}$/;

/** The issuer for a request; undefined when its Host header is empty or its port malformed. */
export function issuerFor(config: Config, req: Pick<HttpRequest, 'headers' | 'scheme'>): string | undefined {
  const host = req.headers.host;
  if (host === undefined) return undefined;
  const domain = normalizeHost(host);
  if (domain === '') return undefined;
  const scheme = req.scheme;
  if (config.externalPort !== undefined) return externalUrl(config, domain, scheme);
  const port = portOf(host.trim());
  if (port === undefined) return undefined;
  const isDefault = port === '' || (scheme === 'http' && port === '80') || (scheme === 'https' && port === '443');
  return `${scheme}://${domain}${isDefault ? '' : `:${port}`}`;
}

/** The port part of a Host value ('' when none); undefined when it is not a valid port. */
function portOf(host: string): string | undefined {
  const closing = host.startsWith('[') ? host.indexOf(']') : -1;
  const colon = host.indexOf(':', closing + 1);
  if (colon === -1) return '';
  const text = host.slice(colon + 1);
  if (!PORT.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? String(port) : undefined;
}
