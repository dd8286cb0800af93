/**
 * Phase 1 of an import, after the domains: the organization's own language, text and branding
 * settings, its lockout policy (`lockoutPolicy`, reference facts §6.1), its login policy (`loginPolicy`) and the identity providers it defines (original ids; the client secret is sealed
 * with the target's master key). Tessera extensions of the document (`languageSettings`,
 * `textSettings`, `brandingSettings`, `forgeIdps`).
 */
import { z } from 'zod';
import {
  brandingSettingsKind,
  createIdp,
  idpKind,
  languageSettingsKind,
  loginSettingsKind,
  orgLockoutKind,
  setBrandingSettings,
  setLoginSettings,
  setOrgLockout,
  setLanguageSettings,
  setTextSettings,
  textSettingsId,
  textSettingsKind,
  type BrandingSettingsValues,
  type CommandHandler,
} from '../../../../actors/index.js';
import { isMessageKey } from '../../../i18n/index.js';
import { maxPasswordAttempts } from '../../settings/users/set-user-settings.js';
import { loginPolicyItem } from './login-policy-document.js';
import { autoLinkingNames, idpPolicyNames, idpTypeNames, type DataOrg } from './export-format.js';
import type { ImportRun } from './import-run.js';
import { checkItem, enumOf, namedItem } from './import-validation.js';

export async function importOrgSettings(run: ImportRun, data: DataOrg): Promise<void> {
  const { actors, instanceId } = run.deps;
  const orgId = data.orgId;
  const ask = <C, R>(handler: CommandHandler<C, R>, command: C) => actors.ask({ kind: 'org', instanceId, orgId }, handler, command, { creator: run.deps.creator });

  const language = data.languageSettings;
  if (language !== undefined && (language.defaultLanguage !== undefined || language.restrictedLanguages !== undefined)) {
    const same = async () => {
      const row = (await actors.readRecord(instanceId, languageSettingsKind, orgId))?.state;
      return row !== undefined && row.defaultLanguage === language.defaultLanguage && sameList(row.restrictedLanguages, language.restrictedLanguages);
    };
    await run.item('language_settings', orgId, same, async () => {
      const set = { ...(language.defaultLanguage === undefined ? {} : { defaultLanguage: language.defaultLanguage }), ...(language.restrictedLanguages === undefined ? {} : { restrictedLanguages: language.restrictedLanguages }) };
      await ask(setLanguageSettings, { orgId, patch: { set, reset: [] } });
    });
  }

  for (const t of data.textSettings ?? []) {
    const same = async () => {
      const row = (await actors.readRecord(instanceId, textSettingsKind, textSettingsId(orgId, t.language)))?.state ?? {};
      return Object.entries(t.texts).every(([key, text]) => row[key] === text);
    };
    await run.item('text_settings', `${orgId}_${t.language}`, same, async () => {
      checkItem(textsItem, t.texts, 'textSettings.texts');
      await ask(setTextSettings, { orgId, language: t.language, patch: { set: t.texts, reset: [] } });
    });
  }

  const branding = data.brandingSettings;
  if (branding !== undefined && Object.keys(branding).length > 0) {
    const same = async () => {
      const row = (await actors.readRecord(instanceId, brandingSettingsKind, orgId))?.state as Record<string, unknown> | undefined;
      return row !== undefined && Object.entries(branding).every(([key, value]) => row[key] === value);
    };
    await run.item('branding_settings', orgId, same, async () => {
      // The command checks every property's shape (colors, URLs, booleans) and names the bad one.
      await ask(setBrandingSettings, { orgId, patch: { set: branding as Partial<BrandingSettingsValues>, reset: [] } });
    });
  }

  const lockout = data.lockoutPolicy;
  if (lockout !== undefined && (lockout.maxPasswordAttempts !== undefined || lockout.maxOtpAttempts !== undefined)) {
    const wanted = { maxPasswordAttempts: lockout.maxPasswordAttempts, maxOtpAttempts: lockout.maxOtpAttempts };
    const same = async () => {
      const row = (await actors.readRecord(instanceId, orgLockoutKind, orgId))?.state;
      return row !== undefined && (wanted.maxPasswordAttempts === undefined || row.maxPasswordAttempts === Number(wanted.maxPasswordAttempts)) && (wanted.maxOtpAttempts === undefined || row.maxOtpAttempts === Number(wanted.maxOtpAttempts));
    };
    await run.item('lockout_policy', orgId, same, async () => {
      checkItem(lockoutItem, wanted, 'lockoutPolicy');
      const parsed = lockoutItem.parse(wanted);
      await ask(setOrgLockout, { orgId, ...definedOnly(parsed) });
    });
  }

  const login = loginPolicyOfDocument(data);
  if (login !== undefined) {
    const parsed = loginPolicyItem.safeParse(login);
    const same = async () => {
      const row = (await actors.readRecord(instanceId, loginSettingsKind, orgId))?.state as Record<string, unknown> | undefined;
      return row !== undefined && parsed.success && Object.entries(parsed.data).every(([key, value]) => JSON.stringify(row[key]) === JSON.stringify(value));
    };
    await run.item('login_policy', orgId, same, async () => {
      checkItem(loginPolicyItem, login, 'loginPolicy');
      // The command refuses a policy without a way to sign in, naming the field.
      await ask(setLoginSettings, { orgId, settings: loginPolicyItem.parse(login) });
    });
  }

  for (const i of data.forgeIdps ?? []) {
    const exists = async () => (await actors.readRecord(instanceId, idpKind, i.idpId))?.meta.owner.id === orgId;
    await run.item('idp', i.idpId, exists, async () => {
      checkItem(namedItem, i.idp, 'idp');
      const { options, clientId, clientSecret, scopes, issuer } = i.idp;
      await ask(createIdp, {
        idpId: i.idpId,
        orgId,
        name: i.idp.name,
        idpType: enumOf(idpTypeNames, i.idp.idpType, 'forge', 'idpType'),
        policy: enumOf(idpPolicyNames, i.idp.policy, 'activate', 'policy'),
        options: { ...options, autoLinking: enumOf(autoLinkingNames, options.autoLinking, 'none', 'autoLinking') },
        config: { clientId, clientSecret, scopes, issuer },
      });
    });
  }
}

/** proto3 JSON writes uint64 as a decimal string; a number is accepted too. */
const lockoutNumber = z.union([z.number(), z.string().regex(/^\d{1,10}$/, 'must be a whole number').transform(Number)]).pipe(maxPasswordAttempts);
const lockoutItem = z.object({ maxPasswordAttempts: lockoutNumber.optional(), maxOtpAttempts: lockoutNumber.optional() });

function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

/** Keys of the login catalog, texts at most SetStringLong (2048 characters). */
const textsItem = z.record(
  z.string().refine(isMessageKey, 'not a key of the login texts'),
  z.string().max(2048, 'must be at most 2048 characters'),
);

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return (a ?? []).join(',') === (b ?? []).join(',') && (a === undefined) === (b === undefined);
}

/**
 * The organization's login policy as the document gives it: `loginPolicy`, with the older
 * `data_orgsv1` format's organization-level `secondFactors[] {type}` / `multiFactors[] {type}`
 * moved into it (reference facts §6.1; a list `loginPolicy` names itself wins). Without any of
 * them the organization keeps inheriting.
 */
function loginPolicyOfDocument(data: DataOrg): Record<string, unknown> | undefined {
  const secondFactors = data.secondFactors?.map((f) => f.type);
  const multiFactors = data.multiFactors?.map((f) => f.type);
  if (data.loginPolicy === undefined && secondFactors === undefined && multiFactors === undefined) return undefined;
  return { ...(secondFactors === undefined ? {} : { secondFactors }), ...(multiFactors === undefined ? {} : { multiFactors }), ...data.loginPolicy };
}
