/**
 * The `systemUsers` configuration key: system API users, each with the public key that
 * verifies its JWTs and its system roles. File form: a map name → `{ publicKey: <PEM> }` or
 * `{ publicKeyPath: <file> }`, optional `roles`; env form: the same map as JSON. Key files
 * are read and every key is checked here, so a bad key stops the start like any bad value.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const SYSTEM_USER_ROLES = ['SYSTEM_OWNER', 'SYSTEM_OWNER_VIEWER'] as const;

/** A configured system user: its public key (PEM, SPKI) and roles. */
export interface SystemUserConfig {
  readonly publicKey: string;
  readonly roles: readonly (typeof SYSTEM_USER_ROLES)[number][];
}

const userName = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/;

const userEntry = z
  .object({
    publicKey: z.string().min(1).optional(),
    publicKeyPath: z.string().min(1).optional(),
    roles: z.array(z.enum(SYSTEM_USER_ROLES)).min(1).optional(),
  })
  .strict();

interface Issues {
  readonly issues: { push(issue: { code: 'custom'; message: string; input: unknown }): unknown };
}

function parseJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value; // the record schema reports it
  }
}

function resolveUser(name: string, raw: unknown, ctx: Issues): SystemUserConfig | undefined {
  const fail = (message: string) => {
    ctx.issues.push({ code: 'custom', message: `user "${name}": ${message}`, input: raw });
    return undefined;
  };
  if (!userName.test(name)) return fail('names are 1..100 characters of letters, digits, ".", "_", "@", "-"');
  const parsed = userEntry.safeParse(raw);
  if (!parsed.success) {
    return fail(parsed.error.issues.map((i) => `${i.path.join('.') || '(entry)'}: ${i.message}`).join('; '));
  }
  const { publicKey, publicKeyPath, roles } = parsed.data;
  if ((publicKey === undefined) === (publicKeyPath === undefined)) return fail('set exactly one of publicKey or publicKeyPath');
  let pem = publicKey;
  if (publicKeyPath !== undefined) {
    try {
      pem = readFileSync(publicKeyPath, 'utf8');
    } catch (error) {
      return fail(`cannot read publicKeyPath (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  const problem = checkPublicKey(pem ?? '');
  if (problem !== undefined) return fail(problem);
  return { publicKey: pem ?? '', roles: roles ?? ['SYSTEM_OWNER'] };
}

/** Why a PEM cannot verify system JWTs (RS256: RSA ≥ 2048 bits, ES256: P-256, EdDSA: Ed25519). */
function checkPublicKey(pem: string): string | undefined {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    return 'the public key is not a valid PEM public key';
  }
  const details = key.asymmetricKeyDetails;
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return (details?.modulusLength ?? 0) >= 2048 ? undefined : 'RSA keys need at least 2048 bits';
    case 'ec':
      return details?.namedCurve === 'prime256v1' ? undefined : 'EC keys must use the P-256 curve (ES256)';
    case 'ed25519':
      return undefined;
    default:
      return 'the key must be RSA (RS256), EC P-256 (ES256) or Ed25519 (EdDSA)';
  }
}

export const systemUsersSchema = z
  .preprocess(parseJsonText, z.record(z.string(), z.unknown(), 'must be a map of user name to { publicKey | publicKeyPath, roles } (JSON in the environment)'))
  .transform((users, ctx) => {
    const resolved: Record<string, SystemUserConfig> = {};
    for (const [name, raw] of Object.entries(users)) {
      const user = resolveUser(name, raw, ctx);
      if (user !== undefined) resolved[name] = user;
    }
    return resolved as Readonly<Record<string, SystemUserConfig>>;
  })
  .default({});
