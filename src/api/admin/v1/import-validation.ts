/**
 * The edge rules the resource APIs apply, applied to imported objects item by item (commands
 * trust the edge): an object breaking them fails alone (`import.value_invalid`, the field in
 * the message) instead of reaching a command. The same validators as the APIs, never copies.
 */
import { z } from 'zod';
import { invalidArgument } from '../../../../actors/index.js';
import { domainName } from '../../resources/domains/shared.js';
import { resourceName } from '../../resources/projects/shared.js';
import { description, emailAddress, language, optionalText, phoneNumber, requiredName, username } from '../../resources/users/input.js';
import { metadataKey } from '../../resources/users/set-user-metadata.js';
import { toViolation } from '../../shared/validate.js';
import type { NameMapping } from './export-format.js';

const MAX_METADATA_BYTES = 4096;
/** PHC strings are short; anything longer is not a password hash. */
const MAX_HASH_LENGTH = 1000;

export const humanItem = z.object({
  userName: username,
  profile: z.object({ firstName: requiredName, lastName: requiredName, nickName: optionalText, displayName: optionalText, preferredLanguage: language }),
  email: z.object({ email: emailAddress }),
  phone: z.object({ phone: z.union([z.literal(''), phoneNumber]) }).optional(),
  hashedPassword: z
    .object({ value: z.string().max(MAX_HASH_LENGTH, `must be at most ${MAX_HASH_LENGTH} characters`).regex(/^(\$.+)?$/, 'must be an encoded hash ($argon2id$…, $2a$…)') })
    .optional(),
});

/** `otpCode`: a TOTP secret in base32 (RFC 4648, A-Z and 2-7; 16..128 characters, i.e. 80+ bits). */
export const otpItem = z.object({ otpCode: z.string().regex(/^[A-Z2-7]{16,128}=*$/, 'must be a base32 secret (A-Z, 2-7; 16 to 128 characters)') });

export const machineItem = z.object({ userName: username, name: requiredName, description });

export const metadataItem = z.object({
  key: metadataKey,
  value: z
    .base64('must be base64')
    .refine((v) => v !== '', 'required')
    .refine((v) => Buffer.from(v, 'base64').length <= MAX_METADATA_BYTES, `must be at most ${MAX_METADATA_BYTES} bytes`),
});

export const domainItem = z.object({ domainName });
export const namedItem = z.object({ name: resourceName });
export const roleItem = z.object({ displayName: z.string().trim().max(200, 'must be at most 200 characters'), group: z.string().trim().max(200, 'must be at most 200 characters') });

/** Throws `import.value_invalid` naming the first bad field (under `prefix`) unless `value` fits. */
export function checkItem(schema: z.ZodType, value: unknown, prefix: string): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  const violations = result.error.issues.map((issue) => toViolation(issue, prefix));
  const first = violations[0]!; // a failed parse has at least one issue
  throw invalidArgument('import.value_invalid', `${first.field}: ${first.description}`, { violations });
}

/** The domain value of an enum name; '' (absent in proto3 JSON) is the default. Unknown → `import.value_invalid`. */
export function enumOf<D extends string>(mapping: NameMapping<D>, name: string, fallback: D, field: string): D {
  if (name === '') return fallback;
  const value = mapping.toDomain(name);
  if (value === undefined) throw invalidArgument('import.value_invalid', `${field} has an unknown value`);
  return value;
}
