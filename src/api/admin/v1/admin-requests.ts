/**
 * Bodies of `/admin/v1/export` and `/admin/v1/import` (seed 001): snake_case or camelCase keys,
 * a `timeout` duration (`"10m"`, `"1h30m"`, `"90s"`, `"1.5s"`), and the export document itself
 * (a string holding the JSON, or the object). Shape errors are 400s naming the field.
 */
import { z } from 'zod';
import { invalidArgument, validationFailed } from '../../../../actors/index.js';
import { parseDuration } from '../../../config/duration.js';
import { parseWith } from '../../shared/validate.js';
import { parseServiceAccount } from './bucket-auth.js';
import type { BucketLocation } from './bucket-object.js';
import { durationToMs, type DataOrg } from './export-format.js';

/** Longest accepted timeout (a day): a call this long is a mistake, not a migration. */
const MAX_TIMEOUT_MS = 86_400_000;
const DEFAULT_EXPORT_TIMEOUT_MS = 600_000;

export interface ExportRequest {
  readonly orgIds: readonly string[];
  readonly excludedOrgIds: readonly string[];
  readonly withPasswords: boolean;
  readonly withOtp: boolean;
  readonly timeoutMs: number;
  /** Where the document goes: the response body, or an object (`gcs_output`). */
  readonly bucket: BucketLocation | undefined;
}

export interface ImportRequest {
  readonly timeoutMs: number;
  /** The inline document (`data_orgsv1`), or where to read it (`data_orgsv1_gcs`). */
  readonly source: { readonly orgs: readonly DataOrg[] } | { readonly bucket: BucketLocation };
}

const ids = z.array(z.string().min(1, 'required').max(200, 'must be at most 200 characters')).max(10_000, 'at most 10000 ids');
const storage = z.object({
  bucket: z.string().min(3, 'must be a bucket name of 3 to 222 characters').max(222, 'must be a bucket name of 3 to 222 characters'),
  path: z.string().min(1, 'required').max(1024, 'must be at most 1024 characters'),
  serviceaccount_json: z.string().optional(),
  serviceaccountJson: z.string().optional(),
});
type StorageInput = z.output<typeof storage>;

const exportBody = z.object({
  orgIds: ids.default([]),
  excludedOrgIds: ids.default([]),
  withPasswords: z.boolean().default(false),
  withOtp: z.boolean().default(false),
  timeout: z.string().optional(),
  responseOutput: z.boolean().default(false),
  gcsOutput: storage.optional(),
});

const importBody = z.object({
  timeout: z.string({ error: 'required' }),
  dataOrgsv1: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  dataOrgsv1Gcs: storage.optional(),
});

/** Parses a JSON request body into an object with camelCase keys (snake_case accepted). */
export function parseJsonBody(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.length === 0 ? '{}' : body.toString('utf8'));
  } catch {
    throw invalidArgument('request.malformed_json', 'the request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidArgument('request.malformed_json', 'the request body must be a JSON object');
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = v;
  return out;
}

/** `endpoint`: TESSERA_GCS_ENDPOINT (decides which token URIs a service account may name). */
export function parseExportRequest(body: Record<string, unknown>, endpoint?: string): ExportRequest {
  const input = parseWith(exportBody, body);
  if (input.gcsOutput !== undefined && input.responseOutput) throw validationFailed([{ field: 'gcsOutput', description: 'set either response_output or gcs_output, not both' }]);
  if (input.gcsOutput === undefined && !input.responseOutput) throw validationFailed([{ field: 'responseOutput', description: 'must be true (or gcs_output set)' }]);
  return {
    bucket: input.gcsOutput === undefined ? undefined : locationOf(input.gcsOutput, 'gcsOutput', endpoint),
    orgIds: input.orgIds,
    excludedOrgIds: input.excludedOrgIds,
    withPasswords: input.withPasswords,
    withOtp: input.withOtp,
    timeoutMs: input.timeout === undefined ? DEFAULT_EXPORT_TIMEOUT_MS : timeoutOf(input.timeout),
  };
}

export function parseImportRequest(body: Record<string, unknown>, endpoint?: string): ImportRequest {
  const input = parseWith(importBody, body);
  const timeoutMs = timeoutOf(input.timeout);
  if (input.dataOrgsv1 !== undefined && input.dataOrgsv1Gcs !== undefined) {
    throw validationFailed([{ field: 'dataOrgsv1Gcs', description: 'set either data_orgsv1 or data_orgsv1_gcs, not both' }]);
  }
  if (input.dataOrgsv1Gcs !== undefined) return { timeoutMs, source: { bucket: locationOf(input.dataOrgsv1Gcs, 'dataOrgsv1Gcs', endpoint) } };
  if (input.dataOrgsv1 === undefined) throw validationFailed([{ field: 'dataOrgsv1', description: 'required: data_orgsv1 or data_orgsv1_gcs' }]);
  return { timeoutMs, source: { orgs: parseDocument(input.dataOrgsv1, 'dataOrgsv1') } };
}

/** The export document (JSON text or the parsed object); errors name `field` (and paths below it). */
export function parseDocument(value: unknown, field: string): DataOrg[] {
  let document = value;
  if (typeof document === 'string') {
    try {
      document = JSON.parse(document);
    } catch {
      throw invalidArgument('import.malformed_document', `${field} is not a valid JSON document`, {
        violations: [{ field, description: 'not valid JSON' }],
      });
    }
  }
  const { orgs } = parseWith(documentSchema, document, field);
  const seen = new Set<string>();
  orgs.forEach((org, i) => {
    if (seen.has(org.orgId)) throw validationFailed([{ field: `${field}.orgs[${i}].orgId`, description: 'appears twice in the document' }], 'import.duplicate_org');
    seen.add(org.orgId);
  });
  return orgs as DataOrg[];
}

function locationOf(input: StorageInput, field: string, endpoint: string | undefined): BucketLocation {
  const account = parseServiceAccount(input.serviceaccountJson ?? input.serviceaccount_json, `${field}.serviceaccountJson`, endpoint);
  return { bucket: input.bucket, path: input.path, account };
}

function timeoutOf(text: string): number {
  const ms = parseDuration(text) ?? durationToMs(text);
  if (ms === undefined || ms <= 0 || ms > MAX_TIMEOUT_MS) {
    throw validationFailed([{ field: 'timeout', description: 'must be a duration between 1ms and 24h, such as 10m, 1h30m, 90s or 1.5s' }]);
  }
  return ms;
}

// The document: every list optional, ids required; values are checked item by item on import.
const id = z.string().min(1, 'required').max(200, 'must be at most 200 characters');
const str = z.string().default('');
const bool = z.boolean().default(false);
const strings = z.array(z.string()).default([]);
const list = <T extends z.ZodType>(item: T) => z.array(item).optional();

const documentSchema = z.object(
  {
    orgs: z.array(
      z.object({
        orgId: id,
        org: z.object({ name: z.string().min(1, 'required').max(200, 'must be at most 200 characters') }, 'required'),
        languageSettings: z.object({ defaultLanguage: z.string().optional(), restrictedLanguages: z.array(z.string()).optional() }).optional(),
        textSettings: list(z.object({ language: z.string().min(1, 'required'), texts: z.record(z.string(), z.string()) })),
        brandingSettings: z.record(z.string(), z.union([z.string(), z.boolean()])).optional(),
        lockoutPolicy: z.object({ maxPasswordAttempts: z.union([z.string(), z.number()]).optional(), maxOtpAttempts: z.union([z.string(), z.number()]).optional() }).optional(),
        // Checked item by item on import (login-policy-document.ts): a bad value fails the policy alone.
        loginPolicy: z.record(z.string(), z.unknown()).optional(),
        // The older data_orgsv1 format's factors at organization level; the names are checked with the login policy.
        secondFactors: list(z.object({ type: z.union([z.string(), z.number()]) })),
        multiFactors: list(z.object({ type: z.union([z.string(), z.number()]) })),
        forgeIdps: list(
          z.object({
            idpId: id,
            idp: z.object(
              {
                name: z.string().min(1, 'required'),
                idpType: str,
                policy: str,
                options: z
                  .object({ isManualLinkingAllowed: bool, isManualCreationAllowed: bool, isAutoCreation: bool, isAutoUpdate: bool, autoLinking: str })
                  .default({ isManualLinkingAllowed: false, isManualCreationAllowed: false, isAutoCreation: false, isAutoUpdate: false, autoLinking: '' }),
                clientId: str,
                clientSecret: str,
                scopes: strings,
                issuer: str,
              },
              'required',
            ),
          }),
        ),
        domains: list(z.object({ orgId: str, domainName: z.string().min(1, 'required'), isVerified: bool, isPrimary: bool, validationType: str })),
        humanUsers: list(
          z.object({
            userId: id,
            state: z.string().optional(),
            user: z.object(
              {
                userName: z.string().min(1, 'required'),
                profile: z.object({ firstName: str, lastName: str, nickName: str, displayName: str, preferredLanguage: str, gender: str }).default({
                  firstName: '',
                  lastName: '',
                  nickName: '',
                  displayName: '',
                  preferredLanguage: '',
                  gender: '',
                }),
                email: z.object({ email: str, isEmailVerified: bool }).default({ email: '', isEmailVerified: false }),
                phone: z.object({ phone: str, isPhoneVerified: bool }).optional(),
                hashedPassword: z.object({ value: str }).optional(),
                passwordChangeRequired: bool,
                otpCode: z.string().optional(),
              },
              'required',
            ),
          }),
        ),
        machineUsers: list(z.object({ userId: id, state: z.string().optional(), user: z.object({ userName: z.string().min(1, 'required'), name: str, description: str, accessTokenType: str }, 'required') })),
        userMetadata: list(z.object({ id, key: z.string().min(1, 'required'), value: str })),
        userLinks: list(z.object({ userId: id, idpId: id, idpName: str, providedUserId: z.string().min(1, 'required'), providedUserName: str, idpType: str })),
        projects: list(
          z.object({ projectId: id, state: z.string().optional(), project: z.object({ name: z.string().min(1, 'required'), projectRoleAssertion: bool, projectRoleCheck: bool, hasProjectCheck: bool }, 'required') }),
        ),
        projectRoles: list(z.object({ projectId: id, roleKey: z.string().min(1, 'required'), displayName: str, group: str })),
        oidcApps: list(
          z.object({
            appId: id,
            app: z.object(
              {
                projectId: id,
                name: z.string().min(1, 'required'),
                redirectUris: strings,
                responseTypes: strings,
                grantTypes: strings,
                appType: str,
                authMethodType: str,
                postLogoutRedirectUris: strings,
                version: str,
                devMode: bool,
                accessTokenType: str,
                accessTokenRoleAssertion: bool,
                idTokenRoleAssertion: bool,
                idTokenUserinfoAssertion: bool,
                clockSkew: z.string().default('0s'),
                additionalOrigins: strings,
                skipNativeAppSuccessPage: bool,
              },
              'required',
            ),
          }),
        ),
        apiApps: list(z.object({ appId: id, app: z.object({ projectId: id, name: z.string().min(1, 'required'), authMethodType: str }, 'required') })),
        projectGrants: list(z.object({ grantId: id, state: z.string().optional(), projectGrant: z.object({ projectId: id, grantedOrgId: id, roleKeys: strings }, 'required') })),
        userGrants: list(z.object({ userId: id, projectId: id, projectGrantId: str, roleKeys: strings, grantId: id.optional(), state: z.string().optional() })),
        orgMembers: list(z.object({ userId: id, roles: strings })),
        projectMembers: list(z.object({ projectId: id, userId: id, roles: strings })),
      }),
    ),
  },
  'required',
);
