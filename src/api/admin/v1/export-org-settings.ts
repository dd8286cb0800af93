/**
 * The organization-level settings and resources of the export document besides the lists of
 * export-document.ts: the org's own language, text and branding settings, its lockout policy,
 * (its login policy: login-policy-document.ts)
 * and the identity providers it defines.
 */
import {
  brandingSettingsKind,
  languageSettingsKind,
  orgLockoutKind,
  SUPPORTED_LANGUAGES,
  textSettingsId,
  textSettingsKind,
  type ActorSystem,
  type AggregateRecord,
  type Idp,
} from '../../../../actors/index.js';
import { autoLinkingNames, idpPolicyNames, idpTypeNames, type DataForgeIdp, type DataOrg } from './export-format.js';

/** The keys the organization itself sets; undefined when it sets none. */
export async function languageSettingsOf(actors: ActorSystem, instanceId: string, orgId: string): Promise<DataOrg['languageSettings']> {
  const row = await actors.readRecord(instanceId, languageSettingsKind, orgId);
  if (row === undefined || row.meta.owner.type !== 'org') return undefined;
  const { defaultLanguage, restrictedLanguages } = row.state;
  if (defaultLanguage === undefined && restrictedLanguages === undefined) return undefined;
  return { ...(defaultLanguage === undefined ? {} : { defaultLanguage }), ...(restrictedLanguages === undefined ? {} : { restrictedLanguages: [...restrictedLanguages] }) };
}

/** The login texts the organization itself sets, per supported language; undefined when none. */
export async function textSettingsOf(actors: ActorSystem, instanceId: string, orgId: string): Promise<DataOrg['textSettings']> {
  const list: NonNullable<DataOrg['textSettings']> = [];
  for (const language of SUPPORTED_LANGUAGES) {
    const row = await actors.readRecord(instanceId, textSettingsKind, textSettingsId(orgId, language));
    const texts = Object.fromEntries(Object.entries(row?.state ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
    if (row?.meta.owner.type === 'org' && Object.keys(texts).length > 0) list.push({ language, texts });
  }
  return list.length === 0 ? undefined : list;
}

/** The branding properties the organization itself sets; undefined when none. */
export async function brandingSettingsOf(actors: ActorSystem, instanceId: string, orgId: string): Promise<DataOrg['brandingSettings']> {
  const row = await actors.readRecord(instanceId, brandingSettingsKind, orgId);
  if (row === undefined || row.meta.owner.type !== 'org') return undefined;
  const set = Object.fromEntries(Object.entries(row.state).filter((e): e is [string, string | boolean] => typeof e[1] === 'string' || typeof e[1] === 'boolean'));
  return Object.keys(set).length === 0 ? undefined : set;
}

/** The organization's own lockout thresholds; undefined when it uses the instance's. */
export async function lockoutPolicyOf(actors: ActorSystem, instanceId: string, orgId: string): Promise<DataOrg['lockoutPolicy']> {
  const row = await actors.readRecord(instanceId, orgLockoutKind, orgId);
  if (row === undefined) return undefined;
  const { maxPasswordAttempts, maxOtpAttempts } = row.state;
  return {
    ...(maxPasswordAttempts === undefined ? {} : { maxPasswordAttempts: String(maxPasswordAttempts) }),
    ...(maxOtpAttempts === undefined ? {} : { maxOtpAttempts: String(maxOtpAttempts) }),
  };
}

/** An org-defined IDP with its client secret opened (the target seals it with its own key). */
export function forgeIdpOf(actors: ActorSystem, record: AggregateRecord<Idp>): DataForgeIdp {
  const idp = record.state;
  return {
    idpId: record.id,
    idp: {
      name: idp.name,
      idpType: idpTypeNames.toWire(idp.idpType),
      policy: idpPolicyNames.toWire(idp.policy),
      options: { ...idp.options, autoLinking: autoLinkingNames.toWire(idp.options.autoLinking) },
      clientId: idp.config.clientId,
      clientSecret: idp.config.clientSecret === '' ? '' : actors.sealer.open(idp.config.clientSecret),
      scopes: [...idp.config.scopes],
      issuer: idp.config.issuer,
    },
  };
}
