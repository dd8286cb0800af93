/**
 * The ceiling of the token endpoint (issue 13): the least work a real client_credentials
 * endpoint must do, on uWebSockets.js and node:crypto, as its own process (like the hello
 * servers) so its CPU time can be read from /proc. `POST /oauth/v2/token` with
 * `Authorization: Basic` (RFC 6749 §2.3.1) and a form body:
 *
 * - the client is looked up by id in a Map; its secret is checked by SHA-256 against the digest
 *   computed at start, compared with timingSafeEqual;
 * - the body must be `grant_type=client_credentials` (URLSearchParams), `scope` is echoed;
 * - client `ceiling-es256` gets an ES256 JWT (header built once, claims with a random jti,
 *   node:crypto sign with the ieee-p1363 encoding); client `ceiling-rs256` the same with RS256
 *   (RSA-2048, PKCS#1 v1.5, signed synchronously on the event loop: no handoff to pay, so it
 *   shows how close any endpoint can come to the raw signing rate); client `ceiling-opaque`
 *   gets 32 random bytes as base64url, kept with its subject, scope and expiry in a Map (in
 *   memory, not durable — that is what makes it a ceiling).
 *
 * The secret of the clients comes from BENCH_CEILING_SECRET. Prints one JSON line
 * `{"msg":"listening","port":N}` once it accepts connections; stops on SIGTERM/SIGINT.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, timingSafeEqual, type KeyObject, type SignKeyObjectInput } from 'node:crypto';
import uWS from '@trufflesuite/uws-js-unofficial';
import type { HttpResponse, us_listen_socket, us_socket } from '@trufflesuite/uws-js-unofficial';

const HOST = '127.0.0.1';
const ISSUER = 'http://localhost';
const LIFETIME_S = 43_200;
const CEILING_ES256_CLIENT = 'ceiling-es256';
const CEILING_RS256_CLIENT = 'ceiling-rs256';
const CEILING_OPAQUE_CLIENT = 'ceiling-opaque';

/** How a client's JWT is signed: the key, and the JOSE header encoded once. */
interface Signer {
  /** The private key, with ECDSA's signatures asked in the JWS (IEEE P1363) form (RSA's already are). */
  readonly key: KeyObject | SignKeyObjectInput;
  readonly encodedHeader: string;
}

interface Client {
  readonly id: string;
  readonly secretDigest: Buffer;
  /** Undefined: opaque tokens. */
  readonly signer?: Signer;
}

interface StoredToken {
  readonly subject: string;
  readonly scope: string;
  readonly expiresAt: number;
}

function main(): void {
  if (typeof (uWS as { getParts?: unknown }).getParts !== 'function') {
    process.stderr.write('ceiling-server: the uWebSockets.js native binary did not load\n');
    process.exit(1);
  }
  const secret = process.env.BENCH_CEILING_SECRET;
  if (secret === undefined || secret === '') {
    process.stderr.write('ceiling-server: BENCH_CEILING_SECRET is not set\n');
    process.exit(2);
  }
  const digest = createHash('sha256').update(secret).digest();
  const header = (alg: string) => Buffer.from(JSON.stringify({ alg, typ: 'JWT', kid: randomUUID() })).toString('base64url');
  const es256: Signer = { key: { key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, dsaEncoding: 'ieee-p1363' }, encodedHeader: header('ES256') };
  const rs256: Signer = { key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, encodedHeader: header('RS256') };
  const clients = new Map<string, Client>([
    [CEILING_ES256_CLIENT, { id: CEILING_ES256_CLIENT, secretDigest: digest, signer: es256 }],
    [CEILING_RS256_CLIENT, { id: CEILING_RS256_CLIENT, secretDigest: digest, signer: rs256 }],
    [CEILING_OPAQUE_CLIENT, { id: CEILING_OPAQUE_CLIENT, secretDigest: digest }],
  ]);
  const tokens = new Map<string, StoredToken>();

  let listening: us_listen_socket | undefined;
  const app = uWS.App().post('/oauth/v2/token', (res, req) => {
    const authorization = req.getHeader('authorization');
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    let body: Buffer | undefined;
    res.onData((chunk, isLast) => {
      const part = Buffer.from(chunk);
      body = body === undefined ? Buffer.from(part) : Buffer.concat([body, part]);
      if (!isLast || aborted) return;
      const reply = issue(authorization, body.toString('latin1'), clients, tokens);
      res.cork(() => {
        res.writeStatus(reply.status).writeHeader('content-type', 'application/json').writeHeader('cache-control', 'no-store').end(reply.body);
      });
    });
  });
  app.any('/*', (res: HttpResponse) => {
    res.cork(() => res.writeStatus('404 Not Found').end());
  });
  app.listen(HOST, 0, (socket) => {
    if (socket === false) {
      process.stderr.write('ceiling-server: uWS cannot listen\n');
      process.exit(1);
    }
    listening = socket;
    process.stdout.write(`${JSON.stringify({ msg: 'listening', engine: 'ceiling', port: uWS.us_socket_local_port(socket as us_socket) })}\n`);
  });
  const stop = (): void => {
    if (listening !== undefined) uWS.us_listen_socket_close(listening);
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

const UNAUTHORIZED = { status: '401 Unauthorized', body: '{"error":"invalid_client"}' };
const BAD_GRANT = { status: '400 Bad Request', body: '{"error":"unsupported_grant_type"}' };

function issue(
  authorization: string,
  form: string,
  clients: ReadonlyMap<string, Client>,
  tokens: Map<string, StoredToken>,
): { status: string; body: string } {
  if (!authorization.startsWith('Basic ')) return UNAUTHORIZED;
  const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return UNAUTHORIZED;
  const id = formDecode(decoded.slice(0, colon));
  const client = id === undefined ? undefined : clients.get(id);
  const secret = formDecode(decoded.slice(colon + 1));
  if (client === undefined || secret === undefined) return UNAUTHORIZED;
  const given = createHash('sha256').update(secret).digest();
  if (!timingSafeEqual(given, client.secretDigest)) return UNAUTHORIZED;
  const params = new URLSearchParams(form);
  if (params.get('grant_type') !== 'client_credentials') return BAD_GRANT;
  const scope = params.get('scope') ?? '';
  const now = Math.floor(Date.now() / 1000);
  const signer = client.signer;
  if (signer === undefined) {
    const token = randomBytes(32).toString('base64url');
    tokens.set(token, { subject: client.id, scope, expiresAt: now + LIFETIME_S });
    return { status: '200 OK', body: JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: LIFETIME_S, scope }) };
  }
  const claims = { iss: ISSUER, sub: client.id, aud: [client.id], exp: now + LIFETIME_S, iat: now, nbf: now, jti: randomBytes(12).toString('base64url'), client_id: client.id, scope };
  const input = `${signer.encodedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(input, 'latin1'), signer.key).toString('base64url');
  return { status: '200 OK', body: JSON.stringify({ access_token: `${input}.${signature}`, token_type: 'Bearer', expires_in: LIFETIME_S, scope }) };
}

/** application/x-www-form-urlencoded decoding of a Basic credential part (RFC 6749 §2.3.1); undefined when malformed. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

main();
