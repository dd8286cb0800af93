/**
 * Phase 1 of an import, after the domains: the organization's own language settings and the
 * identity providers it defines (original ids; the client secret is sealed with the target's
 * master key). Tessera extensions of the document (`languageSettings`, `forgeIdps`).
 */
import { createIdp, idpKind, languageSettingsKind, setLanguageSettings, type CommandHandler } from '../../../../actors/index.js';
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

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return (a ?? []).join(',') === (b ?? []).join(',') && (a === undefined) === (b === undefined);
}
