/**
 * `login-totp` (issue 14): whole logins through the login UI — authorization request, login
 * name, password, TOTP code, redirect with the code, code exchange at the token endpoint —
 * per second and per server CPU-second, beside the argon2id limit of the same run: password
 * verifications per CPU-second with Tessera's own parameters (src/crypto/password.ts), which
 * bounds any login that checks a password.
 *
 * Each seeded user (password + verified TOTP, created through the API) can log in once per
 * 30-second TOTP step (a code is single-use), so the pool is sized from the expected rate; the
 * run stops early, and says so, when every user has logged in within the current step.
 */
import { createHash, randomBytes } from 'node:crypto';
import { verifySync } from '@node-rs/argon2';
import { Secret, TOTP } from 'otpauth';
import { hashPassword } from '../src/crypto/password.js';
import { inParallel } from './tenants.js';
import { processCpuSeconds } from './processes.js';
import { httpRequest, TESSERA_HOST_HEADER, type HttpResult, type TesseraNode } from './tessera.js';

const USERS_PATH = '/resources/v3alpha/users';
const RATE_LIMITS_PATH = '/settings/v3alpha/rate_limits';
const REDIRECT_URI = 'http://127.0.0.1:9/bench/callback';
const PASSWORD = 'Bench-Login-Passw0rd';
const STEP_S = 30;
const MAX_PAGES = 10;

export interface LoginStudy {
  readonly users: number;
  readonly concurrency: number;
  readonly plannedS: number;
  readonly elapsedS: number;
  /** True when the user pool ran out before the planned time (every user used in the current step). */
  readonly poolExhausted: boolean;
  readonly logins: number;
  readonly failures: number;
  readonly firstFailure?: string;
  readonly loginsPerSecond: number;
  readonly serverCpuS: number;
  readonly loginsPerServerCpuS: number;
  /** HTTP requests one login took (authorize → token), from the first login. */
  readonly requestsPerLogin: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Every login's ID token said amr pwd + otp + mfa. */
  readonly amrChecked: number;
  readonly argon2: { readonly verifications: number; readonly cpuS: number; readonly perCpuS: number };
}

interface BenchUser {
  readonly loginName: string;
  readonly totp: TOTP;
  lastStep: number;
}

/**
 * argon2id verifications per CPU-second of this process with Tessera's parameters, synchronous
 * on one thread (the node verifies on the libuv pool; its CPU counts the same way).
 */
export async function argon2Limit(seconds: number): Promise<LoginStudy['argon2']> {
  const stored = await hashPassword(PASSWORD);
  verifySync(stored, PASSWORD); // warm-up
  const cpuBefore = process.cpuUsage();
  const until = performance.now() + seconds * 1000;
  let verifications = 0;
  while (performance.now() < until) {
    if (!verifySync(stored, PASSWORD)) throw new Error('argon2 limit: the hash did not verify');
    verifications++;
  }
  const cpu = process.cpuUsage(cpuBefore);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  return { verifications, cpuS, perCpuS: cpuS > 0 ? verifications / cpuS : 0 };
}

/** Seeds the app and the users, measures the argon2 limit, then logs in for `seconds`. */
export async function loginStudy(options: {
  readonly node: TesseraNode;
  readonly runId: string;
  readonly users: number;
  readonly concurrency: number;
  readonly seconds: number;
  readonly ticksPerSecond: number;
  readonly log: (message: string) => void;
}): Promise<LoginStudy> {
  const { node } = options;
  const admin = { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body: unknown, expected: number): Promise<Record<string, unknown>> => {
    const result = await httpRequest(node.origin, method, path, admin, body === undefined ? undefined : JSON.stringify(body));
    if (result.status !== expected) throw new Error(`login-totp seed: ${method} ${path} → HTTP ${result.status}: ${result.body.slice(0, 300)}`);
    return JSON.parse(result.body) as Record<string, unknown>;
  };
  const idOf = (response: Record<string, unknown>): string => String((response.details as { id?: unknown } | undefined)?.id ?? '');

  // Every login comes from 127.0.0.1: the per-IP limits of password checks and login pages are
  // lifted for the run (settings API), the rest stays at the node's defaults; restored afterwards.
  await call('PATCH', RATE_LIMITS_PATH, { passwordIp: { set: 'off' }, loginPagesIp: { set: 'off' } }, 200);
  try {
    return await runStudy(options, call, idOf);
  } finally {
    await call('PATCH', RATE_LIMITS_PATH, { passwordIp: { reset: true }, loginPagesIp: { reset: true } }, 200);
  }
}

async function runStudy(
  options: Parameters<typeof loginStudy>[0],
  call: (method: string, path: string, body: unknown, expected: number) => Promise<Record<string, unknown>>,
  idOf: (response: Record<string, unknown>) => string,
): Promise<LoginStudy> {
  const { node, log } = options;
  const project = await call('POST', '/resources/v3alpha/projects', { name: `login bench ${options.runId}` }, 201);
  const app = await call(
    'POST',
    '/resources/v3alpha/apps',
    {
      projectId: idOf(project),
      name: `login bench ${options.runId}`,
      oidc: {
        appType: 'OIDC_APP_TYPE_USER_AGENT',
        authMethod: 'OIDC_AUTH_METHOD_TYPE_NONE',
        redirectUris: [REDIRECT_URI],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
        accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER',
      },
    },
    201,
  );
  const clientId = String(app.clientId);

  const seedStart = performance.now();
  const users: BenchUser[] = [];
  await inParallel(options.users, 8, async (index) => {
    const username = `login-${options.runId}-${index}`;
    const created = await call('POST', USERS_PATH, { human: { username, profile: { givenName: 'Login', familyName: 'Bench' }, email: { address: `${username}@example.com` }, password: PASSWORD } }, 201);
    const id = idOf(created);
    const enrolled = await call('POST', `${USERS_PATH}/${id}/totp`, undefined, 200);
    const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.secret)) });
    await call('POST', `${USERS_PATH}/${id}/totp/_verify`, { code: totp.generate() }, 200);
    // The enrolment's code used this step: the user's first login waits for the next one.
    users.push({ loginName: username, totp, lastStep: currentStep() });
    if (users.length % 200 === 0) log(`  ${users.length} users with a verified TOTP`);
  });
  log(`  ${users.length} users seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; argon2id limit for 3 s`);
  const argon2 = await argon2Limit(3);
  log(`  argon2id: ${Math.round(argon2.perCpuS)} verifications per CPU-second (m=19456 KiB, t=2, p=1)`);
  // Every seeded user's enrolment step must be over before the run.
  const wait = (currentStep() + 1) * STEP_S * 1000 - Date.now();
  log(`  waiting ${(wait / 1000).toFixed(1)} s for the next TOTP step, then ${options.seconds} s of logins over ${options.concurrency} loops`);
  await new Promise((resolve) => setTimeout(resolve, wait + 50));

  let next = 0;
  const take = (): BenchUser | undefined => {
    const step = currentStep();
    for (let tried = 0; tried < users.length; tried++) {
      const user = users[next];
      next = (next + 1) % users.length;
      if (user !== undefined && user.lastStep < step) {
        user.lastStep = step;
        return user;
      }
    }
    return undefined;
  };
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let poolExhausted = false;
  let requestsPerLogin = 0;
  let amrChecked = 0;
  const cpuBefore = processCpuSeconds(node.server.pid, options.ticksPerSecond);
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline && !poolExhausted) {
        const user = take();
        if (user === undefined) {
          poolExhausted = true;
          return;
        }
        const loginStart = performance.now();
        try {
          const done = await logIn(node, clientId, user);
          latencies.push(performance.now() - loginStart);
          requestsPerLogin ||= done.requests;
          if (done.amrOk) amrChecked++;
        } catch (error) {
          failures++;
          firstFailure ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  const serverCpuS = processCpuSeconds(node.server.pid, options.ticksPerSecond) - cpuBefore;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => Math.round((latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(q * latencies.length) - 1))] ?? 0) * 10) / 10;
  const logins = latencies.length;
  return {
    users: users.length,
    concurrency: options.concurrency,
    plannedS: options.seconds,
    elapsedS,
    poolExhausted,
    logins,
    failures,
    ...(firstFailure === undefined ? {} : { firstFailure }),
    loginsPerSecond: logins / elapsedS,
    serverCpuS,
    loginsPerServerCpuS: serverCpuS > 0 ? logins / serverCpuS : 0,
    requestsPerLogin,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    amrChecked,
    argon2,
  };
}

function currentStep(): number {
  return Math.floor(Date.now() / 1000 / STEP_S);
}

/** One whole login with its own cookie jar; resolves after the code exchange. */
async function logIn(node: TesseraNode, clientId: string, user: BenchUser): Promise<{ requests: number; amrOk: boolean }> {
  const cookies = new Map<string, string>();
  let requests = 0;
  const request = async (method: string, path: string, body?: string): Promise<HttpResult> => {
    requests++;
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers: Record<string, string> = { host: TESSERA_HOST_HEADER };
    if (cookie !== '') headers.cookie = cookie;
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const result = await httpRequest(node.origin, method, path, headers, body);
    for (const line of setCookies(result)) {
      const pair = line.split(';', 1)[0] ?? '';
      const eq = pair.indexOf('=');
      if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return result;
  };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', state: 'bench' });
  let response = await request('GET', `/oauth/v2/authorize?${query.toString()}`);
  let code: string | undefined;
  for (let page = 0; page < MAX_PAGES && code === undefined; page++) {
    const location = headerOf(response, 'location');
    if (response.status >= 300 && response.status < 400 && location !== undefined) {
      const target = new URL(location, 'http://localhost');
      if (target.href.startsWith(REDIRECT_URI)) {
        code = target.searchParams.get('code') ?? undefined;
        if (code === undefined) throw new Error(`the redirect carried no code: ${location}`);
        break;
      }
      response = await request('GET', `${target.pathname}${target.search}`);
      continue;
    }
    if (response.status !== 200) throw new Error(`HTTP ${response.status} during the login: ${response.body.slice(0, 200)}`);
    const form = loginForm(response.body);
    const answer = form.action === 'loginname' ? { loginName: user.loginName } : form.action === 'password' ? { password: PASSWORD } : form.action === 'otp' ? { code: user.totp.generate() } : undefined;
    if (answer === undefined) throw new Error(`unexpected login step ${form.action}`);
    response = await request('POST', form.path, new URLSearchParams([...form.fields, ...Object.entries(answer)]).toString());
  }
  if (code === undefined) throw new Error('the login did not reach the redirect URI');
  const token = await request('POST', '/oauth/v2/token', new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier }).toString());
  if (token.status !== 200) throw new Error(`code exchange: HTTP ${token.status} ${token.body.slice(0, 200)}`);
  const idToken = String((JSON.parse(token.body) as { id_token?: unknown }).id_token ?? '');
  const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { amr?: unknown };
  const amr = Array.isArray(claims.amr) ? claims.amr : [];
  return { requests, amrOk: ['pwd', 'otp', 'mfa'].every((value) => amr.includes(value)) };
}

/** The login step's form: its action field, where it posts, and every hidden field it carries. */
function loginForm(page: string): { action: string; path: string; fields: [string, string][] } {
  for (const [, attributes = '', inner = ''] of page.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const fields: [string, string][] = [];
    for (const [input] of inner.matchAll(/<input\b[^>]*>/g)) {
      if (attributeOf(input, 'type') !== 'hidden') continue;
      const name = attributeOf(input, 'name');
      if (name !== undefined) fields.push([name, attributeOf(input, 'value') ?? '']);
    }
    const action = fields.find(([name]) => name === 'action')?.[1];
    if (action !== undefined && action !== 'other') return { action, path: attributeOf(attributes, 'action') ?? '', fields };
  }
  throw new Error(`no login form on the page: ${page.slice(0, 200)}`);
}

function attributeOf(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match?.[1]?.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function headerOf(result: HttpResult, name: string): string | undefined {
  const value = result.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function setCookies(result: HttpResult): string[] {
  const value = result.headers['set-cookie'];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

export function renderLoginStudy(study: LoginStudy | { readonly error: string }): string[] {
  if ('error' in study) return ['', `- login-totp failed: ${study.error}`];
  const ratio = study.argon2.perCpuS > 0 ? study.loginsPerServerCpuS / study.argon2.perCpuS : 0;
  return [
    '',
    `login-totp (${study.users} users with password + verified TOTP; ${study.concurrency} concurrent logins for ${study.elapsedS.toFixed(1)} s${study.poolExhausted ? ', stopped early: every user had logged in within the TOTP step' : ''}; each login ${study.requestsPerLogin} requests: authorize → login name → password → TOTP → redirect → code exchange):`,
    '',
    '| | per second | per server CPU-s | p50 ms | p99 ms | failures | amr pwd otp mfa |',
    '|---|---:|---:|---:|---:|---:|---:|',
    `| password + TOTP login | ${study.loginsPerSecond.toFixed(1)} | ${study.loginsPerServerCpuS.toFixed(1)} | ${study.p50Ms} | ${study.p99Ms} | ${study.failures} | ${study.amrChecked}/${study.logins} |`,
    `| argon2id verification (limit, one thread) | | ${study.argon2.perCpuS.toFixed(1)} | | | | |`,
    '',
    `Logins per server CPU-second ÷ argon2id verifications per CPU-second: ${ratio.toFixed(2)}× (1.0 would mean a login costs no more than its password hash).${study.firstFailure === undefined ? '' : ` First failure: ${study.firstFailure}`}`,
  ];
}
