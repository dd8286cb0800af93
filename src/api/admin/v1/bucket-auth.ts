/**
 * The service account of a bucket call (`gcs_output` / `data_orgsv1_gcs`, seed 001): the
 * base64 service-account JSON of the request body, and the access token it earns.
 *
 * The official client's own service-account flow always exchanges its JWT at Google's fixed
 * token URL and ignores the file's `token_uri`, so a custom `TESSERA_GCS_ENDPOINT` (a private
 * gateway, an emulator) could never be reached without contacting Google. Tessera therefore
 * hands the client its own small auth client: it signs the JWT-bearer assertion (RFC 7523)
 * with the account's private key and exchanges it at the account's `token_uri`. That URI
 * comes from a tenant's request, so it is only honoured when it is Google's own token endpoint
 * or lies on the configured endpoint (no request to arbitrary hosts).
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { AppError, failedPrecondition, validationFailed } from '../../../../actors/index.js';

export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const STORAGE_SCOPE = 'https://www.googleapis.com/auth/devstorage.read_write';
const TOKEN_TIMEOUT_MS = 30_000;
/** Renew this long before the token's expiry, so a long upload never starts with a stale one. */
const EXPIRY_MARGIN_MS = 60_000;

export interface ServiceAccount {
  readonly clientEmail: string;
  readonly privateKey: KeyObject;
  readonly privateKeyId: string | undefined;
  readonly tokenUri: string;
  readonly projectId: string | undefined;
}

/**
 * Decodes and checks the base64 service-account JSON; every problem is a 400 naming `field`
 * (`gcsOutput.serviceaccountJson`, `dataOrgsv1Gcs.serviceaccountJson`).
 */
export function parseServiceAccount(base64: string | undefined, field: string, endpoint: string | undefined): ServiceAccount {
  const bad = (description: string) => validationFailed([{ field, description }]);
  // `base64` wraps its output at 76 characters: line breaks are not an error.
  const encoded = (base64 ?? '').replace(/\s+/g, '');
  if (encoded === '') throw bad('required: the service account JSON, base64-encoded');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) throw bad('not base64');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    throw bad('the decoded value is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bad('the decoded value is not a JSON object');
  const account = json as Record<string, unknown>;
  const text = (key: string) => (typeof account[key] === 'string' && account[key] !== '' ? (account[key] as string) : undefined);
  const clientEmail = text('client_email');
  const pem = text('private_key');
  if (clientEmail === undefined || pem === undefined) throw bad('not a service account: client_email and private_key are required');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    throw bad('private_key is not a PEM private key');
  }
  if (privateKey.asymmetricKeyType !== 'rsa') throw bad('private_key must be an RSA key (service account keys are RSA)');
  const tokenUri = text('token_uri') ?? GOOGLE_TOKEN_URI;
  if (!tokenUriAllowed(tokenUri, endpoint)) throw bad(`token_uri must be ${GOOGLE_TOKEN_URI}${endpoint === undefined ? '' : ' or lie on TESSERA_GCS_ENDPOINT'}`);
  return { clientEmail, privateKey, privateKeyId: text('private_key_id'), tokenUri, projectId: text('project_id') };
}

function tokenUriAllowed(uri: string, endpoint: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.origin === new URL(GOOGLE_TOKEN_URI).origin) return true;
  return endpoint !== undefined && url.origin === new URL(endpoint).origin;
}

/**
 * The duck-typed auth client the storage client calls: `getRequestHeaders(url)` before each
 * request (the token is fetched once and reused until shortly before it expires).
 */
export class ServiceAccountAuth {
  private token: { value: Promise<string>; expiresAt: number } | undefined;

  constructor(private readonly account: ServiceAccount) {}

  async getRequestHeaders(): Promise<Record<string, string>> {
    if (this.token === undefined || Date.now() >= this.token.expiresAt) {
      const value = this.fetchToken();
      this.token = { value, expiresAt: Number.POSITIVE_INFINITY };
      value.catch(() => (this.token = undefined)); // a failed exchange is retried by the next call
    }
    return { Authorization: `Bearer ${await this.token.value}` };
  }

  getProjectId(): Promise<string> {
    return Promise.resolve(this.account.projectId ?? '');
  }

  getCredentials(): Promise<{ client_email: string }> {
    return Promise.resolve({ client_email: this.account.clientEmail });
  }

  private async fetchToken(): Promise<string> {
    const { clientEmail, privateKey, privateKeyId, tokenUri } = this.account;
    const assertion = await new SignJWT({ scope: STORAGE_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(privateKeyId === undefined ? {} : { kid: privateKeyId }) })
      .setIssuer(clientEmail)
      .setAudience(tokenUri)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    let response: Response;
    try {
      response = await fetch(tokenUri, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
        signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      });
    } catch (error) {
      throw new AppError('unavailable', 'bucket.unavailable', `the service account's token endpoint cannot be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
    if (!response.ok || typeof body.access_token !== 'string') {
      const reason = [body.error, body.error_description].filter((s) => typeof s === 'string').join(': ') || `HTTP ${response.status}`;
      if (response.status >= 500) throw new AppError('unavailable', 'bucket.unavailable', `the service account's token endpoint failed: ${reason}`);
      throw failedPrecondition('bucket.access_denied', `the token endpoint refused the service account ${clientEmail}: ${reason}`);
    }
    const seconds = typeof body.expires_in === 'number' ? body.expires_in : 3600;
    if (this.token !== undefined) this.token.expiresAt = Date.now() + Math.max(0, seconds * 1000 - EXPIRY_MARGIN_MS);
    return body.access_token;
  }
}
