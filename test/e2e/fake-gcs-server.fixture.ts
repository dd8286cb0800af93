/**
 * A FAKE Google Cloud Storage server for the bucket export/import tests — not an emulator: no
 * GCS emulator is published to npm (only firebase-tools' partial one), so this speaks just the
 * JSON-API calls `@google-cloud/storage` 7.22.0 makes for the export document (checked by
 * logging its requests), with objects in memory:
 *
 * - `POST /token` — the service account's `token_uri`: verifies the RFC 7523 JWT assertion's
 *   RS256 signature with the account's registered public key (and iss, aud, scope), answers
 *   an access token;
 * - `POST /upload/storage/v1/b/{bucket}/o?uploadType=multipart&name=…` — a simple upload
 *   (multipart/related: metadata part, then the data), answers the object's metadata with md5Hash;
 * - `GET /storage/v1/b/{bucket}/o/{object}?alt=media` — the object's bytes.
 *
 * Object calls require a bearer token this server issued, and the account must be allowed on
 * the bucket; errors have GCS's JSON error shape (`{error:{code,message,errors}}`).
 */
import { createHash, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';

export interface FakeGcs {
  readonly url: string;
  /** What arrived, in order (method, path with query, whether it carried a valid bearer). */
  readonly requests: { method: string; url: string; authorized: boolean }[];
  readonly objects: Map<string, Buffer>;
  createBucket(name: string, allowed: readonly string[]): void;
  /** A service account registered with this server: its base64 key file, token_uri on the fake. */
  serviceAccount(email: string): string;
  close(): Promise<void>;
}

/** A key file whose key this server does not know (a forged or revoked account). */
export function unknownServiceAccount(email: string, tokenUri: string): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return keyFile(email, privateKey, tokenUri);
}

function keyFile(email: string, privateKey: KeyObject, tokenUri: string): string {
  const json = { type: 'service_account', project_id: 'fake-project', private_key_id: 'k1', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), client_email: email, token_uri: tokenUri };
  return Buffer.from(JSON.stringify(json)).toString('base64');
}

export async function startFakeGcs(): Promise<FakeGcs> {
  const publicKeys = new Map<string, KeyObject>();
  const tokens = new Map<string, string>(); // access token → account email
  const buckets = new Map<string, Set<string>>(); // bucket → allowed accounts
  const objects = new Map<string, Buffer>(); // "bucket/name" → bytes
  const requests: FakeGcs['requests'] = [];
  let url = '';

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const target = new URL(req.url ?? '/', url);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const account = bearer === undefined ? undefined : tokens.get(bearer);
    requests.push({ method: req.method ?? '', url: target.pathname + target.search, authorized: account !== undefined });
    if (req.method === 'POST' && target.pathname === '/token') return token(res, body);
    if (account === undefined) return gcsError(res, 401, 'Invalid Credentials', 'authError');
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(target.pathname);
    if (req.method === 'POST' && upload !== null) {
      const bucket = decodeURIComponent(upload[1]!);
      const name = target.searchParams.get('name') ?? '';
      if (!allowed(res, bucket, account, 'create')) return;
      const data = multipartData(req.headers['content-type'] ?? '', body);
      if (target.searchParams.get('uploadType') !== 'multipart' || data === undefined) return gcsError(res, 400, 'expected a multipart upload', 'invalid');
      objects.set(`${bucket}/${name}`, data);
      return sendJson(res, 200, { kind: 'storage#object', bucket, name, size: String(data.length), contentType: 'application/json', md5Hash: createHash('md5').update(data).digest('base64'), generation: '1' });
    }
    const download = /^\/storage\/v1\/b\/([^/]+)\/o\/(.+)$/.exec(target.pathname);
    if (req.method === 'GET' && download !== null && target.searchParams.get('alt') === 'media') {
      const bucket = decodeURIComponent(download[1]!);
      const name = decodeURIComponent(download[2]!);
      if (!allowed(res, bucket, account, 'get')) return;
      const data = objects.get(`${bucket}/${name}`);
      if (data === undefined) return gcsError(res, 404, `No such object: ${bucket}/${name}`, 'notFound');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': data.length }).end(data);
      return;
    }
    gcsError(res, 404, `the fake does not serve ${req.method} ${target.pathname}`, 'notFound');
  };

  const allowed = (res: ServerResponse, bucket: string, account: string, action: string): boolean => {
    const accounts = buckets.get(bucket);
    if (accounts === undefined) gcsError(res, 404, 'The specified bucket does not exist.', 'notFound');
    else if (!accounts.has(account)) gcsError(res, 403, `${account} does not have storage.objects.${action} access to the Google Cloud Storage object.`, 'forbidden');
    else return true;
    return false;
  };

  const token = async (res: ServerResponse, body: Buffer) => {
    const form = new URLSearchParams(body.toString());
    const assertion = form.get('assertion') ?? '';
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return sendJson(res, 400, { error: 'unsupported_grant_type' });
    const claimed = decodeIssuer(assertion);
    const key = claimed === undefined ? undefined : publicKeys.get(claimed);
    if (key === undefined) return sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid grant: account not found' });
    try {
      const { payload } = await jwtVerify(assertion, key, { issuer: claimed, audience: `${url}/token`, algorithms: ['RS256'] });
      if (typeof payload.scope !== 'string' || !payload.scope.includes('devstorage')) throw new Error('no storage scope');
    } catch (error) {
      return sendJson(res, 400, { error: 'invalid_grant', error_description: `Invalid JWT Signature. (${(error as Error).message})` });
    }
    const access = randomBytes(16).toString('hex');
    tokens.set(access, claimed!);
    sendJson(res, 200, { access_token: access, expires_in: 3599, token_type: 'Bearer' });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks)).catch(() => gcsError(res, 500, 'fake failed', 'backendError')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    objects,
    createBucket(name, allowedAccounts) {
      buckets.set(name, new Set(allowedAccounts));
    },
    serviceAccount(email) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      publicKeys.set(email, publicKey);
      return keyFile(email, privateKey, `${url}/token`);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function decodeIssuer(jwt: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as { iss?: unknown };
    return typeof payload.iss === 'string' ? payload.iss : undefined;
  } catch {
    return undefined;
  }
}

/** The data part of a multipart/related body (the part after the JSON metadata). */
function multipartData(contentType: string, body: Buffer): Buffer | undefined {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  if (!contentType.startsWith('multipart/related') || boundary === undefined) return undefined;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next === -1) break;
    parts.push(body.subarray(at + delimiter.length, next));
    at = next;
  }
  const data = parts[1];
  if (data === undefined) return undefined;
  const start = data.indexOf('\r\n\r\n');
  if (start === -1) return undefined;
  const end = data.length - (data.subarray(-2).toString() === '\r\n' ? 2 : 0);
  return Buffer.from(data.subarray(start + 4, end));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function gcsError(res: ServerResponse, code: number, message: string, reason: string): void {
  sendJson(res, code, { error: { code, message, errors: [{ message, domain: 'global', reason }] } });
}
