/**
 * Event payloads as JSON for the audit read (SearchEvents), without secret material. Commands
 * record digests and hashes of secrets (client and machine secrets, passwords, personal access
 * tokens, session tokens), sealed private keys, sealed client secrets of IDPs and signing keys
 * of targets; none of them may leave the node through an API. A field is redacted when its
 * name is in REDACTED_KEYS or matches SECRET_NAME (a safety net for fields added later);
 * its value becomes the string REDACTED and its path is reported.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';

export const REDACTED = '[redacted]';

/** Payload field names that always hold secret material (exact, case-sensitive). */
export const REDACTED_KEYS: ReadonlySet<string> = new Set([
  'passwordHash',
  'verifiedHash',
  'checkedHash',
  'rehash',
  'digest',
  'secretDigest',
  'tokenDigest',
  'patDigest',
  'clientSecret',
  'signingKey',
  'authToken',
  'previousSigningKey',
  'sealedPrivateKey',
  'privateKeyPem',
  'privateJwk',
  'validationToken',
  'token',
  'code',
]);

/** Any other field whose name says it holds a secret, whatever its casing. */
const SECRET_NAME = /hash|digest|secret|sealed|private|password(?!ChangeRequired|Complexity|Attempts|ChangedAt|CheckedAt)/i;

export interface RedactedPayload {
  readonly payload: JsonObject;
  readonly redacted: readonly string[];
}

export function redactPayload(payload: unknown): RedactedPayload {
  const redacted: string[] = [];
  const value = toJson(payload, '', redacted);
  const object: JsonObject = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : value === null ? {} : { value };
  return { payload: object, redacted };
}

function isSecretKey(key: string): boolean {
  return REDACTED_KEYS.has(key) || SECRET_NAME.test(key);
}

function toJson(value: unknown, path: string, redacted: string[]): JsonValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      return null;
  }
  if (value instanceof Date) return value.toISOString();
  // Raw bytes in an event are key material or digests in this codebase: never shown.
  if (value instanceof Uint8Array) {
    redacted.push(path);
    return REDACTED;
  }
  if (Array.isArray(value)) return value.map((item, i) => toJson(item, `${path}[${i}]`, redacted));
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (item === undefined) continue;
    const at = path === '' ? key : `${path}.${key}`;
    // Booleans and numbers under secret-sounding names (flags, counters) carry no secret.
    if (isSecretKey(key) && typeof item !== 'boolean' && typeof item !== 'number') {
      redacted.push(at);
      out[key] = REDACTED;
      continue;
    }
    out[key] = toJson(item, at, redacted);
  }
  return out;
}
