/**
 * Child process of `measureSigningRate` (signing-rate.ts): signs one fixed access-token-sized
 * payload as a whole compact JWS in a tight loop — node:crypto `sign` synchronously with a
 * pre-imported KeyObject, exactly as the signer's hot path does for ES256/EdDSA — and prints one
 * JSON line (signatures per wall-clock second and per CPU-second of this process). Arguments: `<RS256|ES256|EdDSA> <seconds>`.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { performance } from 'node:perf_hooks';

type Algorithm = 'RS256' | 'ES256' | 'EdDSA';

const [algorithmArg, secondsArg] = process.argv.slice(2);
const algorithm = (['RS256', 'ES256', 'EdDSA'] as const).find((a) => a === algorithmArg);
const seconds = Number(secondsArg);
if (algorithm === undefined || !(seconds > 0)) {
  process.stderr.write('usage: signing-worker <RS256|ES256|EdDSA> <seconds>\n');
  process.exit(2);
}

function keyFor(alg: Algorithm): KeyObject {
  if (alg === 'RS256') return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  if (alg === 'ES256') return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  return generateKeyPairSync('ed25519').privateKey;
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const signingInput = `${b64({ alg: algorithm, kid: 'bench-key-0000000000000000000000000000000000', typ: 'JWT' })}.${b64({
  iss: 'http://localhost:8080',
  sub: '312345678901234567',
  aud: ['312345678901234568', '312345678901234569'],
  client_id: 'bench-client@bench',
  exp: now + 43_200,
  iat: now,
  nbf: now,
  jti: '312345678901234570',
  scope: 'openid profile',
})}`;
const data = Buffer.from(signingInput, 'latin1');
const key = keyFor(algorithm);
const digest = algorithm === 'EdDSA' ? null : 'sha256';
const keyInput = algorithm === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' as const } : key;

/** Signs for `ms` milliseconds; returns signatures made and the exact elapsed time. */
function signFor(ms: number): { count: number; elapsedMs: number } {
  const start = performance.now();
  let count = 0;
  let token = '';
  for (;;) {
    for (let i = 0; i < 16; i++) token = `${signingInput}.${sign(digest, data, keyInput).toString('base64url')}`;
    count += 16;
    const elapsedMs = performance.now() - start;
    // Reading `token` keeps the signatures observable, so no engine can drop the work.
    if (elapsedMs >= ms) return token === '' ? { count: 0, elapsedMs } : { count, elapsedMs };
  }
}

signFor(Math.min(1_000, seconds * 200)); // warm-up: JIT and OpenSSL caches, not counted
const cpuBefore = process.cpuUsage();
const { count, elapsedMs } = signFor(seconds * 1_000);
const cpu = process.cpuUsage(cpuBefore);
// CPU seconds as well: on a shared core the wall-clock rate drops, the rate per CPU-second much less.
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stdout.write(
  `${JSON.stringify({ algorithm, signatures: count, seconds: elapsedMs / 1000, perSecond: count / (elapsedMs / 1000), cpuSeconds, perCpuSecond: cpuSeconds > 0 ? count / cpuSeconds : 0 })}\n`,
);
