/**
 * System users for e2e suites: a key pair generated in the test, the TESSERA_SYSTEM_USERS
 * value that configures its public key, and JWTs minted with jose like a real client would.
 */
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { api, type TestNode } from './harness.js';

export interface SystemUserKey {
  readonly name: string;
  readonly alg: 'ES256' | 'RS256' | 'EdDSA';
  readonly publicPem: string;
  readonly privateKey: CryptoKey;
}

export async function createSystemUserKey(name: string, alg: SystemUserKey['alg'] = 'ES256'): Promise<SystemUserKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { name, alg, publicPem: await exportSPKI(publicKey), privateKey };
}

/** The TESSERA_SYSTEM_USERS value (JSON) for the given users and roles. */
export function systemUsersEnv(users: readonly { key: SystemUserKey; roles?: readonly string[] }[]): string {
  return JSON.stringify(
    Object.fromEntries(users.map(({ key, roles }) => [key.name, { publicKey: key.publicPem, ...(roles === undefined ? {} : { roles }) }])),
  );
}

export interface MintOptions {
  /** Audience(s); the URL the request goes to. */
  readonly aud: string | string[];
  /** Seconds relative to now. */
  readonly iatOffset?: number;
  readonly lifetime?: number;
  readonly iss?: string;
  readonly sub?: string;
  /** Sign with another key than the user's (a forged token). */
  readonly signWith?: CryptoKey;
}

export async function mintSystemJwt(key: SystemUserKey, options: MintOptions): Promise<string> {
  const iat = Math.floor(Date.now() / 1000) + (options.iatOffset ?? 0);
  return new SignJWT({})
    .setProtectedHeader({ alg: key.alg })
    .setIssuer(options.iss ?? key.name)
    .setSubject(options.sub ?? key.name)
    .setAudience(options.aud)
    .setIssuedAt(iat)
    .setExpirationTime(iat + (options.lifetime ?? 300))
    .sign(options.signWith ?? key.privateKey);
}

export interface SystemCallOptions {
  /** Host header (and so the audience); default `localhost:<port>`. */
  readonly host?: string;
  /** Another system user than the default one. */
  readonly key?: SystemUserKey;
  /** Overrides of the minted token's claims. */
  readonly mint?: Partial<MintOptions>;
}

/** JSON calls as a system user, each with a fresh JWT whose audience is the URL the call goes to. */
export function systemApi(node: TestNode, defaultKey: SystemUserKey) {
  return async (method: string, path: string, body?: unknown, options: SystemCallOptions = {}) => {
    const host = options.host ?? `localhost:${node.httpPort}`;
    const token = await mintSystemJwt(options.key ?? defaultKey, { aud: `http://${host}`, ...options.mint });
    return api(node, token)(method, path, body, { host });
  };
}
