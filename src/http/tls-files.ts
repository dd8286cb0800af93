/**
 * Reads the configured certificate and key once at start and checks them, so a wrong path, a
 * key that does not belong to the certificate or an expired certificate stops the node with a
 * message naming the file, instead of a listener that fails every handshake.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TlsFiles } from './types.js';

export function loadTlsFiles(certPath: string, keyPath: string, now = Date.now()): TlsFiles {
  const cert = readPem(certPath, 'TESSERA_TLS_CERT_PATH');
  const key = readPem(keyPath, 'TESSERA_TLS_KEY_PATH');
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch {
    throw new Error(`TESSERA_TLS_CERT_PATH: ${certPath} holds no PEM certificate`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new Error(`TESSERA_TLS_KEY_PATH: ${keyPath} holds no unencrypted PEM private key`);
  }
  if (!leaf.checkPrivateKey(privateKey)) throw new Error(`TESSERA_TLS_KEY_PATH: the key in ${keyPath} does not belong to the certificate in ${certPath}`);
  if (Date.parse(leaf.validTo) <= now) throw new Error(`TESSERA_TLS_CERT_PATH: the certificate in ${certPath} expired on ${leaf.validTo}`);
  return { certPath, keyPath, cert, key };
}

function readPem(path: string, variable: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`${variable}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}
