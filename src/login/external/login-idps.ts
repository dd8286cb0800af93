/**
 * The IDPs an auth request's login offers, and the organization they are seen from: the
 * organization an org scope of the request names, else the instance's default organization
 * (where self-registration and external account creation put new users). The IDPs are those
 * whose effective state there is active (instance IDPs by that org's policy, plus its own).
 */
import { activeIdpsForOrg, instanceSettingsKind, type ActiveIdp } from '../../../actors/index.js';
import type { LoginContext } from '../login-context.js';
import { loginOrgOf, type LoginOrg } from '../login-org.js';

export interface LoginIdps {
  readonly loginOrg: LoginOrg;
  /** The organization of the login (undefined: an org scope naming no organization). */
  readonly orgId: string | undefined;
  readonly idps: readonly ActiveIdp[];
}

export async function loginIdpsOf(ctx: LoginContext): Promise<LoginIdps> {
  const { actors } = ctx.deps;
  const loginOrg = await loginOrgOf(actors, ctx.instanceId, ctx.stored.request.scopes);
  const orgId = loginOrg.restricted ? loginOrg.orgId : (await actors.readRecord(ctx.instanceId, instanceSettingsKind, ctx.instanceId))?.state.defaultOrgId || undefined;
  const idps = orgId === undefined ? [] : await activeIdpsForOrg(actors, ctx.instanceId, orgId);
  return { loginOrg, orgId, idps };
}

/** The active IDP `idpId` of the login, or undefined (unknown, removed, deactivated, another org's). */
export async function activeLoginIdp(ctx: LoginContext, idpId: string | undefined): Promise<{ readonly idp: ActiveIdp; readonly login: LoginIdps } | undefined> {
  if (idpId === undefined || idpId === '' || idpId.length > 200) return undefined;
  const login = await loginIdpsOf(ctx);
  const idp = login.idps.find((i) => i.id === idpId);
  return idp === undefined ? undefined : { idp, login };
}
