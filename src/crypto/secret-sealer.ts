/**
 * Secrets at rest (design §5): AES-256-GCM under the 32-byte master key, a fresh random
 * 96-bit IV per seal (NIST SP 800-38D §8.2.2) and the full 128-bit tag. Output is
 * `v1.<iv>.<tag>.<ciphertext>` in base64url; the version is authenticated as AAD, so a
 * sealed value cannot be replayed under another format. Key material is never echoed.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { SecretSealer } from '../../actors/index.js';

const VERSION = 'v1';
const AAD = Buffer.from(`tessera.sealed.${VERSION}`);
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

const ACCEPTED_FORMS =
  'the master key must be 32 bytes, given as 64 hex characters, as base64 or base64url ' +
  '(43 or 44 characters), or as 32 printable ASCII characters';

export function createSecretSealer(masterKey: Buffer): SecretSealer {
  if (masterKey.length !== KEY_BYTES) throw new Error(`${ACCEPTED_FORMS} (got ${masterKey.length} bytes)`);
  const key = createSecretKey(Buffer.from(masterKey));
  return {
    seal: (plaintext) => seal(key, plaintext),
    open: (sealed) => openSealed(key, sealed),
  };
}

function seal(key: KeyObject, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(AAD);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `${VERSION}.${iv.toString('base64url')}.${tag.toString('base64url')}.${ciphertext.toString('base64url')}`;
}

function openSealed(key: KeyObject, sealed: string): string {
  const parts = sealed.split('.');
  const [version, iv, tag, ciphertext] = parts;
  if (parts.length !== 4 || version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new Error(`sealed secret is malformed (expected ${VERSION}.<iv>.<tag>.<ciphertext>)`);
  }
  if (![iv, tag, ciphertext].every((part) => BASE64URL.test(part))) throw new Error('sealed secret is malformed (not base64url)');
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('sealed secret is malformed (bad iv or tag length)');
  const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
  decipher.setAAD(AAD);
  decipher.setAuthTag(tagBytes);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('sealed secret failed authentication: wrong master key or tampered data');
  }
}

/** Parses TESSERA_MASTERKEY: 64 hex characters, base64/base64url of 32 bytes, or 32 ASCII characters. */
export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === KEY_BYTES) return bytes;
  }
  if (/^[\x20-\x7e]{32}$/.test(text)) return Buffer.from(text, 'ascii');
  throw new Error(`${ACCEPTED_FORMS}; the given value (${text.length} characters) matches none of these`);
}

/** A new random master key as 64 hex characters. */
export function generateMasterKey(): string {
  return randomBytes(KEY_BYTES).toString('hex');
}
