/**
 * The configuration schema: every key with its environment variable, default and description.
 * docs/configuration.md is generated from this table (npm run docs:config); never edit it by hand.
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { durationMs, rateLimit } from './duration.js';
import { systemUsersSchema } from './system-users.js';

const bool = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off', ''].includes(s)) return false;
  return v;
}, z.boolean());

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

const domain = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i, 'must be a host name without scheme or port');

/** A list given as an array (file) or comma-separated (environment). */
function commaList<T extends z.ZodType>(item: T) {
  return z.preprocess((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s !== '') : v), z.array(item));
}
const ipOrCidr = z.string().refine(isIpOrCidr, 'must be an IP address or a CIDR range such as 10.0.0.0/8 or fd00::/8');

function isIpOrCidr(value: string): boolean {
  const [address = '', prefix, extra] = value.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

const list = commaList(z.string().regex(/^[a-z][a-z0-9_]*$/, 'feature names are lower snake case'));
const dnsServers = commaList(z.string().regex(/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\]|[0-9a-f:]+)(:\d{1,5})?$/i, 'an IP address, optionally with :port'));

interface KeySpec {
  readonly env: string;
  readonly schema: z.ZodType;
  readonly description: string;
}

/** Every configuration key. The file form uses the key names below; the env form the `env` names. */
export const CONFIG_KEYS = {
  port: { env: 'TESSERA_PORT', schema: port.default(8080), description: 'HTTP port for the APIs, OIDC endpoints, login UI, Connect and gRPC-web. 0 picks a free port.' },
  grpcPort: { env: 'TESSERA_GRPC_PORT', schema: port.default(8081), description: 'Port for gRPC over HTTP/2 (cleartext h2c). 0 picks a free port.' },
  host: { env: 'TESSERA_HOST', schema: z.string().min(1).default('0.0.0.0'), description: 'Address both ports bind to.' },
  dataDir: { env: 'TESSERA_DATA_DIR', schema: z.string().min(1).default('./data'), description: 'Directory of the embedded LMDB store, the generated master key and the admin token file.' },
  databaseUrl: { env: 'TESSERA_DATABASE_URL', schema: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL').optional(), description: 'PostgreSQL connection URL (`postgres://user:password@host:5432/database`). When set, the node keeps its data in PostgreSQL instead of the LMDB directory, so several nodes can share it; migrations run on start (`tessera migrate` runs them alone). See docs/operations/postgres.md.' },
  databaseSchema: { env: 'TESSERA_DATABASE_SCHEMA', schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'must be a plain SQL identifier').optional(), description: 'PostgreSQL schema holding Tessera\'s tables (created when missing). Defaults to the connection\'s search_path (usually `public`).' },
  benchWithoutIndexes: { env: 'TESSERA_BENCH_WITHOUT_INDEXES', schema: bool.default(false), description: 'Benchmarks only, never on a serving node: opens the store without its search indexes (the empty index catalog: LMDB writes no index keys, summaries or row counts in the append; PostgreSQL no `index_entries`, `row_summaries` or `row_counts` rows), to measure what the indexes cost a write (`npm run bench:write-cost`). Searches cannot answer without them, so every read of the indexes refuses with 501 `store.indexes_off`: every `_search`, and a password reset by code (it ends the user\'s sessions, found through an index). The store is marked as having no indexes, so the next start without this switch rebuilds them from the rows (LMDB at open, PostgreSQL at open or `tessera migrate`).' },
  externalDomain: { env: 'TESSERA_EXTERNAL_DOMAIN', schema: domain.default('localhost'), description: 'Domain of the first instance, created on an empty store; requests are routed to an instance by their Host header.' },
  externalSecure: { env: 'TESSERA_EXTERNAL_SECURE', schema: bool.default(false), description: 'Whether clients reach Tessera over https through a TLS-terminating proxy that is not in TESSERA_TRUSTED_PROXIES; decides the issuer scheme and Secure cookies when neither a TLS listener (TESSERA_TLS_CERT_PATH) nor a trusted proxy\'s X-Forwarded-Proto / Forwarded says so (docs/operations/tls.md).' },
  externalPort: { env: 'TESSERA_EXTERNAL_PORT', schema: port.optional(), description: 'Port clients use, when it differs from TESSERA_PORT (e.g. 443 behind a proxy). Defaults to TESSERA_PORT.' },
  tlsCertPath: { env: 'TESSERA_TLS_CERT_PATH', schema: z.string().min(1).optional(), description: 'PEM certificate (chain, leaf first) to serve HTTPS on TESSERA_PORT and gRPC over TLS on TESSERA_GRPC_PORT instead of plain HTTP and h2c. Set together with TESSERA_TLS_KEY_PATH; read once at start (docs/operations/tls.md).' },
  tlsKeyPath: { env: 'TESSERA_TLS_KEY_PATH', schema: z.string().min(1).optional(), description: 'PEM private key (unencrypted) of TESSERA_TLS_CERT_PATH; keep it mode 0600.' },
  trustedProxies: { env: 'TESSERA_TRUSTED_PROXIES', schema: commaList(ipOrCidr).default([]), description: 'Comma-separated IP addresses and CIDR ranges of reverse proxies whose `Forwarded` / `X-Forwarded-For`, `-Proto` and `-Host` headers are honoured for the client address, the scheme and the Host (issuer, cookies, tenant). Empty (default): those headers are ignored and the peer is the client.' },
  masterKey: { env: 'TESSERA_MASTERKEY', schema: z.string().optional(), description: 'Master key encrypting secrets at rest: 32 bytes as 64 hex characters, base64, or 32 ASCII characters. When absent, `tessera init` generates one into <dataDir>/masterkey (0600) and warns.' },
  http: { env: 'TESSERA_HTTP', schema: z.enum(['uws', 'node']).default('uws'), description: 'HTTP engine: uWebSockets.js (fast) or node:http. uws falls back to node when no uWebSockets.js build loads on this Node and glibc, with a warning at start; /readyz and the metric tessera_http_adapter name the adapter serving (docs/operations/running.md#http-adapter).' },
  logLevel: { env: 'TESSERA_LOG_LEVEL', schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), description: 'Log level of the JSON logs on stdout.' },
  accessLog: { env: 'TESSERA_ACCESS_LOG', schema: z.enum(['off', 'all', 'errors']).default('all'), description: 'Access log: one JSON line (`msg: "request"`, level info) per request on every transport, with method, route template or RPC method, status, duration, instance, client/user, request id and trace id (docs/operations/observability.md). `all` (default) logs every request (successes sampled by TESSERA_ACCESS_LOG_SAMPLE), `errors` only replies with status 400 or above (or a failed RPC), `off` none. Needs TESSERA_LOG_LEVEL info or lower.' },
  accessLogSample: { env: 'TESSERA_ACCESS_LOG_SAMPLE', schema: z.coerce.number().min(0).max(1).default(1), description: 'Share (0 to 1) of successful requests the access log writes when TESSERA_ACCESS_LOG is `all`; errors are always written. Default 1: every request.' },
  metricsPort: { env: 'TESSERA_METRICS_PORT', schema: port.optional(), description: 'Serve `GET /metrics` on this port (plain HTTP, on TESSERA_HOST) instead of the main port, whose /metrics then answers 404. Unset (default): /metrics is on the main port (docs/operations/observability.md). 0 picks a free port.' },
  metricsToken: { env: 'TESSERA_METRICS_TOKEN', schema: z.string().min(16, 'use at least 16 characters').optional(), description: 'Bearer token `GET /metrics` requires (`Authorization: Bearer <token>`; 401 without it), on whichever port serves the metrics. Unset (default): the metrics answer anyone who reaches the port, and the node warns at start when that is the main port.' },
  metricsInstanceLabel: { env: 'TESSERA_METRICS_INSTANCE_LABEL', schema: bool.default(true), description: 'Label `tessera_tokens_issued_total` and `tessera_rate_limit_rejections_total` with the instance id (one series per instance and grant type, or limit). Turn off on nodes with many instances to keep the number of series small; the counters then have the grant type (limit) only.' },
  maxBodyBytes: { env: 'TESSERA_MAX_BODY_BYTES', schema: positiveInt.default(1_048_576), description: 'Largest accepted request body in bytes; larger bodies get 413.' },
  importMaxBodyBytes: { env: 'TESSERA_IMPORT_MAX_BODY_BYTES', schema: positiveInt.default(134_217_728), description: 'Largest request body of `POST /admin/v1/import` (and largest object it reads from a bucket), in bytes (default 128 MiB); larger bodies get 413. The document is parsed whole, so the import needs several times this much memory (docs/api/export-import.md). Other routes keep TESSERA_MAX_BODY_BYTES.' },
  outboundAllowPrivateNetworks: { env: 'TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS', schema: bool.default(false), description: 'Let calls to URLs and hosts tenants configure — execution targets, identity providers (discovery, token, userinfo), SMTP servers and SMS providers — reach loopback, private (RFC 1918), link-local (cloud metadata) and other non-public addresses. Off by default: only public addresses are connected to (checked after DNS resolution; redirects are not followed). Turn on for one trusted tenant, services next to the node, or development.' },
  gcsEndpoint: { env: 'TESSERA_GCS_ENDPOINT', schema: z.url({ protocol: /^https?$/ }).optional(), description: 'API endpoint of the object storage used by export `gcs_output` and import `data_orgsv1_gcs` (`https://storage.example.com`, a GCS-compatible gateway or emulator) instead of Google Cloud Storage. A service account\'s `token_uri` is honoured only when it is Google\'s or lies on this endpoint.' },
  maxHeaderCount: { env: 'TESSERA_MAX_HEADER_COUNT', schema: positiveInt.max(47).default(40), description: 'Most header fields a request may carry (repeats counted); more get 431. At most 47: the uWebSockets.js build parses 48 fields at most and gives a request with more no answer until its idle timeout closes the connection (node:http answers 431 for any count).' },
  maxHeaderBytes: { env: 'TESSERA_MAX_HEADER_BYTES', schema: positiveInt.max(100_000).default(32_768), description: 'Largest total size of a request\'s header fields in bytes (names, values, separators; the request line is not counted); larger get 431. At most 100000: the uWebSockets.js build resets connections whose header block exceeds about 128 KB, and closes unanswered a head above 4 KB that arrives in more than one read (docs/security.md, Input limits).' },
  bodyTimeoutMs: { env: 'TESSERA_BODY_TIMEOUT_MS', schema: positiveInt.default(10_000), description: 'Time allowed to receive a request body; slower bodies get 408.' },
  shutdownDrainMs: { env: 'TESSERA_SHUTDOWN_DRAIN_MS', schema: z.coerce.number().int().min(0).default(0), description: 'On SIGTERM/SIGINT/SIGHUP: how long the node keeps its listeners open and serving while `/readyz` answers 503, so load balancers stop sending before connections are refused (set it above the balancer\'s readiness period, e.g. 5000–15000 behind Kubernetes). Then the listeners close and TESSERA_SHUTDOWN_GRACE_MS starts. Default 0: close at once.' },
  shutdownGraceMs: { env: 'TESSERA_SHUTDOWN_GRACE_MS', schema: positiveInt.default(10_000), description: 'On SIGTERM/SIGINT/SIGHUP, after TESSERA_SHUTDOWN_DRAIN_MS: how long in-flight requests may finish once the listeners closed, before the node cuts them and stops.' },
  fairScheduler: { env: 'TESSERA_FAIR_SCHEDULER', schema: bool.default(true), description: 'Fair admission across instances on the main HTTP port (docs/architecture.md, "Fair between tenants"): requests wait in one queue per instance until the end of the event loop\'s poll, then start round-robin across instances, at most TESSERA_FAIR_TURN_BUDGET per loop turn, so a hammered instance waits behind its own backlog. `false` runs every request at once, in the order it was read.' },
  fairTurnBudget: { env: 'TESSERA_FAIR_TURN_BUDGET', schema: positiveInt.default(16), description: 'Requests started per event-loop turn from the instances\' queues (round-robin across instances); the rest start after the next poll, so a request of another instance that arrives meanwhile waits behind at most this many. Lower is fairer, higher polls less often.' },
  fairContendedTurnBudget: { env: 'TESSERA_FAIR_CONTENDED_TURN_BUDGET', schema: positiveInt.default(4), description: 'The turn budget while instances contend: from a loop turn that found requests of more than one instance waiting until a second later (at most TESSERA_FAIR_TURN_BUDGET). A request of another instance then waits behind at most this many of a hammered instance\'s; one instance alone keeps TESSERA_FAIR_TURN_BUDGET and its fewer polls. Lower is fairer and costs the hammered instance throughput (measured: bench/README.md "Turn budget while instances contend").' },
  fairMaxInFlight: { env: 'TESSERA_FAIR_MAX_IN_FLIGHT', schema: positiveInt.default(64), description: 'While the event loop is behind (TESSERA_FAIR_LAG_MS): how many requests started from the instances\' queues may be handled at once; the rest wait their turn. Health, readiness and metrics requests never wait.' },
  fairLagMs: { env: 'TESSERA_FAIR_LAG_MS', schema: z.coerce.number().int().min(0).default(10), description: 'The event loop counts as behind when a timer sampled every 20 ms fires more than this many milliseconds late; only then is TESSERA_FAIR_MAX_IN_FLIGHT enforced (when it keeps up, handlers waiting on I/O such as slow execution targets hold no one up). 0: always behind.' },
  fairQueueCapacity: { env: 'TESSERA_FAIR_QUEUE_CAPACITY', schema: positiveInt.default(512), description: 'Requests one instance may have waiting for admission; more answer 503 at once with Retry-After (`temporarily_unavailable` on the OAuth/OIDC endpoints, `http.queue_full` elsewhere).' },
  fairMaxWaitMs: { env: 'TESSERA_FAIR_MAX_WAIT_MS', schema: positiveInt.default(10000), description: 'A request that waited this many milliseconds in its instance\'s queue is answered 503 with Retry-After instead of started (its client has most likely given up).' },
  workers: { env: 'TESSERA_WORKERS', schema: positiveInt.max(256).optional(), description: 'Worker threads serving the main HTTP port (docs/architecture.md, "Workers"): the main thread prepares the store once, then starts this many workers, each serving every instance on the same port (SO_REUSEPORT) with read-your-writes across them; gRPC and TESSERA_METRICS_PORT are served by the first worker. Unset: the usable cores (`os.availableParallelism()`: the CPUs this process may run on, so `taskset` or a container CPU set counts; a cgroup CPU quota counts only with libuv 1.49 or later, not on Node 20), at most 8; 1 runs the node as one thread with no main thread beside it. Each extra worker costs about 34 MiB of RSS once idle (about 49 MiB from one thread to 2 workers, the main thread included; more once they have served API calls) and, on PostgreSQL, its own connection pool (10, plus 2 for rate-limit counts): set 1 where memory is small (under ~512 MB) or the CPU is a quota of one core, and size PostgreSQL `max_connections` for nodes × workers (docs/operations/running.md#worker-threads). With the node:http adapter several workers need Node 22.12 or later (`reusePort`); older versions run one.' },
  actorIdleMs: { env: 'TESSERA_ACTOR_IDLE_MS', schema: positiveInt.default(60_000), description: 'Idle time after which a tenant actor passivates (leaves memory).' },
  actorMailboxCapacity: { env: 'TESSERA_ACTOR_MAILBOX_CAPACITY', schema: positiveInt.default(1_000), description: 'Commands one tenant actor (an instance, an organization) may hold, queued and running; past it a write fails at once with 503 `actor.mailbox_full` and Retry-After instead of queueing (docs/architecture.md, "Fair between tenants").' },
  actorInstanceQueueCapacity: { env: 'TESSERA_ACTOR_INSTANCE_QUEUE_CAPACITY', schema: positiveInt.default(10_000), description: 'Commands all actors of one instance may hold together; past it a write of that instance fails at once with 503 `actor.instance_queue_full` and Retry-After, so one hammered instance cannot hold the node\'s memory.' },
  sweepIntervalMs: { env: 'TESSERA_SWEEP_INTERVAL_MS', schema: positiveInt.default(60_000), description: 'Interval of the sweeper deleting expired protocol state (codes, sessions, tokens).' },
  defaultFeatures: { env: 'TESSERA_DEFAULT_FEATURES', schema: list.default([]), description: 'Comma-separated feature flags a new instance starts with, e.g. `multitenancy_resources_api,multitenancy_settings`.' },
  firstOrgName: { env: 'TESSERA_FIRST_ORG_NAME', schema: z.string().min(1).max(200).default('Default'), description: 'Name of the default organization created on an empty store.' },
  adminUsername: { env: 'TESSERA_ADMIN_USERNAME', schema: z.string().min(1).max(200).default('admin'), description: 'Username of the admin service user created on an empty store.' },
  adminTokenDays: { env: 'TESSERA_ADMIN_TOKEN_DAYS', schema: positiveInt.default(365), description: 'Lifetime in days of the admin personal access token created on an empty store.' },
  domainValidationDnsServers: { env: 'TESSERA_DOMAIN_VALIDATION_DNS_SERVERS', schema: dnsServers.default([]), description: 'Comma-separated DNS servers (`ip` or `ip:port`) the organization-domain DNS challenge asks for TXT records; empty uses the system resolver.' },
  domainValidationHttpBase: { env: 'TESSERA_DOMAIN_VALIDATION_HTTP_BASE', schema: z.url({ protocol: /^https?$/ }).optional(), description: 'Base URL the organization-domain HTTP challenge is fetched from instead of `https://<domain>` (a proxy or private network), sent with `Host: <domain>`. Unset in production.' },
  signingAlgorithm: { env: 'TESSERA_SIGNING_ALGORITHM', schema: z.enum(['RS256', 'ES256', 'EdDSA']).default('RS256'), description: 'Algorithm of newly generated signing keys (ID tokens, JWT access tokens): RS256 (RSA 2048, the OIDC default), ES256 (P-256) or EdDSA (Ed25519). Existing keys keep theirs; the change reaches tokens after the new key has been `next` and was activated by a rotation (docs/oidc/keys.md).' },
  keyRotationInterval: { env: 'TESSERA_KEY_ROTATION_INTERVAL', schema: durationMs('30d'), description: 'Scheduled rotation: an instance whose active signing key is older than this gets rotated (`30d`, `12h`, `90m`, ... or milliseconds; default 30d). `0` turns scheduled rotation off (`tessera keys rotate` and the API still rotate).' },
  accessTokenLifetime: { env: 'TESSERA_ACCESS_TOKEN_LIFETIME', schema: durationMs('12h'), description: 'Lifetime of access tokens issued by the token endpoint (JWT and opaque; default 12h). Keep it below TESSERA_KEY_RETIRE_AFTER.' },
  idTokenLifetime: { env: 'TESSERA_ID_TOKEN_LIFETIME', schema: durationMs('12h'), description: 'Lifetime of ID tokens (default 12h). Keep it below TESSERA_KEY_RETIRE_AFTER.' },
  refreshTokenLifetime: { env: 'TESSERA_REFRESH_TOKEN_LIFETIME', schema: durationMs('90d'), description: 'Absolute lifetime of a refresh token grant, counted from the first token (default 90d); rotation does not extend it.' },
  refreshTokenIdleLifetime: { env: 'TESSERA_REFRESH_TOKEN_IDLE_LIFETIME', schema: durationMs('30d'), description: 'A refresh token unused this long expires (default 30d); each refresh starts the period again.' },
  keyRetireAfter: { env: 'TESSERA_KEY_RETIRE_AFTER', schema: durationMs('13h'), description: 'How long a retired signing key stays in the key set after it stopped signing: at least the longest ID/access token lifetime (12 h by default) plus clock skew (default 13h).' },
  forgeIssuer: { env: 'TESSERA_FORGE_ISSUER', schema: z.url({ protocol: /^https?$/ }).default('https://forge.example.com'), description: 'OpenID Connect issuer of the hosted forge: the login UI\'s external login with a FORGE IDP discovers it (a FORGE_SELF_HOSTED IDP names its own issuer). The default is a placeholder; set the real issuer before offering FORGE IDPs.' },
  rateLimits: { env: 'TESSERA_RATE_LIMITS', schema: bool.default(true), description: 'Rate limits of this node (docs/operations/rate-limits.md): `false` turns every TESSERA_RATE_LIMIT_* off at once (benchmarks, trusted test rigs).' },
  rateLimitStore: { env: 'TESSERA_RATE_LIMIT_STORE', schema: z.enum(['memory', 'postgres']).optional(), description: 'Where rate-limit counts live: `memory` (each node counts on its own) or `postgres` (counts shared by every node on the database, so N nodes together allow the limit; needs TESSERA_DATABASE_URL). Default: `postgres` when the node stores its data in PostgreSQL, else `memory` (docs/operations/rate-limits.md).' },
  rateLimitClient: { env: 'TESSERA_RATE_LIMIT_CLIENT', schema: rateLimit('1000/1s'), description: 'Requests per client (client_id of an instance) to the token, introspection and revocation endpoints: `N/duration` or `off`.' },
  rateLimitClientAuthFailures: { env: 'TESSERA_RATE_LIMIT_CLIENT_AUTH_FAILURES', schema: rateLimit('10/1m'), description: 'Failed client authentications (wrong secret, bad assertion) per client before the client is refused with 429 for the rest of the window: `N/duration` or `off`.' },
  rateLimitLoginPagesIp: { env: 'TESSERA_RATE_LIMIT_LOGIN_PAGES_IP', schema: rateLimit('600/1m'), description: 'Requests per client IP address to the authorization endpoint, the login UI and end_session: `N/duration` or `off`.' },
  rateLimitPasswordIp: { env: 'TESSERA_RATE_LIMIT_PASSWORD_IP', schema: rateLimit('120/1m'), description: 'Password checks, self-registrations and the other login UI steps that check a code or send one (docs/operations/rate-limits.md, "Login UI steps") per client IP address: `N/duration` or `off`.' },
  rateLimitPasswordLoginName: { env: 'TESSERA_RATE_LIMIT_PASSWORD_LOGIN_NAME', schema: rateLimit('20/1m'), description: 'The same login UI steps, and the user API password reset with a code, per account of an instance (an unknown login name: the name itself): `N/duration` or `off`.' },
  rateLimitApiCaller: { env: 'TESSERA_RATE_LIMIT_API_CALLER', schema: rateLimit('6000/1m'), description: 'Resource and settings API calls per authenticated caller of an instance, over every transport: `N/duration` or `off`.' },
  otlpTracesEndpoint: { env: 'TESSERA_OTLP_TRACES_ENDPOINT', schema: z.url({ protocol: /^https?$/ }).optional(), description: 'OTLP/HTTP (JSON) traces endpoint, e.g. `http://127.0.0.1:4318/v1/traces`. Tracing is off unless set (docs/operations/tracing.md).' },
  traceSampleRatio: { env: 'TESSERA_TRACE_SAMPLE_RATIO', schema: z.coerce.number().min(0).max(1).default(1), description: 'Share of new traces recorded (0–1, default 1); a request continuing a sampled `traceparent` is always recorded.' },
  smtpHost: { env: 'TESSERA_SMTP_HOST', schema: z.string().min(1).max(253).optional(), description: 'Default SMTP server of the node (host name or IP address): used to send the mail of instances without an active SMTP provider (password reset codes). Unset: such instances have no mail, and flows that need it are hidden in the login UI and answer 400 FailedPrecondition in the API. Obeys the outbound policy (TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS).' },
  smtpPort: { env: 'TESSERA_SMTP_PORT', schema: port.default(587), description: 'Port of the default SMTP server (TESSERA_SMTP_HOST).' },
  smtpTls: { env: 'TESSERA_SMTP_TLS', schema: z.enum(['none', 'starttls', 'tls']).default('starttls'), description: 'TLS mode of the default SMTP server: `none` (plain text), `starttls` (upgrade required) or `tls` (implicit TLS, usually port 465).' },
  smtpUser: { env: 'TESSERA_SMTP_USER', schema: z.string().max(320).default(''), description: 'User name for SMTP AUTH at the default SMTP server (empty: no authentication).' },
  smtpPassword: { env: 'TESSERA_SMTP_PASSWORD', schema: z.string().max(1024).default(''), description: 'Password for SMTP AUTH at the default SMTP server.' },
  smtpFrom: { env: 'TESSERA_SMTP_FROM', schema: z.email().optional(), description: 'Sender address of the default SMTP server\'s mail; required when TESSERA_SMTP_HOST is set.' },
  smtpFromName: { env: 'TESSERA_SMTP_FROM_NAME', schema: z.string().max(200).default(''), description: 'Sender display name of the default SMTP server\'s mail.' },
  outboxPollMs: { env: 'TESSERA_OUTBOX_POLL_MS', schema: positiveInt.default(2_000), description: 'How often the outbox worker looks for pending messages (mail, SMS) besides being woken by a new one on this node; also how soon a node picks up messages queued on another node sharing the store.' },
  outboxBackoffMs: { env: 'TESSERA_OUTBOX_BACKOFF_MS', schema: positiveInt.default(5_000), description: 'Wait before the second delivery attempt of an outbox message; doubled after every failed attempt up to TESSERA_OUTBOX_MAX_BACKOFF_MS.' },
  outboxMaxBackoffMs: { env: 'TESSERA_OUTBOX_MAX_BACKOFF_MS', schema: positiveInt.default(600_000), description: 'Longest wait between two delivery attempts of an outbox message.' },
  outboxMaxAttempts: { env: 'TESSERA_OUTBOX_MAX_ATTEMPTS', schema: positiveInt.max(100).default(10), description: 'Delivery attempts of an outbox message (the first included) before it is abandoned (`message.abandoned`, counted as `result="abandoned"`).' },
  passwordResetCodeTtlMs: { env: 'TESSERA_PASSWORD_RESET_CODE_TTL_MS', schema: positiveInt.default(900_000), description: 'Lifetime of a password reset code sent by mail (default 15 minutes); a code is single-use and replaced by a newer one.' },
  otpCodeTtlMs: { env: 'TESSERA_OTP_CODE_TTL_MS', schema: positiveInt.default(300_000), description: 'Lifetime of a login code of OTP by email or SMS (default 5 minutes); a code is single-use and replaced by a newer one.' },
  contactCodeTtlMs: { env: 'TESSERA_CONTACT_CODE_TTL_MS', schema: positiveInt.default(900_000), description: 'Lifetime of an email or phone verification code (default 15 minutes); a code is single-use, bound to the address, and replaced by a newer one.' },
  systemUsers: { env: 'TESSERA_SYSTEM_USERS', schema: systemUsersSchema, description: 'System API users (docs/api/instances.md): a map of user name → `{ publicKey: <PEM> }` or `{ publicKeyPath: <file> }`, with optional `roles` (`SYSTEM_OWNER` (default), `SYSTEM_OWNER_VIEWER`). The environment variable takes the map as JSON. A user signs JWTs (RS256, ES256 or EdDSA) with `iss` = `sub` = its name.' },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

const shape = Object.fromEntries(Object.entries(CONFIG_KEYS).map(([k, spec]) => [k, spec.schema])) as {
  [K in ConfigKey]: (typeof CONFIG_KEYS)[K]['schema'];
};

export const configSchema = z
  .object(shape)
  .strict()
  .superRefine((config, ctx) => {
    if ((config.tlsCertPath === undefined) !== (config.tlsKeyPath === undefined)) {
      const missing = config.tlsCertPath === undefined ? 'tlsCertPath' : 'tlsKeyPath';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'set TESSERA_TLS_CERT_PATH and TESSERA_TLS_KEY_PATH together' });
    }
    if (config.rateLimitStore === 'postgres' && config.databaseUrl === undefined) {
      ctx.addIssue({ code: 'custom', path: ['rateLimitStore'], message: 'postgres needs TESSERA_DATABASE_URL (the node stores its data in PostgreSQL)' });
    }
    if (config.smtpHost !== undefined && config.smtpFrom === undefined) {
      ctx.addIssue({ code: 'custom', path: ['smtpFrom'], message: 'set TESSERA_SMTP_FROM with TESSERA_SMTP_HOST' });
    }
  });

export type Config = Readonly<z.output<typeof configSchema>>;

/** The most worker threads a node starts when TESSERA_WORKERS is unset (memory and PostgreSQL connections grow with each). */
export const DEFAULT_MAX_WORKERS = 8;

/** The worker threads the node runs: TESSERA_WORKERS, else the usable cores (at most DEFAULT_MAX_WORKERS). */
export function workerCount(config: Pick<Config, 'workers'>, cores: number = availableParallelism()): number {
  return config.workers ?? Math.max(1, Math.min(cores, DEFAULT_MAX_WORKERS));
}
