/**
 * The export document (`{"orgs":[DataOrg…]}`, reference facts §6.1) in proto3-JSON style:
 * camelCase keys, enums by name. Shared by the export writer and the import reader, so the
 * two directions cannot drift apart. Tessera extensions are marked; the reader never needs them.
 */
import type { DataLoginPolicy } from './login-policy-document.js';
import type {
  AccessTokenType,
  ApiAuthMethod,
  AutoLinking,
  DefiningPolicy,
  DomainValidationType,
  Gender,
  IdpType,
  OidcAppType,
  OidcAuthMethod,
  OidcGrantType,
  OidcResponseType,
} from '../../../../actors/index.js';

export interface DataOrg {
  orgId: string;
  org: { name: string };
  /** Tessera extension: the organization's own language settings (only the keys it sets). */
  languageSettings?: { defaultLanguage?: string; restrictedLanguages?: string[] };
  /** Tessera extension: the login texts the organization itself sets, per language. */
  textSettings?: { language: string; texts: Record<string, string> }[];
  /** Tessera extension: the branding properties the organization itself sets. */
  brandingSettings?: Record<string, string | boolean>;
  /**
   * The organization's own lockout policy (reference facts §6.1), only when it sets one; uint64
   * values as proto3-JSON strings.
   */
  lockoutPolicy?: { maxPasswordAttempts?: string | number; maxOtpAttempts?: string | number };
  /** The organization's own login policy (reference facts §6.1), only when it has one (login-policy-document.ts). */
  loginPolicy?: DataLoginPolicy;
  /** The older `data_orgsv1` format's factors at organization level (reference facts §6.1): read on import into `loginPolicy`, never exported. */
  secondFactors?: { type: string | number }[];
  multiFactors?: { type: string | number }[];
  domains?: DataDomain[];
  /** Tessera extension: identity providers the organization defines (forge types; instance IDPs are excluded). */
  forgeIdps?: DataForgeIdp[];
  humanUsers?: DataHumanUser[];
  machineUsers?: DataMachineUser[];
  userMetadata?: { id: string; key: string; value: string }[];
  userLinks?: DataUserLink[];
  projects?: DataProject[];
  projectRoles?: { projectId: string; roleKey: string; displayName: string; group: string }[];
  oidcApps?: DataOidcApp[];
  apiApps?: { appId: string; app: { projectId: string; name: string; authMethodType: string } }[];
  projectGrants?: { grantId: string; projectGrant: { projectId: string; grantedOrgId: string; roleKeys: string[] }; state?: string }[];
  /** `grantId` is a Tessera extension (the reference has none): it keeps the grant's id. */
  userGrants?: { userId: string; projectId: string; projectGrantId: string; roleKeys: string[]; grantId?: string; state?: string }[];
  orgMembers?: { userId: string; roles: string[] }[];
  projectMembers?: { projectId: string; userId: string; roles: string[] }[];
}

export interface DataDomain {
  orgId: string;
  domainName: string;
  isVerified: boolean;
  isPrimary: boolean;
  validationType: string;
}

/**
 * Tessera extension on users, projects and grants: `state`, present only when the object is
 * not active (`USER_STATE_INACTIVE`, `USER_STATE_LOCKED`, `PROJECT_STATE_INACTIVE`,
 * `PROJECT_GRANT_STATE_INACTIVE`, `USER_GRANT_STATE_INACTIVE`); the import applies it last.
 */
export const INACTIVE_STATES = {
  userInactive: 'USER_STATE_INACTIVE',
  userLocked: 'USER_STATE_LOCKED',
  project: 'PROJECT_STATE_INACTIVE',
  projectGrant: 'PROJECT_GRANT_STATE_INACTIVE',
  userGrant: 'USER_GRANT_STATE_INACTIVE',
} as const;

export interface DataForgeIdp {
  idpId: string;
  idp: {
    name: string;
    idpType: string;
    policy: string;
    options: { isManualLinkingAllowed: boolean; isManualCreationAllowed: boolean; isAutoCreation: boolean; isAutoUpdate: boolean; autoLinking: string };
    clientId: string;
    /** In plaintext, as the reference exports IDP secrets: the document is sensitive. */
    clientSecret: string;
    scopes: string[];
    issuer: string;
  };
}

export interface DataHumanUser {
  userId: string;
  state?: string;
  user: {
    userName: string;
    profile: { firstName: string; lastName: string; nickName: string; displayName: string; preferredLanguage: string; gender: string };
    email: { email: string; isEmailVerified: boolean };
    phone?: { phone: string; isPhoneVerified: boolean };
    hashedPassword?: { value: string };
    passwordChangeRequired: boolean;
    /** with_otp: the verified TOTP secret in base32 (imported as a verified TOTP factor). */
    otpCode?: string;
  };
}

export interface DataMachineUser {
  userId: string;
  state?: string;
  user: { userName: string; name: string; description: string; accessTokenType: string };
}

export interface DataProject {
  projectId: string;
  state?: string;
  project: { name: string; projectRoleAssertion: boolean; projectRoleCheck: boolean; hasProjectCheck: boolean };
}

export interface DataOidcApp {
  appId: string;
  app: {
    projectId: string;
    name: string;
    redirectUris: string[];
    responseTypes: string[];
    grantTypes: string[];
    appType: string;
    authMethodType: string;
    postLogoutRedirectUris: string[];
    version: string;
    devMode: boolean;
    accessTokenType: string;
    accessTokenRoleAssertion: boolean;
    idTokenRoleAssertion: boolean;
    idTokenUserinfoAssertion: boolean;
    /** proto3 JSON Duration, e.g. `"0.5s"`. */
    clockSkew: string;
    additionalOrigins: string[];
    skipNativeAppSuccessPage: boolean;
  };
}

/** Two-way mapping between domain names and the reference's enum names. */
export interface NameMapping<D extends string> {
  toWire(value: D): string;
  /** Undefined for an unknown name. */
  toDomain(name: string): D | undefined;
}

function nameMapping<D extends string>(table: Readonly<Record<D, string>>): NameMapping<D> {
  const reverse = new Map<string, D>(Object.entries(table).map(([domain, wire]) => [wire as string, domain as D]));
  return { toWire: (value) => table[value], toDomain: (name) => reverse.get(name) };
}

export const idpTypeNames = nameMapping<IdpType>({ forge: 'IDP_TYPE_FORGE', forge_self_hosted: 'IDP_TYPE_FORGE_SELF_HOSTED' });

export const idpPolicyNames = nameMapping<DefiningPolicy>({ activate: 'STATE_POLICY_ACTIVATE', deactivate: 'STATE_POLICY_DEACTIVATE' });

export const autoLinkingNames = nameMapping<AutoLinking>({ none: 'AUTO_LINKING_OPTION_UNSPECIFIED', username: 'AUTO_LINKING_OPTION_USERNAME', email: 'AUTO_LINKING_OPTION_EMAIL' });

export const genders = nameMapping<Gender>({
  unspecified: 'GENDER_UNSPECIFIED',
  female: 'GENDER_FEMALE',
  male: 'GENDER_MALE',
  diverse: 'GENDER_DIVERSE',
});

export const userTokenTypes = nameMapping<AccessTokenType>({ bearer: 'ACCESS_TOKEN_TYPE_BEARER', jwt: 'ACCESS_TOKEN_TYPE_JWT' });

export const validationTypes = nameMapping<DomainValidationType>({ dns: 'DOMAIN_VALIDATION_TYPE_DNS', http: 'DOMAIN_VALIDATION_TYPE_HTTP' });

export const appTypeNames = nameMapping<OidcAppType>({ web: 'OIDC_APP_TYPE_WEB', user_agent: 'OIDC_APP_TYPE_USER_AGENT', native: 'OIDC_APP_TYPE_NATIVE' });

export const responseTypeNames = nameMapping<OidcResponseType>({
  code: 'OIDC_RESPONSE_TYPE_CODE',
  id_token: 'OIDC_RESPONSE_TYPE_ID_TOKEN',
  id_token_token: 'OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN',
});

export const grantTypeNames = nameMapping<OidcGrantType>({
  authorization_code: 'OIDC_GRANT_TYPE_AUTHORIZATION_CODE',
  implicit: 'OIDC_GRANT_TYPE_IMPLICIT',
  refresh_token: 'OIDC_GRANT_TYPE_REFRESH_TOKEN',
  device_code: 'OIDC_GRANT_TYPE_DEVICE_CODE',
  token_exchange: 'OIDC_GRANT_TYPE_TOKEN_EXCHANGE',
});

export const oidcAuthMethodNames = nameMapping<OidcAuthMethod>({
  basic: 'OIDC_AUTH_METHOD_TYPE_BASIC',
  post: 'OIDC_AUTH_METHOD_TYPE_POST',
  none: 'OIDC_AUTH_METHOD_TYPE_NONE',
  private_key_jwt: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT',
});

export const oidcTokenTypeNames = nameMapping<AccessTokenType>({ bearer: 'OIDC_TOKEN_TYPE_BEARER', jwt: 'OIDC_TOKEN_TYPE_JWT' });

export const apiAuthMethodNames = nameMapping<ApiAuthMethod>({
  basic: 'API_AUTH_METHOD_TYPE_BASIC',
  private_key_jwt: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT',
});

/** `1500` ms → `"1.5s"` (proto3 JSON Duration). */
export function msToDuration(ms: number): string {
  return `${ms / 1000}s`;
}

/** `"1.5s"` → 1500; undefined when it is not a proto3 JSON Duration. */
export function durationToMs(text: string): number | undefined {
  const match = /^(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * 1000 + Math.round(Number(`0.${match[2] ?? '0'}`) * 1000);
}

/** A human user's link to an external identity of one of the organization's (or the instance's) IDPs. */
export interface DataUserLink {
  userId: string;
  idpId: string;
  idpName: string;
  providedUserId: string;
  providedUserName: string;
  idpType: string;
}
