/**
 * Shape checks of an application's configuration at the edge (zod), producing the domain
 * configuration: defined enum values, absolute redirect URIs without fragment, origins, a clock
 * skew within 0..5 s. The business rules (https, auth method per app type, response types ↔
 * grant types) are the actor's (actors/organization/app-config.ts).
 */
import { z } from 'zod';
import { MAX_CLOCK_SKEW_MS, type ApiConfig, type OidcConfig } from '../../../../actors/index.js';
import { accessTokenTypes, apiAuthMethods, appTypes, grantTypes, oidcAuthMethods, responseTypes, type EnumMapping } from './enums.js';

/** A wire enum value that must be one of the mapping's defined values (0 = UNSPECIFIED: `required`). */
function definedEnum<D extends string>(mapping: EnumMapping<number, D>) {
  return z.number().transform((value, ctx) => {
    const domain = mapping.toDomain(value);
    if (domain === undefined) {
      ctx.addIssue({ code: 'custom', message: value === 0 ? 'required' : 'must be a defined value' });
      return z.NEVER;
    }
    return domain;
  });
}

function enumList<D extends string>(mapping: EnumMapping<number, D>) {
  return z.array(definedEnum(mapping)).max(10, 'at most 10 entries').transform((values) => [...new Set(values)]);
}

function isAbsoluteUri(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:[^\s#]+$/.test(value)) return false; // scheme, no whitespace, no fragment (RFC 6749 §3.1.2)
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return url.origin !== 'null' && url.origin === value;
  } catch {
    return false;
  }
}

const uriList = z
  .array(z.string().max(2048, 'must be at most 2048 characters').refine(isAbsoluteUri, 'must be an absolute URI without fragment'))
  .max(100, 'at most 100 entries')
  .transform((values) => [...new Set(values)]);

const originList = z
  .array(z.string().max(2048, 'must be at most 2048 characters').refine(isOrigin, 'must be an origin: scheme://host[:port]'))
  .max(100, 'at most 100 entries')
  .transform((values) => [...new Set(values)]);

/** google.protobuf.Duration → milliseconds within 0..5 s; undefined when absent. */
const clockSkew = z
  .object({ seconds: z.bigint(), nanos: z.number() })
  .optional()
  .transform((duration, ctx) => {
    if (duration === undefined) return undefined;
    const ms = Number(duration.seconds) * 1000 + Math.trunc(duration.nanos / 1e6);
    if (ms < 0 || ms > MAX_CLOCK_SKEW_MS) {
      ctx.addIssue({ code: 'custom', message: 'must be between 0s and 5s' });
      return z.NEVER;
    }
    return ms;
  });

/** OidcConfig of a create: every field; unspecified access token type is BEARER. */
export const oidcConfigInput = z
  .object({
    appType: definedEnum(appTypes),
    redirectUris: uriList,
    postLogoutRedirectUris: uriList,
    responseTypes: enumList(responseTypes),
    grantTypes: enumList(grantTypes),
    authMethod: definedEnum(oidcAuthMethods),
    accessTokenType: z.union([z.literal(0).transform(() => 'bearer' as const), definedEnum(accessTokenTypes)]),
    idTokenUserinfoAssertion: z.boolean(),
    idTokenRoleAssertion: z.boolean(),
    accessTokenRoleAssertion: z.boolean(),
    clockSkew,
    devMode: z.boolean(),
    additionalOrigins: originList,
    skipNativeAppSuccessPage: z.boolean(),
  })
  .transform(({ clockSkew: skew, accessTokenType, ...config }): OidcConfig => {
    const noFlows = config.responseTypes.length === 0 && config.grantTypes.length === 0;
    return {
      ...config,
      ...(noFlows ? { responseTypes: ['code'], grantTypes: ['authorization_code'] } : {}),
      accessTokenType,
      clockSkewMs: skew ?? 0,
    };
  });

export const apiConfigInput = z.object({ authMethod: definedEnum(apiAuthMethods) }).transform((c): ApiConfig => c);

/** An empty repeated field of a patch means "unchanged". */
function unlessEmpty<T>(values: readonly T[]): readonly T[] | undefined {
  return values.length === 0 ? undefined : values;
}

/** PatchOidcConfig: only the fields that are set; a set enum must be a defined value. */
export const oidcPatchInput = z
  .object({
    appType: definedEnum(appTypes).optional(),
    redirectUris: uriList.transform(unlessEmpty),
    postLogoutRedirectUris: uriList.transform(unlessEmpty),
    responseTypes: enumList(responseTypes).transform(unlessEmpty),
    grantTypes: enumList(grantTypes).transform(unlessEmpty),
    authMethod: definedEnum(oidcAuthMethods).optional(),
    accessTokenType: definedEnum(accessTokenTypes).optional(),
    idTokenUserinfoAssertion: z.boolean().optional(),
    idTokenRoleAssertion: z.boolean().optional(),
    accessTokenRoleAssertion: z.boolean().optional(),
    clockSkew,
    devMode: z.boolean().optional(),
    additionalOrigins: originList.transform(unlessEmpty),
    skipNativeAppSuccessPage: z.boolean().optional(),
  })
  .transform(({ clockSkew: skew, ...patch }): Partial<OidcConfig> => {
    const changes: Record<string, unknown> = { ...patch, clockSkewMs: skew };
    for (const key of Object.keys(changes)) if (changes[key] === undefined) delete changes[key];
    return changes as Partial<OidcConfig>;
  });

export const apiPatchInput = z
  .object({ authMethod: definedEnum(apiAuthMethods).optional() })
  .transform((c): Partial<ApiConfig> => (c.authMethod === undefined ? {} : { authMethod: c.authMethod }));
